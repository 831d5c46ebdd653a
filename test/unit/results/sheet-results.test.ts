import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import type { ChangeOutcome } from '../../../src/results/change-outcome.js';
import type { SheetResults } from '../../../src/results/sheet-results.js';
import { SheetResultsAhead, writeSheetResults } from '../../../src/results/sheet-results.js';
import type { RunInput } from '../../../src/apply/run-input.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-sheet-results-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

// Enough for results.csv lines past one of the 256 KiB buffers they are made into ahead.
const ROWS = 10_000;
/** The products sheet's label: quoted in a CSV line. */
const PRODUCTS = '=products, "2026"';

/** A run with its copies of two input sheets: `products.csv` (ROWS rows) and `options.csv` (a few, `;`-separated). */
function plannedRun(extraColumns = true): { run: RunDirectory; input: RunInput; declared: SheetResults } {
  const run = RunDirectory.create(path.join(root, 'runs'), {
    kind: 'fake',
    input: 'products.csv',
    target: 'test',
    storeId: 'st_1',
  });
  const lines = ['sku,name,note'];
  for (let row = 2; row <= ROWS + 1; row++) lines.push(`S-${row},"Name, ${row}",é ${row}`);
  fs.writeFileSync(path.join(run.dir, 'input-products.csv'), `${lines.join('\r\n')}\r\n`);
  fs.writeFileSync(
    path.join(run.dir, 'input-options.csv'),
    'sku;option\r\nS-2;Size\r\nS-9;Colour\r\nS-12;Fit\r\n',
  );
  const input: RunInput = { original: 'products.csv', copy: 'input-products.csv' };
  const options: RunInput = { original: 'options.csv', copy: 'input-options.csv' };
  const declared: SheetResults = {
    sheets: [
      { input, label: PRODUCTS, failedFile: run.file('failed') },
      { input: options, label: 'options', failedFile: path.join(run.dir, 'failed-options.csv') },
    ],
    invalid: [
      {
        severity: 'error',
        code: 'bad_price',
        message: 'price is not a number',
        sheet: PRODUCTS,
        rowNumber: 7,
        column: 'D',
      },
      { severity: 'error', code: 'bad_size', message: '=size', sheet: 'options', rowNumber: 3, column: 'B' },
      { severity: 'warning', code: 'trimmed', message: 'trimmed', sheet: PRODUCTS, rowNumber: 8 },
    ],
    rows: [
      {
        sheet: PRODUCTS,
        row: 11,
        outcome: 'skipped',
        errorCode: 'not_imported',
        extra: { kind: 'gift card' },
      },
      { sheet: PRODUCTS, row: 3000, outcome: 'failed', errorCode: 'refused', errorMessage: 'too dear' },
      // Extra cells only, for a row whose result is its change's.
      { sheet: PRODUCTS, row: 4, extra: { kind: 'declared' } },
    ],
    notes: [
      {
        severity: 'warning',
        code: 'image_left_out',
        message: 'one image left out',
        sheet: PRODUCTS,
        rowNumber: 4,
        column: 'E',
      },
      {
        severity: 'warning',
        code: 'image_left_out',
        message: 'one image left out',
        sheet: PRODUCTS,
        rowNumber: 20,
      },
    ],
    ...(extraColumns ? { extraColumns: ['sku', 'kind'] } : {}),
  };
  return { run, input, declared };
}

/** Changes over rows of both sheets: done (with extra cells), failed, not run. */
const changes: ChangeOutcome[] = [
  {
    status: 'done',
    outcome: 'updated',
    rows: [
      { sheet: PRODUCTS, row: 4 },
      { sheet: 'options', row: 2 },
    ],
    entityId: 'p_4',
    key: 'S-4',
    extra: { kind: 'changed' },
  },
  {
    status: 'failed',
    outcome: 'created',
    rows: [{ sheet: PRODUCTS, row: 2500 }],
    failure: { code: 'invalid_parameter', message: '+1 is bad', requestId: 'req_1' },
  },
  { status: 'not_run', outcome: 'updated', rows: [{ sheet: PRODUCTS, row: ROWS + 1 }] },
];
const counted = (c: ChangeOutcome) => c.status !== 'done';

