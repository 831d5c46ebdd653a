import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RowIssue } from '../../../src/mapping/row-issue.js';
import { changeOf, changeRowResult } from '../../../src/results/change-outcome.js';
import { FailedCsvWriter, ResultsCsvWriter, writeRowFiles } from '../../../src/results/results-file.js';
import {
  PlainResultLines,
  resultFields,
  invalidRowResult,
  type RowResult,
} from '../../../src/results/row-result.js';
import { csvLine } from '../../../src/sheets/csv-file-writer.js';
import { columnLetter, type SheetColumn, type SheetRow } from '../../../src/sheets/sheet-row.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-results-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function parse(file: string): string[][] {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

const columns = (headers: string[]): SheetColumn[] =>
  headers.map((header, index) => ({
    header,
    key: header.trim().toLowerCase(),
    letter: columnLetter(index),
    index,
  }));

describe('results.csv', () => {
  it('has the fixed columns, one line per row, and neutralised text', async () => {
    const file = path.join(dir, 'results.csv');
    const w = await ResultsCsvWriter.open(file, ['sku']);
    await w.write(
      { sheet: 'products', row: 2, outcome: 'created', entityId: 'p_1', key: 'ref-1' },
      { sku: 'A-1' },
    );
    await w.write(
      {
        sheet: 'products',
        row: 3,
        outcome: 'failed',
        key: '=cmd()',
        errorCode: 'invalid_parameter',
        errorMessage: 'price: must be >= 0, got "-1"',
        column: 'F',
        requestId: 'req_9',
      },
      { sku: '@evil' },
    );
    await w.close();
    expect(w.counts).toMatchObject({ created: 1, failed: 1, updated: 0 });
    expect(parse(file)).toEqual([
      [
        'sheet',
        'row',
        'outcome',
        'entity_id',
        'key',
        'error_code',
        'error_message',
        'column',
        'request_id',
        'sku',
      ],
      ['products', '2', 'created', 'p_1', 'ref-1', '', '', '', '', 'A-1'],
      [
        'products',
        '3',
        'failed',
        '',
        `'=cmd()`,
        'invalid_parameter',
        'price: must be >= 0, got "-1"',
        'F',
        'req_9',
        `'@evil`,
      ],
    ]);
  });

  it('summarises a row with several issues', () => {
    const issues: RowIssue[] = [
      {
        severity: 'error',
        code: 'money_invalid',
        message: 'write a number like 12.90',
        sheet: 's',
        rowNumber: 4,
        column: 'F',
        header: 'price',
      },
      {
        severity: 'error',
        code: 'required',
        message: 'name is required',
        sheet: 's',
        rowNumber: 4,
        column: 'C',
        header: 'name',
      },
      { severity: 'warning', code: 'unknown_column', message: 'ignored', sheet: 's', rowNumber: 4 },
    ];
    const result = invalidRowResult('s', 4, issues, 'ref-4');
    expect(result).toEqual({
      sheet: 's',
      row: 4,
      outcome: 'invalid',
      key: 'ref-4',
      errorCode: 'money_invalid|required',
      errorMessage: 'F (price): write a number like 12.90; C (name): name is required',
      column: 'F|C',
    });
  });
});

describe("a change's row result", () => {
  const op = { key: 'k' };
  const rowOf = (
    row: number,
    outcome: Parameters<typeof changeOf>[0],
    change: { outcome: 'created' | 'updated'; entityId?: string; key?: string },
  ) => changeRowResult('p', row, changeOf(outcome, { ...change, rows: [{ sheet: 'p', row }] }));
  it('maps each operation outcome to a row outcome with the API error facts', () => {
    expect(
      rowOf(
        2,
        { status: 'done', op, key: 'k', result: {}, source: 'executed', attempts: 1 },
        { outcome: 'created', entityId: 'prod_1', key: 'ref-1' },
      ),
    ).toEqual({ sheet: 'p', row: 2, outcome: 'created', entityId: 'prod_1', key: 'ref-1' });
    expect(
      rowOf(
        3,
        {
          status: 'failed',
          op,
          key: 'k',
          attempts: 1,
          error: { message: 'bad sku', code: 'invalid_parameter', requestId: 'req_7' },
        },
        { outcome: 'updated', entityId: 'prod_2' },
      ),
    ).toEqual({
      sheet: 'p',
      row: 3,
      outcome: 'failed',
      // The entity it was to update.
      entityId: 'prod_2',
      errorCode: 'invalid_parameter',
      errorMessage: 'bad sku',
      requestId: 'req_7',
    });
    expect(
      rowOf(
        4,
        { status: 'unknown', op, key: 'k', attempts: 1, error: { message: 'socket hang up' } },
        { outcome: 'updated' },
      ),
    ).toMatchObject({
      outcome: 'failed',
      errorCode: 'outcome_unknown',
      errorMessage: expect.stringContaining('socket hang up'),
    });
    expect(rowOf(5, { status: 'not_run', op, key: 'k' }, { outcome: 'updated' })).toMatchObject({
      outcome: 'skipped',
      errorCode: 'not_run',
    });
  });
});

