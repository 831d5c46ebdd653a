import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { main } from '../../../src/cli/main.js';
import { resolveTemplateColumns } from '../../../src/mapping/template-sheet.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { StoreSnapshot, type Order } from '../../../src/schema/index.js';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLE_PATH = join(ROOT, 'samples', 'store.json');
const SAMPLE = JSON.parse(readFileSync(SAMPLE_PATH, 'utf8')) as StoreSnapshot;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-export-cli-'));

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sandboxOf(seed: StoreSnapshot | string) {
  const s = await startSandbox({ seed });
  sandboxes.push(s);
  return s;
}

async function run(s: RunningSandbox, argv: string[], cwd = dir) {
  const stdout = capture();
  const stderr = capture();
  const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
  const code = await main([...argv, '--json'], { env, cwd, stdout: stdout.stream, stderr: stderr.stream });
  const out = stdout.text();
  return {
    code,
    json: out === '' ? undefined : (JSON.parse(out) as Record<string, unknown>),
    stderr: stderr.text(),
  };
}

/** A sheet's rows as objects keyed by header, read with exceljs's non-streaming reader. */
function sheetRows(wb: ExcelJS.Workbook, name: string): Record<string, ExcelJS.CellValue>[] {
  const ws = wb.getWorksheet(name);
  if (!ws) throw new Error(`no sheet ${name}`);
  const header = (ws.getRow(1).values as ExcelJS.CellValue[]).slice(1).map(String);
  const rows: Record<string, ExcelJS.CellValue>[] = [];
  ws.eachRow((row, n) => {
    if (n === 1) return;
    const o: Record<string, ExcelJS.CellValue> = {};
    header.forEach((h, i) => {
      o[h] = row.getCell(i + 1).value;
    });
    rows.push(o);
  });
  return rows;
}

const minor = (v: ExcelJS.CellValue): number => (typeof v === 'number' ? Math.round(v * 100) : 0);

