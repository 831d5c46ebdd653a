import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import { type SheetSpec } from '../../../src/sheets/sheet-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-xlsx-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const orders: SheetSpec = {
  name: 'orders',
  columns: [
    { key: 'id', header: 'id', type: 'text' },
    { key: 'sku', header: 'sku', type: 'text' },
    { key: 'remark', header: 'remark', type: 'text', width: 40 },
    { key: 'total', header: 'total', type: 'money' },
    { key: 'quantity', header: 'quantity', type: 'integer' },
    { key: 'rate', header: 'rate', type: 'number' },
    { key: 'paid', header: 'paid', type: 'boolean' },
    { key: 'created_at', header: 'created_at', type: 'datetime' },
    { key: 'due', header: 'due', type: 'date' },
    { key: 'phone', header: 'phone', type: 'text' },
  ],
};

/** Read back with exceljs's non-streaming reader: a different code path from the streaming writer. */
async function load(path: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  return book;
}

describe('XLSX sheet writer', () => {
  it('writes typed cells that read back with their types and formats', async () => {
    const path = join(dir, 'orders.xlsx');
    const writer = createSheetWriter(path, {
      format: 'xlsx',
      currencyDecimals: 2,
      timezone: 'Asia/Kuala_Lumpur',
    });
    const sheet = await writer.addSheet(orders);
    await sheet.write({
      id: '1234567890123456789',
      sku: '000123',
      remark: '=HYPERLINK("http://x","y")',
      total: 1999,
      quantity: 3,
      rate: 0.5,
      paid: true,
      created_at: '2026-01-05T16:30:15Z',
      due: '2026-02-01',
      phone: '60123456789',
    });
    await sheet.write({ id: '2', sku: '-5', remark: 'plain, "quoted"', total: -5, quantity: 0, paid: false });
    await sheet.write({ id: '3', total: 30 });
    expect(sheet.rowsWritten).toBe(3);
    await writer.close();

    const book = await load(path);
    const ws = book.getWorksheet('orders');
    expect(ws).toBeDefined();
    if (!ws) return;
    expect(ws.rowCount).toBe(4);
    expect(ws.getRow(1).values).toEqual([undefined, ...orders.columns.map((c) => c.header)]);
    expect(ws.getCell('A1').font?.bold).toBe(true);

    const row = ws.getRow(2);
    expect(row.getCell(1).value).toBe('1234567890123456789');
    expect(row.getCell(2).value).toBe('000123');
    // the formula arrives as text, neutralised, never as a formula
    expect(row.getCell(3).type).toBe(ExcelJS.ValueType.String);
    expect(row.getCell(3).value).toBe('\'=HYPERLINK("http://x","y")');
    expect(row.getCell(4).value).toBe(19.99);
    expect(row.getCell(4).numFmt).toBe('#,##0.00');
    expect(row.getCell(5).value).toBe(3);
    expect(row.getCell(6).value).toBe(0.5);
    expect(row.getCell(7).value).toBe(true);
    // 16:30:15Z is 00:30:15 the next day in Kuala Lumpur (UTC+8); exceljs reads dates as UTC fields
    const created = row.getCell(8).value;
    expect(created).toBeInstanceOf(Date);
    expect((created as Date).toISOString()).toBe('2026-01-06T00:30:15.000Z');
    expect(row.getCell(8).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect((row.getCell(9).value as Date).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(row.getCell(9).numFmt).toBe('yyyy-mm-dd');
    expect(row.getCell(10).value).toBe('60123456789');

    const second = ws.getRow(3);
    // An XLSX text cell is never evaluated: '-5' is written as it is (CSV neutralises it).
    expect(second.getCell(2).value).toBe('-5');
    expect(second.getCell(3).value).toBe('plain, "quoted"');
    expect(second.getCell(4).value).toBe(-0.05); // a negative amount stays a number
    expect(second.getCell(7).value).toBe(false);
    expect(second.getCell(8).value).toBeNull(); // blank

    // frozen header, autofilter over header and data, widths
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBe('A1:J4');
    expect(ws.getColumn(3).width).toBe(40);
    expect(ws.getColumn(8).width).toBeGreaterThanOrEqual(19);
    expect(ws.getColumn(4).numFmt).toBe('#,##0.00');
  });

  it('sums money exactly and uses the currency decimals', async () => {
    const path = join(dir, 'money.xlsx');
    const writer = createSheetWriter(path, { format: 'xlsx', currencyDecimals: 0 });
    const sheet = await writer.addSheet({
      name: 'm',
      columns: [{ key: 'a', header: 'amount', type: 'money' }],
    });
    await sheet.write({ a: 1200 });
    await writer.close();
    const ws = (await load(path)).getWorksheet('m');
    expect(ws?.getCell('A2').value).toBe(1200);
    expect(ws?.getCell('A2').numFmt).toBe('#,##0');
  });

  it('keeps carriage returns and literal _xHHHH_ text through our reader', async () => {
    const path = join(dir, 'cr.xlsx');
    const writer = createSheetWriter(path, { format: 'xlsx', currencyDecimals: 2 });
    const sheet = await writer.addSheet({ name: 's', columns: [{ key: 't', header: 't', type: 'text' }] });
    const texts = ['line 1\r\nline 2', 'old mac\rline', 'code _x0041_ stays', 'plain'];
    for (const t of texts) await sheet.write({ t });
    await writer.close();
    const read: unknown[] = [];
    for await (const row of readSheet(path)) read.push(row.cells['t']);
    expect(read).toEqual(texts);
  });

  it('writes several sheets, interleaved, in order', async () => {
    const path = join(dir, 'multi.xlsx');
    const writer = createSheetWriter(path, { format: 'xlsx', currencyDecimals: 2 });
    const a = await writer.addSheet({
      name: 'orders',
      columns: [{ key: 'n', header: 'number', type: 'integer' }],
    });
    const b = await writer.addSheet({
      name: 'order_lines',
      columns: [
        { key: 'n', header: 'number', type: 'integer' },
        { key: 'at', header: 'at', type: 'datetime' },
      ],
    });
    const c = await writer.addSheet({
      name: 'checks',
      columns: [{ key: 'note', header: 'note', type: 'text' }],
    });
    for (let i = 1; i <= 600; i++) {
      await a.write({ n: i });
      await b.write({ n: i, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
      await b.write({ n: -i });
    }
    await c.write({ note: '@risk' });
    await c.end(); // ended before its turn: committed after the others
    await a.end();
    await b.write({ n: 9999 });
    await writer.close();

    const book = await load(path);
    expect(book.worksheets.map((w) => w.name)).toEqual(['orders', 'order_lines', 'checks']);
    const lines = book.getWorksheet('order_lines');
    expect(lines?.rowCount).toBe(1202);
    expect(lines?.getCell('A2').value).toBe(1);
    expect(lines?.getCell('A3').value).toBe(-1);
    expect((lines?.getCell('B2').value as Date).toISOString()).toBe('2026-01-01T00:00:01.000Z');
    expect(lines?.getCell('A1202').value).toBe(9999);
    expect(book.getWorksheet('orders')?.getCell('A601').value).toBe(600);
    expect(book.getWorksheet('checks')?.getCell('A2').value).toBe('@risk'); // XLSX text: not a formula risk
    expect(book.getWorksheet('checks')?.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('rejects values of the wrong type, naming the cell', async () => {
    const writer = createSheetWriter(join(dir, 'bad.xlsx'), { format: 'xlsx', currencyDecimals: 2 });
    const sheet = await writer.addSheet({
      name: 's',
      columns: [{ key: 'p', header: 'price', type: 'money' }],
    });
    expect(() => sheet.write({ p: 19.99 })).toThrow(
      /sheet s row 2: column "p" \(money\) expects integer minor units/,
    );
    expect(() => sheet.write({ p: '1999' })).toThrow(TypeError);
    await writer.close();
  });

  it('rejects bad sheet names and unknown time zones', async () => {
    expect(() =>
      createSheetWriter(join(dir, 'x.xlsx'), { format: 'xlsx', currencyDecimals: 2, timezone: 'Mars/Base' }),
    ).toThrow(RangeError);
    const writer = createSheetWriter(join(dir, 'names.xlsx'), { format: 'xlsx', currencyDecimals: 2 });
    await expect(writer.addSheet({ name: 'a/b', columns: [] })).rejects.toThrow(/sheet name/);
    await writer.close();
  });

  it('reports an unwritable path as an error, not a crash', async () => {
    const writer = createSheetWriter(join(dir, 'missing-dir', 'x.xlsx'), {
      format: 'xlsx',
      currencyDecimals: 2,
    });
    await expect(
      writer.addSheet({ name: 's', columns: [{ key: 'a', header: 'a', type: 'text' }] }),
    ).rejects.toThrow(/cannot write .*ENOENT/);
    await expect(writer.close()).rejects.toThrow(/cannot write .*ENOENT/);
    await expect(readFile(join(dir, 'missing-dir', 'x.xlsx'))).rejects.toThrow();
  });
});

describe('XLSX sheet writer memory', () => {
  it('waits for the zip instead of buffering the sheet (memory stays flat)', async () => {
    const columns = Array.from({ length: 12 }, (_, i) => ({
      key: `c${i}`,
      header: `c${i}`,
      type: 'text' as const,
    }));
    const writer = createSheetWriter(join(dir, 'big.xlsx'), { format: 'xlsx', currencyDecimals: 2 });
    const sheet = await writer.addSheet({ name: 'big', columns });
    const filler = 'x'.repeat(60);
    // Growth over what the worker already holds (unit files share their workers: isolate false).
    const baseline = process.memoryUsage().arrayBuffers;
    let peakBuffers = 0;
    for (let i = 0; i < 40_000; i++) {
      const row: Record<string, string> = {};
      for (let c = 0; c < 12; c++) row[`c${c}`] = `${i}-${c}-${filler}`;
      const wait = sheet.write(row);
      if (wait) await wait;
      if (i % 2000 === 0) peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers - baseline);
    }
    await writer.close();
    // Without backpressure the whole sheet XML (~45 MB here) piles up in Buffers before the zip reads it.
    expect(peakBuffers).toBeLessThan(20 * 1024 * 1024);
  });
});