describe('failed.csv', () => {
  it('keeps the input own headers, order and values exactly (quotes, newlines, unicode, formulas), plus mbulk_error', async () => {
    const headers = ['SKU', 'Name', 'Price', 'Description', 'mbulk_error'];
    const cols = columns(headers);
    const nasty: SheetRow = {
      sheet: 'products',
      rowNumber: 7,
      cells: {
        sku: '007',
        name: 'Tee "Classic", größe XL 👕',
        price: '=1+1',
        description: 'line one\r\nline two\nthree, "quoted"',
        mbulk_error: 'old error from a previous run',
      },
    };
    const xlsxRow: SheetRow = {
      sheet: 'products',
      rowNumber: 8,
      cells: { sku: 12, name: true, price: 19.99, description: null },
    };
    const file = path.join(dir, 'failed.csv');
    const w = await FailedCsvWriter.open(file, cols);
    await w.write(nasty, '=price must be a number');
    await w.write(xlsxRow, 'name: write text');
    await w.close();
    expect(parse(file)).toEqual([
      ['SKU', 'Name', 'Price', 'Description', 'mbulk_error'],
      [
        '007',
        'Tee "Classic", größe XL 👕',
        '=1+1',
        'line one\r\nline two\nthree, "quoted"',
        `'=price must be a number`,
      ],
      ['12', 'true', '19.99', '', 'name: write text'],
    ]);
  });

  it('writeRowFiles streams every row to results.csv and only failed/invalid rows to failed.csv', async () => {
    const cols = columns(['sku', 'quantity']);
    async function* rows(): AsyncGenerator<SheetRow> {
      for (let i = 0; i < 5000; i++) {
        yield { sheet: 'stock', rowNumber: i + 2, cells: { sku: `S${i}`, quantity: String(i) } };
      }
    }
    const resultOf = (row: SheetRow): RowResult => {
      const n = row.rowNumber - 2;
      if (n % 1000 === 0)
        return {
          sheet: row.sheet,
          row: row.rowNumber,
          outcome: 'invalid',
          errorCode: 'unknown_sku',
          errorMessage: `unknown SKU S${n}`,
        };
      if (n % 2 === 0)
        return { sheet: row.sheet, row: row.rowNumber, outcome: 'updated', entityId: `item_${n}` };
      return { sheet: row.sheet, row: row.rowNumber, outcome: 'unchanged' };
    };
    const summary = await writeRowFiles({
      rows: rows(),
      resultOf,
      resultsFile: path.join(dir, 'results.csv'),
      failedFiles: { stock: { file: path.join(dir, 'failed.csv'), columns: cols } },
      extraColumns: ['sku'],
      csv: { flushBytes: 4096 },
    });
    expect(summary.counts).toMatchObject({ invalid: 5, updated: 2495, unchanged: 2500 });
    expect(summary.failedRows).toEqual({ stock: 5 });
    const results = parse(path.join(dir, 'results.csv'));
    expect(results).toHaveLength(5001);
    expect(results[3]).toEqual(['stock', '4', 'updated', 'item_2', '', '', '', '', '', 'S2']);
    expect(parse(path.join(dir, 'failed.csv'))).toEqual([
      ['sku', 'quantity', 'mbulk_error'],
      ...[0, 1000, 2000, 3000, 4000].map((n) => [`S${n}`, String(n), `unknown SKU S${n}`]),
    ]);
  });

  it('makes the line of a result that is only a sheet, a row and an outcome from parts, the same bytes as its fields', async () => {
    const labels = ['stock.csv', '=sheet, "2026"', ' lead space', 'tab\there', 'Ünïcode ✓'];
    const outcomes = ['unchanged', 'skipped', 'updated', 'left_out'] as const;
    for (const delimiter of [',', ';']) {
      const plain = new PlainResultLines(delimiter, []);
      const file = path.join(dir, `plain${delimiter}.csv`);
      const writer = await ResultsCsvWriter.open(file, [], { delimiter });
      let expected = '';
      for (const sheet of labels)
        for (const outcome of outcomes)
          for (const row of [1, 2, 1_000_001]) {
            const result: RowResult = { sheet, row, outcome };
            const line = csvLine(resultFields(result, {}, []), delimiter);
            expect(plain.line(result)).toBe(line);
            expected += line;
            await writer.write(result);
          }
      await writer.close();
      expect(fs.readFileSync(file, 'utf8').split('\r\n').slice(1).join('\r\n')).toBe(expected);
    }
    // More than a sheet, a row and an outcome, or extra columns: not plain.
    expect(
      new PlainResultLines(',', []).line({ sheet: 's', row: 2, outcome: 'updated', entityId: 'p_1' }),
    ).toBeUndefined();
    expect(
      new PlainResultLines(',', ['sku']).line({ sheet: 's', row: 2, outcome: 'unchanged' }),
    ).toBeUndefined();
  });
});
