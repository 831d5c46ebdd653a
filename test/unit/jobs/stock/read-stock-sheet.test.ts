import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../../../src/api/merchant-client.js';
import type { JobProgress } from '../../../../src/jobs/job-events.js';
import type { PlanFromSheetOptions } from '../../../../src/jobs/runner/plan-from-sheet.js';
import { readStockSheet, type EarlyRows } from '../../../../src/jobs/stock/read-stock-sheet.js';
import type { SheetRow } from '../../../../src/sheets/sheet-row.js';

const ROWS = 20_000;
let dir: string;
let file: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-read-input-'));
  file = path.join(dir, 'stock.csv');
  let text = 'sku,quantity\n';
  for (let i = 0; i < ROWS; i++) text += `SKU-${i},${i % 50}\n`;
  fs.writeFileSync(file, text);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What takes the rows: their numbers, in the order they came. */
class Taken {
  readonly numbers: number[] = [];
  add(row: SheetRow): void {
    this.numbers.push(row.rowNumber);
  }
}

/** Keeps the row numbers read early; full after `fullAfter` rows. */
class Early implements EarlyRows<Taken> {
  readonly numbers: number[] = [];
  constructor(private readonly fullAfter = Infinity) {}
  add(row: SheetRow): void {
    this.numbers.push(row.rowNumber);
  }
  get full(): boolean {
    return this.numbers.length >= this.fullAfter;
  }
  replay(into: Taken): void {
    for (const rowNumber of this.numbers) into.add({ sheet: 'stock.csv', rowNumber, cells: {} });
  }
}

function options(
  over: Partial<PlanFromSheetOptions> = {},
): PlanFromSheetOptions & { progress: JobProgress[] } {
  const progress: JobProgress[] = [];
  return {
    client: {} as MerchantClient,
    file,
    runsRoot: dir,
    target: 'test',
    onProgress: (p) => progress.push(p),
    progress,
    ...over,
  };
}

/** Resolves once `early` holds rows (the sheet is being read while the take waits). */
async function rowsReadEarly(early: Early): Promise<number> {
  for (let waited = 0; early.numbers.length === 0; waited += 5) {
    if (waited > 10_000) throw new Error('no row was read while the take waited');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return early.numbers.length;
}

const every = Array.from({ length: ROWS }, (_, i) => i + 2);

describe('readStockSheet with rows read early', () => {
  it('reads the sheet while the take gets ready, then hands every row over once, in order', async () => {
    const early = new Early();
    let readBeforeTaken = 0;
    const o = options();
    const sheet = await readStockSheet(o, {
      header: (info) => ({ columns: info.columns, issues: [] }),
      early: () => early,
      take: async () => {
        readBeforeTaken = await rowsReadEarly(early);
        return new Taken();
      },
    });
    expect(readBeforeTaken).toBeGreaterThan(0);
    expect(sheet.rows).toBe(ROWS);
    expect(sheet.taken.numbers).toEqual(every);
    const done = o.progress.filter((p) => p.phase === 'read').map((p) => p.done);
    expect(done.at(-1)).toBe(ROWS);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('hands a sheet read to its end while the take waited over whole, once', async () => {
    const early = new Early();
    const sheet = await readStockSheet(options(), {
      header: (info) => ({ columns: info.columns, issues: [] }),
      early: () => early,
      take: async () => {
        for (let waited = 0; early.numbers.length < ROWS; waited += 10) {
          if (waited > 10_000) throw new Error('the sheet was not read to its end while the take waited');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return new Taken();
      },
    });
    expect(sheet.rows).toBe(ROWS);
    expect(sheet.taken.numbers).toEqual(every);
  });

  it('reads no further than its bound while the take waits', async () => {
    const early = new Early(1);
    let readBeforeTaken = 0;
    const sheet = await readStockSheet(options(), {
      header: (info) => ({ columns: info.columns, issues: [] }),
      early: () => early,
      take: async () => {
        await rowsReadEarly(early);
        // Time for more batches than one, had the bound not stopped them.
        await new Promise((resolve) => setTimeout(resolve, 200));
        readBeforeTaken = early.numbers.length;
        return new Taken();
      },
    });
    expect(readBeforeTaken).toBeLessThan(ROWS / 2);
    expect(sheet.taken.numbers).toEqual(every);
  });

  it("throws the take's error when it fails, the sheet's when only the sheet fails, and nothing unhandled", async () => {
    const steps = (take: () => Promise<Taken>) => ({
      header: (info: { columns: unknown }) => ({ columns: info.columns, issues: [] }),
      early: () => new Early(),
      take,
    });
    const liveFails = () =>
      new Promise<Taken>((_, reject) => setTimeout(() => reject(new Error('the live read failed')), 30));
    await expect(readStockSheet(options(), steps(liveFails))).rejects.toThrow('the live read failed');
    // Failing while the sheet is being read (its failure then has no handler until the reading stops).
    const liveFailsAtOnce = () =>
      new Promise<Taken>((_, reject) =>
        setImmediate(() => reject(new Error('the live read failed at once'))),
      );
    await expect(readStockSheet(options(), steps(liveFailsAtOnce))).rejects.toThrow('failed at once');
    // A sheet over its row limit fails past its 15,000th row: after its first batches, not when opened.
    const limited = options({ read: { limits: { maxRows: 15_000 } } });
    await expect(readStockSheet(limited, steps(liveFails))).rejects.toThrow('the live read failed');
    // The take is slow: the limit is met while reading early, and its error waits for the take.
    let takeReady = false;
    let readyAtError: boolean | undefined;
    const liveWorks = () =>
      new Promise<Taken>((resolve) =>
        setTimeout(() => {
          takeReady = true;
          resolve(new Taken());
        }, 1500),
      );
    const early = new Early();
    await expect(
      readStockSheet(limited, { ...steps(liveWorks), early: () => early }).catch((error: unknown) => {
        readyAtError = takeReady;
        throw error;
      }),
    ).rejects.toThrow(/more than 15,000 data rows/);
    expect(early.numbers.length).toBeGreaterThan(10_000);
    expect(readyAtError).toBe(true);
  });
});