function files(run: RunDirectory): Record<string, string> {
  return Object.fromEntries(
    ['results.csv', 'failed.csv', 'failed-options.csv'].map((f) => [
      f,
      fs.readFileSync(path.join(run.dir, f), 'utf8'),
    ]),
  );
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe('results.csv made ahead, while the operations go', () => {
  /** The files and summary written after the operations, all rows read then: what ahead must match. */
  async function written(extraColumns = true): Promise<{ files: Record<string, string>; summary: unknown }> {
    const { run, input, declared } = plannedRun(extraColumns);
    const summary = await writeSheetResults(run, input, declared, changes, counted);
    return { files: files(run), summary };
  }

  it.each([
    ['with extra columns', true],
    ['without (the unchanged rows made from parts)', false],
  ])(
    'writes byte for byte what is written after them, every row read ahead or some: %s',
    async (_, extraColumns) => {
      const expected = await written(extraColumns);
      expect(expected.files['results.csv']?.split('\r\n')).toHaveLength(ROWS + 3 + 2);
      for (const maxBytes of [undefined, 20_000]) {
        const { run, input, declared } = plannedRun(extraColumns);
        const held = changes.flatMap((c) => c.rows);
        const ahead = new SheetResultsAhead(run, input, declared, held, maxBytes);
        // Read ahead as far as it goes: every row, or up to the bound (the rest is read after).
        if (maxBytes === undefined) await until(() => ahead.rowsRead === ROWS + 3);
        else {
          await until(() => ahead.rowsRead > 0);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(ahead.rowsRead).toBeLessThan(ROWS);
        }
        const summary = await writeSheetResults(run, input, declared, changes, counted, ahead);
        expect(files(run)).toEqual(expected.files);
        expect(summary).toEqual(expected.summary);
      }
    },
  );

  it('writes the same when the operations end before anything was read ahead', async () => {
    const expected = await written();
    const { run, input, declared } = plannedRun();
    const ahead = new SheetResultsAhead(
      run,
      input,
      declared,
      changes.flatMap((c) => c.rows),
    );
    await writeSheetResults(run, input, declared, changes, counted, ahead);
    expect(files(run)).toEqual(expected.files);
  });

  it('stops reading ahead once the rows it holds reach its bound: every row a change', async () => {
    const { run, input, declared } = plannedRun();
    const every: ChangeOutcome[] = Array.from({ length: ROWS }, (_, i) => ({
      status: 'done',
      outcome: 'updated',
      rows: [{ sheet: PRODUCTS, row: i + 2 }],
    }));
    const expectedRun = plannedRun();
    await writeSheetResults(expectedRun.run, expectedRun.input, expectedRun.declared, every, counted);
    // ~300 bytes a held row here: 200 KB hold a few hundred of the 10,000.
    const ahead = new SheetResultsAhead(
      run,
      input,
      declared,
      every.flatMap((c) => c.rows),
      200_000,
    );
    await until(() => ahead.rowsRead > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ahead.rowsRead).toBeLessThan(ROWS / 2);
    await writeSheetResults(run, input, declared, every, counted, ahead);
    expect(files(run)).toEqual(files(expectedRun.run));
  });

  it('reads the inputs again when a change names a row it did not hold', async () => {
    const expected = await written();
    const { run, input, declared } = plannedRun();
    // Row 2500's change was not among the operations when the run began (a fallback's, say).
    const held = changes.flatMap((c) => c.rows).filter((r) => r.row !== 2500);
    const ahead = new SheetResultsAhead(run, input, declared, held);
    await until(() => ahead.rowsRead === ROWS + 3);
    await writeSheetResults(run, input, declared, changes, counted, ahead);
    expect(files(run)).toEqual(expected.files);
  });

  it('reads the inputs again when reading ahead failed', async () => {
    const expected = await written();
    const { run, input, declared } = plannedRun();
    const copy = path.join(run.dir, input.copy);
    const kept = fs.readFileSync(copy);
    fs.rmSync(copy);
    const ahead = new SheetResultsAhead(
      run,
      input,
      declared,
      changes.flatMap((c) => c.rows),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ahead.rowsRead).toBe(0);
    fs.writeFileSync(copy, kept);
    await writeSheetResults(run, input, declared, changes, counted, ahead);
    expect(files(run)).toEqual(expected.files);
  });
});
