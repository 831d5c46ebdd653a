import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import type { JobProgress } from '../../../src/jobs/job-events.js';
import { planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type * as ReadSheetModule from '../../../src/sheets/read-sheet.js';

/** Rows every sheet reader of this file has handed out. */
const rowsRead = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/sheets/read-sheet.js', async (importActual) => {
  const { countingReadSheet } = await import('../../helpers/counting-read-sheet.js');
  return countingReadSheet(await importActual<typeof ReadSheetModule>(), rowsRead);
});

let sandbox: RunningSandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('stock import of a sku and quantity sheet', () => {
  it('reads the sheet while the live inventory is read, and plans it as before', async () => {
    const snapshot = generateStore({ products: 250, customers: 0, orders: 0, seed: 3 });
    sandbox = await startSandbox({ seed: snapshot, latencyMs: 60 });
    const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
    dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-early-'));
    const items = snapshot.products.flatMap((p) =>
      p.inventory_enabled
        ? [p.inventory, ...p.variants.map((v) => v.inventory)].flatMap((i) => (i?.sku ? [i] : []))
        : [],
    );
    const file = join(dir, 'stock.csv');
    writeFileSync(
      file,
      `sku,quantity\n${items.map((i, n) => `${i.sku},${n < 4 ? i.quantity + 1 : i.quantity}`).join('\n')}\n`,
    );
    // Rows read by the time each page of the live read was counted.
    const readAtPages: number[] = [];
    rowsRead.count = 0;
    const planned = await planStockImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: 'test',
      onProgress: (p: JobProgress) => {
        if (p.phase === 'fetch') readAtPages.push(rowsRead.count);
      },
    });
    expect(readAtPages.length).toBeGreaterThan(2);
    // The sheet was read before the live read's last page: without reading early, 0 at every page.
    expect(readAtPages.some((n) => n > 0)).toBe(true);
    expect(planned.file.plan.changes.map((c) => c.sku)).toEqual(items.slice(0, 4).map((i) => i.sku));
    expect(planned.file.plan.unchanged).toBe(items.length - 4);
    expect(planned.file.plan.issues).toEqual([]);
  });
});