describe('mbulk export orders (XLSX read back with exceljs Workbook)', () => {
  it('writes one row per order and per line, exact allocations, checks and safe text', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, ['export', 'orders', 'out/orders.xlsx', '--headers', 'fields']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, orders: 50, format: 'xlsx', pages: 1 });

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(dir, 'out', 'orders.xlsx'));
    expect(wb.worksheets.map((w) => w.name)).toEqual(['summary', 'orders', 'order_lines', 'checks']);
    const orders = sheetRows(wb, 'orders');
    const allLines = sheetRows(wb, 'order_lines');
    // One row per line item, plus a difference row for each order whose lines leave part of its total.
    const lines = allLines.filter((l) => l['line_id'] !== null);
    expect(orders.map((o) => o['id'])).toEqual(SAMPLE.orders.map((o) => o.id));
    expect(lines).toHaveLength(SAMPLE.orders.reduce((n, o) => n + o.line_items.length, 0));
    const differenceRows = allLines.filter((l) => l['line_id'] === null);
    expect(differenceRows.length).toBeGreaterThan(0);
    for (const d of differenceRows)
      expect(d['name']).toBe("Difference to the order's stated total (see checks)");
    // order_lines ties to orders: per order (so over the sheet), allocated_total sums to total_amount.
    for (const o of SAMPLE.orders) {
      const sum = allLines
        .filter((l) => l['order_id'] === o.id)
        .reduce((n, l) => n + minor(l['allocated_total'] ?? null), 0);
      expect(sum, o.id).toBe(o.total_amount);
    }

    // Every allocated column sums, per order, exactly to the order's amount.
    const pairs = [
      ['discount_alloc', 'discounts_amount'],
      ['answers_alloc', 'answers_amount'],
      ['service_alloc', 'service_amount'],
      ['service_charge_alloc', 'service_charge_amount'],
      ['tip_alloc', 'tip_amount'],
      ['adjustment_alloc', 'adjustment_amount'],
      ['tax_alloc', 'tax_amount'],
    ] as const;
    for (const o of SAMPLE.orders) {
      const mine = lines.filter((l) => l['order_id'] === o.id);
      expect(mine).toHaveLength(o.line_items.length);
      for (const [alloc, field] of pairs) {
        expect(
          mine.reduce((sum, l) => sum + minor(l[alloc]), 0),
          `${o.id} ${alloc}`,
        ).toBe(o[field]);
      }
      const row = orders.find((x) => x['id'] === o.id);
      expect(minor(row?.['total_amount'] ?? null)).toBe(o.total_amount);
    }

    // The inconsistent order (items_amount ≠ Σ line totals) is listed, with the difference.
    const checks = sheetRows(wb, 'checks');
    const bad = checks.find((c) => c['order_id'] === 'ord_00000010' && c['check'] === 'items_amount');
    expect(bad).toBeDefined();
    expect(minor(bad?.['difference_amount'] ?? null)).toBe(25370 - 29460);
    const inconsistent = SAMPLE.orders.filter(
      (o) => o.items_amount !== o.line_items.reduce((n, l) => n + l.total_amount, 0),
    );
    for (const o of inconsistent) expect(checks.some((c) => c['order_id'] === o.id)).toBe(true);

    // The formula remark is a plain text cell, never a formula.
    const ws = wb.getWorksheet('orders') as ExcelJS.Worksheet;
    const header = (ws.getRow(1).values as ExcelJS.CellValue[]).map(String);
    const rowIndex = orders.findIndex((o) => o['id'] === 'ord_0000000l') + 2;
    const remark = ws.getRow(rowIndex).getCell(header.indexOf('remark'));
    expect(remark.type).toBe(ExcelJS.ValueType.String);
    expect(remark.value).toBe('\'=HYPERLINK("http://x","y")');
    expect(remark.formula).toBeUndefined();

    // SKUs with leading zeros and 15-digit ids with a leading zero stay text.
    const skus = lines.map((l) => l['sku']).filter((x) => typeof x === 'string' && x.startsWith('000123'));
    expect(skus.length).toBeGreaterThan(0);
    const o5 = orders.find((o) => o['id'] === 'ord_00000005');
    expect(o5?.['attribution_source_id']).toBe('040398901026401');
    expect(typeof o5?.['number']).toBe('string');
  });

  it('sends the status filters to the API and applies --since/--until in the store zone', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    s.clearRequestLog();
    const r = await run(s, [
      'export',
      'orders',
      'filtered.csv',
      '--status',
      'completed',
      '--payment-status',
      'paid',
    ]);
    expect(r.code).toBe(0);
    const listed = s.requestLog().filter((e) => e.path.startsWith('/api/v2/orders'));
    expect(listed.length).toBeGreaterThan(0);
    for (const e of listed) {
      expect(e.path).toContain('order_status=completed');
      expect(e.path).toContain('payment_status=paid');
    }
    const expected = SAMPLE.orders.filter(
      (o) => o.order_status === 'completed' && o.payment_status === 'paid',
    );
    expect(r.json?.['orders']).toBe(expected.length);
    expect(r.json?.['paths']).toMatchObject({
      orders: join(dir, 'filtered.csv'),
      lines: join(dir, 'filtered-lines.csv'),
    });

    // One local day (Asia/Kuala_Lumpur, UTC+8), --until inclusive.
    const tz = SAMPLE.me.timezone;
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(
      new Date((SAMPLE.orders[3] as Order).created_at),
    );
    const sameDay = SAMPLE.orders.filter(
      (o) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date(o.created_at)) === day,
    );
    const d = await run(s, ['export', 'orders', 'day.json', '--since', day, '--until', day]);
    expect(d.code).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'day.json'), 'utf8')) as Order[];
    expect(written.map((o) => o.id).sort()).toEqual(sameDay.map((o) => o.id).sort());

    const bad = await run(s, ['export', 'orders', 'x.csv', '--status', 'shipped']);
    expect(bad.code).toBe(2);
    const ext = await run(s, ['export', 'orders', 'x.txt']);
    expect(ext.code).toBe(2);
  });
});

