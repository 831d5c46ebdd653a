import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportOrders, suffixedPath, type ExportOrdersProgress } from '../../../src/export/export-orders.js';
import { ALLOCATED_AMOUNTS } from '../../../src/export/order-columns.js';
import type { Order } from '../../../src/schema/order.js';
import { createPrng } from '../../../src/sandbox/prng.js';
import { fromArray, makeOrder, STORE } from './order-factory.js';

const LONG_ID = '1234567890123456'; // 16 digits: a double would round it
const HYPERLINK = '=HYPERLINK("http://x","y")';

/** 40 seeded orders with varied amounts; one has a 16-digit id, a formula remark and a zero-padded SKU; one is inconsistent. */
function fixtureOrders(): Order[] {
  const prng = createPrng(7);
  const orders: Order[] = [];
  for (let i = 0; i < 40; i++) {
    const lines = Array.from({ length: prng.int(1, 4) }, () => ({
      price: prng.int(0, 20) * 137,
      quantity: prng.int(1, 3),
    }));
    orders.push(
      makeOrder({
        id: i === 0 ? LONG_ID : `ord_${i}`,
        number: String(1000 + i),
        lines: i === 0 ? [{ price: 1250, sku: '000123' }, ...lines] : lines,
        discounts: prng.chance(0.5) ? [prng.int(1, 999)] : [],
        service: prng.int(0, 3) * 333,
        serviceCharge: prng.int(0, 97),
        tip: prng.chance(0.3) ? prng.int(1, 500) : 0,
        adjustment: prng.int(-50, 50),
        tax: prng.int(0, 777),
        createdAt: new Date(Date.UTC(2026, 10, 1, 3, i)).toISOString(),
        remark: i === 0 ? HYPERLINK : '',
        customerPhone: '0081234567890',
      }),
    );
  }
  const bad = orders[5] as Order;
  bad.items_amount += 999; // seeded inconsistency
  return orders;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-export-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Header → column index, then each data row as an object keyed by header. */
function sheetObjects(ws: ExcelJS.Worksheet): Record<string, ExcelJS.CellValue>[] {
  const headers: string[] = [];
  ws.getRow(1).eachCell((cell, col) => {
    headers[col] = String(cell.value);
  });
  const out: Record<string, ExcelJS.CellValue>[] = [];
  for (let r = 2; r <= ws.rowCount; r++) {
    const row = ws.getRow(r);
    const obj: Record<string, ExcelJS.CellValue> = {};
    headers.forEach((h, col) => {
      if (h) obj[h] = row.getCell(col).value;
    });
    out.push(obj);
  }
  return out;
}

/** A money cell read back (currency units, a double) → exact minor units. */
const minor = (v: ExcelJS.CellValue): number =>
  v === null || v === undefined ? 0 : Math.round(Number(v) * 100);

describe('exportOrders to XLSX (read back with the non-streaming exceljs reader)', () => {
  const orders = fixtureOrders();
  let path: string;
  let result: Awaited<ReturnType<typeof exportOrders>>;
  let book: ExcelJS.Workbook;
  const progress: ExportOrdersProgress[] = [];

  beforeAll(async () => {
    path = join(dir, 'orders.xlsx');
    // The source repeats two orders, as an overlapping page read would.
    const source = [...orders.slice(0, 10), orders[3] as Order, ...orders.slice(10), orders[0] as Order];
    result = await exportOrders({
      orders: fromArray(source),
      store: STORE,
      path,
      format: 'xlsx',
      headers: 'fields', // these tests read cells by field name (labels: see export-orders-accounting.test.ts)
      onProgress: (p) => progress.push(p),
    });
    book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
  });

  it('writes the summary first, then the three sheets with one orders row per order and one order_lines row per line', () => {
    expect(book.worksheets.map((w) => w.name)).toEqual(['summary', 'orders', 'order_lines', 'checks']);
    const totalLines = orders.reduce((s, o) => s + o.line_items.length, 0);
    expect(result).toMatchObject({ orders: 40, lines: totalLines, ordersRead: 42, duplicates: 2 });
    const orderRows = sheetObjects(book.getWorksheet('orders')!);
    const lineRows = sheetObjects(book.getWorksheet('order_lines')!);
    expect(orderRows.map((r) => r.id)).toEqual(orders.map((o) => o.id));
    expect(lineRows).toHaveLength(totalLines);
    for (const order of orders) {
      expect(lineRows.filter((r) => r.order_id === order.id)).toHaveLength(order.line_items.length);
    }
    expect(progress.at(-1)).toMatchObject({ phase: 'done', ordersWritten: 40, linesWritten: totalLines });
  });

  it('allocated columns sum exactly to each order amount (in minor units after parsing)', () => {
    const lineRows = sheetObjects(book.getWorksheet('order_lines')!);
    for (const order of orders) {
      const rows = lineRows.filter((r) => r.order_id === order.id);
      for (const [column, field] of ALLOCATED_AMOUNTS) {
        expect(
          rows.reduce((s, r) => s + minor(r[column]), 0),
          `${order.id} ${column}`,
        ).toBe(order[field]);
      }
      expect(rows.reduce((s, r) => s + minor(r.total_amount), 0)).toBe(
        order.line_items.reduce((s, l) => s + l.total_amount, 0),
      );
    }
  });

  it('lists the inconsistent order in checks with the difference', () => {
    const checks = sheetObjects(book.getWorksheet('checks')!);
    expect(checks.map((c) => c.order_id)).toEqual(['ord_5', 'ord_5']);
    const items = checks.find((c) => c.check === 'items_amount');
    expect(minor(items?.difference_amount ?? null)).toBe(999);
    expect(result.checks).toBe(2);
    expect(result.ordersWithChecks).toBe(1);
  });

  it('keeps formulas, leading zeros and long ids as text', () => {
    const first = sheetObjects(book.getWorksheet('orders')!)[0]!;
    expect(first.id).toBe(LONG_ID);
    expect(typeof first.remark).toBe('string'); // not a { formula } cell
    expect(String(first.remark)).toContain(HYPERLINK);
    expect(first.customer_phone).toBe('0081234567890');
    expect(first.number).toBe('1000');
    const line = sheetObjects(book.getWorksheet('order_lines')!)[0]!;
    expect(line.sku).toBe('000123');
    expect(line.order_id).toBe(LONG_ID);
  });

  it('writes money as numbers in currency units and dates as real dates in the store zone', () => {
    const ws = book.getWorksheet('orders')!;
    const first = sheetObjects(ws)[0]!;
    expect(first.total_amount).toBe(orders[0]!.total_amount / 100);
    expect(first.created_at).toBeInstanceOf(Date);
    // 03:00Z is 10:00 in Jakarta; the sheet shows the wall-clock time.
    expect((first.created_at as Date).toISOString()).toBe('2026-11-01T10:00:00.000Z');
    expect(first.created_at_iso).toBe('2026-11-01T03:00:00.000Z');
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });
});

describe('exportOrders to CSV and JSON', () => {
  it('writes orders, -lines and -checks files', async () => {
    const orders = fixtureOrders();
    const path = join(dir, 'orders.csv');
    const result = await exportOrders({ orders: fromArray(orders), store: STORE, path, format: 'csv' });
    expect(result.paths).toEqual({
      orders: path,
      lines: join(dir, 'orders-lines.csv'),
      checks: join(dir, 'orders-checks.csv'),
      summary: join(dir, 'orders-summary.csv'),
    });
    const parse = async (file: string): Promise<Record<string, string>[]> =>
      Papa.parse<Record<string, string>>((await readFile(file, 'utf8')).replace(/^\ufeff/, ''), {
        header: true,
        skipEmptyLines: true,
      }).data;
    const orderRows = await parse(path);
    const lineRows = await parse(join(dir, 'orders-lines.csv'));
    const checks = await parse(join(dir, 'orders-checks.csv'));
    expect(orderRows).toHaveLength(40);
    expect(lineRows).toHaveLength(orders.reduce((s, o) => s + o.line_items.length, 0));
    expect(orderRows[0]?.id).toBe(LONG_ID);
    expect(orderRows[0]?.remark).toBe(`'${HYPERLINK}`); // neutralised: the spreadsheet shows text
    expect(lineRows[0]?.sku).toBe('000123');
    expect(checks.map((c) => c.order_id)).toEqual(['ord_5', 'ord_5']);
    // Money is exact decimal text: sum it in minor units.
    const toMinor = (s: string | undefined): number => Math.round(Number(s ?? '0') * 100);
    for (const order of orders) {
      const rows = lineRows.filter((r) => r.order_id === order.id);
      for (const [column, field] of ALLOCATED_AMOUNTS) {
        expect(rows.reduce((s, r) => s + toMinor(r[column]), 0)).toBe(order[field]);
      }
    }
  });

  it('writes the raw orders as one JSON array', async () => {
    const orders = fixtureOrders();
    const path = join(dir, 'orders.json');
    const result = await exportOrders({
      orders: fromArray([...orders, orders[1]!]),
      store: STORE,
      path,
      format: 'json',
    });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(orders);
    expect(result).toMatchObject({ orders: 40, duplicates: 1, checks: 2 });
    const empty = join(dir, 'empty.json');
    await exportOrders({ orders: fromArray([]), store: STORE, path: empty, format: 'json' });
    expect(JSON.parse(await readFile(empty, 'utf8'))).toEqual([]);
  });

  it('filters on created_at client-side (since inclusive, until exclusive)', async () => {
    const orders = fixtureOrders(); // created 03:00Z, 03:01Z, … on 2026-11-01
    const path = join(dir, 'filtered.json');
    const result = await exportOrders({
      orders: fromArray(orders),
      store: STORE,
      path,
      format: 'json',
      filter: { since: new Date('2026-11-01T03:10:00Z'), until: new Date('2026-11-01T03:20:00Z') },
    });
    const ids = (JSON.parse(await readFile(path, 'utf8')) as Order[]).map((o) => o.id);
    expect(ids).toEqual(Array.from({ length: 10 }, (_, k) => `ord_${k + 10}`));
    expect(result.skipped).toBe(30);
  });

  it('continues a full XLSX sheet in <name>_2 instead of failing', async () => {
    const orders = fixtureOrders().slice(0, 12);
    const path = join(dir, 'split.xlsx');
    const result = await exportOrders({
      orders: fromArray(orders),
      store: STORE,
      path,
      format: 'xlsx',
      headers: 'fields',
      maxRowsPerSheet: 10,
    });
    const lines = orders.reduce((s, o) => s + o.line_items.length, 0);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
    const names = book.worksheets.map((w) => w.name);
    expect(names).toEqual(result.sheets);
    expect(names.slice(0, 4)).toEqual(['summary', 'orders', 'order_lines', 'checks']);
    expect(names).toContain('order_lines_2');
    const rows = (prefix: string): unknown[] =>
      book.worksheets
        .filter((w) => w.name === prefix || w.name.startsWith(`${prefix}_`))
        .flatMap((w) => sheetObjects(w).map((r) => r.line_id ?? r.id));
    expect(rows('orders')).toEqual(orders.map((o) => o.id));
    expect(rows('order_lines')).toEqual(orders.flatMap((o) => o.line_items.map((l) => l.id)));
    expect(rows('order_lines')).toHaveLength(lines);
  });

  it.each(['json', 'csv', 'xlsx'] as const)(
    'fails cleanly when the %s file cannot be written',
    async (format) => {
      // Its folder cannot be created: a file stands where the folder would be.
      await writeFile(join(dir, `plain-${format}`), 'not a folder');
      const path = join(dir, `plain-${format}`, `orders.${format}`);
      await expect(
        exportOrders({ orders: fromArray(fixtureOrders()), store: STORE, path, format }),
      ).rejects.toThrow(/cannot create the folder of/);
    },
  );

  it('puts the suffix before the extension', () => {
    expect(suffixedPath('out/orders.csv', '-lines')).toBe('out/orders-lines.csv');
    expect(suffixedPath('orders', '-lines')).toBe('orders-lines');
    expect(suffixedPath('a.b/orders', '-lines')).toBe('a.b/orders-lines');
  });
});