describe('mbulk export orders --incremental', () => {
  it('exports each new order and each change exactly once over three runs', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const cwd = mkdtempSync(join(dir, 'inc-'));
    const post = async (body: unknown) => {
      const res = await fetch(`${s.url}/__sandbox/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Order | Order[];
    };
    const newOrder = (n: number): Order => ({
      ...(structuredClone(SAMPLE.orders[0]) as Order),
      id: `ord_new_${n}`,
      number: String(9000 + n),
      name: `#${9000 + n}`,
      created_at: new Date().toISOString(),
    });
    const exportRun = async (name: string, extra: string[] = []) => {
      const r = await run(s, ['export', 'orders', 'daily-{date}.json', '--incremental', ...extra], cwd);
      expect(r.code, r.stderr).toBe(0);
      renameSync((r.json?.['paths'] as { orders: string }).orders, join(cwd, name));
      return JSON.parse(readFileSync(join(cwd, name), 'utf8')) as Order[];
    };

    const first = await exportRun('run1.json');
    expect(first.map((o) => o.id).sort()).toEqual(SAMPLE.orders.map((o) => o.id).sort());

    await post([newOrder(1), newOrder(2)]);
    await post({ id: 'ord_00000003', order_status: 'cancelled' });
    const second = await exportRun('run2.json');
    expect(second.map((o) => o.id).sort()).toEqual(['ord_00000003', 'ord_new_1', 'ord_new_2']);
    expect(second.find((o) => o.id === 'ord_00000003')?.order_status).toBe('cancelled');

    await post(newOrder(3));
    await post([
      { id: 'ord_new_1', payment_status: 'refunded' },
      { id: 'ord_00000007', fulfillment_status: 'fulfilled' },
    ]);
    const third = await exportRun('run3.json');
    expect(third.map((o) => o.id).sort()).toEqual(['ord_00000007', 'ord_new_1', 'ord_new_3']);
    expect(third.find((o) => o.id === 'ord_new_1')?.payment_status).toBe('refunded');

    // Across the three files: each version (id, updated_at) exactly once, every live order covered.
    const versions = [...first, ...second, ...third].map((o) => `${o.id}@${o.updated_at}`);
    expect(new Set(versions).size).toBe(versions.length);
    const live: Order[] = [];
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    for await (const o of client.orders.list()) live.push(o);
    await client.close();
    for (const o of live) expect(versions).toContain(`${o.id}@${o.updated_at}`);

    // Nothing new: an empty file. --full: everything again.
    expect(await exportRun('run4.json')).toEqual([]);
    expect(await exportRun('run5.json', ['--full'])).toHaveLength(live.length);
    const state = JSON.parse(readFileSync(join(cwd, '.mbulk', 'exports.json'), 'utf8')) as {
      exports: Record<string, { destination: string }>;
    };
    expect(Object.values(state.exports).map((e) => e.destination)).toEqual([
      expect.stringMatching(/daily-\d{4}-\d\d-\d\d\.json$/),
    ]);

    // Another selection to the same file keeps its own watermark (its first run takes every match).
    const cancelled = await exportRun('run6.json', ['--status', 'cancelled']);
    expect(cancelled.length).toBe(live.filter((o) => o.order_status === 'cancelled').length);
    expect(cancelled.length).toBeGreaterThan(0);
    expect(await exportRun('run7.json', ['--status', 'cancelled'])).toEqual([]);
  });
});

describe('mbulk export snapshot', () => {
  it('writes a StoreSnapshot that seeds an identical sandbox', async () => {
    const s = await sandboxOf(generateStore({ products: 40, customers: 60, orders: 120, seed: 9 }));
    const r = await run(s, ['export', 'snapshot', 'snap/store.json']);
    expect(r.code).toBe(0);
    expect(r.json?.['counts']).toEqual({ products: 40, customers: 60, orders: 120, templates: 6 });
    const file = join(dir, 'snap', 'store.json');
    const parsed = StoreSnapshot.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    expect(parsed.success).toBe(true);

    const copy = await sandboxOf(file);
    const a = new MerchantClient({ baseUrl: s.url, token: s.token });
    const b = new MerchantClient({ baseUrl: copy.url, token: copy.token });
    const all = async <T>(it: AsyncIterable<T>) => {
      const out: T[] = [];
      for await (const x of it) out.push(x);
      return out;
    };
    expect(await b.me()).toEqual(await a.me());
    expect(await all(b.products.list())).toEqual(await all(a.products.list()));
    expect(await all(b.customers.list())).toEqual(await all(a.customers.list()));
    expect(await all(b.orders.list())).toEqual(await all(a.orders.list()));
    expect(await all(b.templates.list())).toEqual(await all(a.templates.list()));
    await a.close();
    await b.close();
  });
});

describe('mbulk export products|customers → mbulk import: nothing to write', () => {
  it('plans zero changes through the real import commands (CSV with --options, XLSX)', async () => {
    const seed = structuredClone(SAMPLE);
    const p0 = seed.products[0];
    if (p0) p0.description = '- starts with a dash\n=and a formula line';
    const s = await sandboxOf(seed);
    const cwd = mkdtempSync(join(dir, 'rt-'));
    for (const argv of [
      ['export', 'products', 'catalog.csv'],
      ['export', 'products', 'catalog.xlsx'],
      ['export', 'customers', 'customers.csv'],
      ['export', 'customers', 'customers.xlsx'],
    ]) {
      expect((await run(s, argv, cwd)).code).toBe(0);
    }
    for (const argv of [
      ['import', 'products', 'catalog.csv', '--options', 'catalog-options.csv'],
      ['import', 'products', 'catalog.xlsx'],
    ]) {
      const r = await run(s, argv, cwd);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json?.['counts']).toMatchObject({
        create: 0,
        update: 0,
        noop: SAMPLE.products.length,
        invalid: 0,
      });
    }
    for (const file of ['customers.csv', 'customers.xlsx']) {
      const c = await run(s, ['import', 'customers', file], cwd);
      expect(c.code, c.stderr).toBe(0);
      expect(c.json?.['counts']).toMatchObject({ create: 0, update: 0, unchanged: SAMPLE.customers.length });
    }
  });
});

describe('exported phones and text', () => {
  it('writes phones as the API digits in every export, CSV and XLSX, and reads them back in any store country', async () => {
    const seed = structuredClone(SAMPLE);
    // A Brazilian store: 12063895078 (Olivia, US) is also a valid Brazilian national number.
    seed.me = { ...seed.me, country: 'BR' };
    const c0 = seed.customers[0];
    if (c0) c0.name = '-Aina @home';
    const s = await sandboxOf(seed);
    const cwd = mkdtempSync(join(dir, 'phones-'));
    for (const argv of [
      ['export', 'customers', 'customers.csv'],
      ['export', 'customers', 'customers.xlsx'],
      ['export', 'orders', 'orders.csv'],
      // Field names as headers (XLSX defaults to labels people read).
      ['export', 'orders', 'orders.xlsx', '--headers', 'fields'],
    ]) {
      const r = await run(s, argv, cwd);
      expect(r.code, r.stderr).toBe(0);
    }
    const phoneOf = new Map(SAMPLE.customers.map((c) => [c.id, c.phone]));
    const read = async (file: string, sheetName?: string) => {
      const sheet = readSheet(join(cwd, file), sheetName === undefined ? {} : { sheet: sheetName });
      await sheet.open();
      const rows: Record<string, unknown>[] = [];
      for await (const row of sheet) rows.push(row.cells);
      return rows;
    };
    for (const file of ['customers.csv', 'customers.xlsx']) {
      const rows = await read(file);
      expect(rows.map((r) => r['phone'])).toEqual(SAMPLE.customers.map((c) => c.phone));
      // XLSX text is never evaluated: a name starting with '-' is written as it is; CSV neutralises it.
      expect(rows[0]?.['name']).toBe(file.endsWith('.xlsx') ? '-Aina @home' : "'-Aina @home");
    }
    for (const file of ['orders.csv', 'orders.xlsx']) {
      // The workbook opens on its summary sheet; the orders are on the 'orders' sheet.
      const rows = await read(file, file.endsWith('.xlsx') ? 'orders' : undefined);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r['customer_phone']).toMatch(/^\d+$/);
      }
    }
    const raw = readFileSync(join(cwd, 'customers.csv'), 'utf8');
    expect(raw).not.toMatch(/,'\+?\d/);
    expect(phoneOf.size).toBeGreaterThan(0);

    for (const file of ['customers.csv', 'customers.xlsx']) {
      const c = await run(s, ['import', 'customers', file], cwd);
      expect(c.code, c.stderr).toBe(0);
      expect(c.json?.['counts']).toMatchObject({ create: 0, update: 0, unchanged: SAMPLE.customers.length });
    }
  });
});

describe('mbulk export to an unusable destination', () => {
  it('is a usage error (exit 2) naming the file, with nothing read', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const base = mkdtempSync(join(tmpdir(), 'mbulk-export-dest-'));
    mkdirSync(join(base, 'folder.csv'));
    writeFileSync(join(base, 'plain-file'), 'x');
    s.clearRequestLog();
    const folder = await run(s, ['export', 'products', 'folder.csv'], base);
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr).toContain('folder.csv is a folder');
    const under = await run(s, ['export', 'customers', 'plain-file/c.csv'], base);
    expect(under.code, under.stderr).toBe(2);
    expect(under.stderr).toContain('cannot create the folder of plain-file/c.csv');
    expect(s.requestLog().filter((e) => e.path !== '/api/v2/me')).toEqual([]);
  });
});

describe('mbulk export templates', () => {
  for (const format of ['csv', 'xlsx'] as const) {
    it(`writes every template with its review state (${format}), importable columns`, async () => {
      const s = await sandboxOf(SAMPLE_PATH);
      const r = await run(s, ['export', 'templates', `templates.${format}`]);
      expect(r.code).toBe(0);
      expect(r.json?.['templates']).toBe(SAMPLE.templates.length);
      const reader = readSheet(join(dir, `templates.${format}`));
      const info = await reader.open();
      const { issues } = resolveTemplateColumns(info.sheet, info.columns);
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      const rows = [];
      for await (const row of reader) rows.push(row.cells);
      expect(rows.map((c) => c['name'])).toEqual(SAMPLE.templates.map((t) => t.name));
      const rejected = rows.find((c) => c['name'] === 'flash_sale');
      expect(rejected?.['status']).toBe('REJECTED');
      expect(rejected?.['rejected_reason']).toContain('INVALID_FORMAT');
      const promo = rows.find((c) => c['name'] === 'weekend_promo');
      expect(promo?.['button_2_text']).toBe('Stop promotions');
      expect(promo?.['parameters']).toBe('name|code');
    });
  }
});
