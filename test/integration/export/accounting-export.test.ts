import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import { ZipDirectory } from '../../../src/sheets/zip-directory.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * Issue 15 acceptance, through the CLI against the sandbox seeded with the sample store. Files are
 * read back with exceljs's non-streaming Workbook and papaparse (not our readers); expected figures
 * are computed here from the seed, independently of the export code.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLE_PATH = join(ROOT, 'samples', 'store.json');
const SAMPLE = JSON.parse(readFileSync(SAMPLE_PATH, 'utf8')) as StoreSnapshot;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-accounting-'));

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sandboxOf(seed: StoreSnapshot | string): Promise<RunningSandbox> {
  const s = await startSandbox({ seed });
  sandboxes.push(s);
  return s;
}

async function run(s: RunningSandbox, argv: string[], cwd = dir, env: Record<string, string> = {}) {
  const r = await runCli(argv, { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token, ...env }, cwd);
  return r;
}

/** A sheet as objects keyed by its header row. */
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

/** Currency units (a double read back from the sheet or parsed from text) → exact minor units (MYR: 2 decimals). */
const minor = (v: unknown): number => Math.round(Number(v ?? 0) * 100);
const parseCsv = (file: string, delimiter = ','): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\ufeff/, ''), {
    header: true,
    skipEmptyLines: true,
    delimiter,
  }).data;

/** The order's day in the sample store's zone (Asia/Kuala_Lumpur, UTC+8, no DST), as `YYYY-MM-DD`. */
const storeDay = (iso: string): string => new Date(Date.parse(iso) + 8 * 3600_000).toISOString().slice(0, 10);

const isRevenue = (o: Order): boolean =>
  o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft';

describe('summary sheet, labels and notes (XLSX)', () => {
  it('puts the summary first, and its figures tie to an independent sum of the orders sheet', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, ['export', 'orders', 'book.xlsx', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(dir, 'book.xlsx'));
    expect(wb.worksheets.map((w) => w.name)).toEqual(['summary', 'orders', 'order_lines', 'checks']);

    // The orders sheet, read back with readable headers.
    const orders = sheetRows(wb, 'orders');
    expect(orders).toHaveLength(SAMPLE.orders.length);
    const revenueRows = orders.filter(
      (o) =>
        o['Payment status'] === 'paid' && o['Order status'] !== 'cancelled' && o['Order status'] !== 'draft',
    );
    const revenueFromSheet = revenueRows.reduce((sum, o) => sum + minor(o['Total']), 0);
    // …and the same figure from the seed itself.
    const revenueFromSeed = SAMPLE.orders.filter(isRevenue).reduce((sum, o) => sum + o.total_amount, 0);
    expect(revenueFromSheet).toBe(revenueFromSeed);
    expect(revenueRows.length).toBeGreaterThan(0);
    expect(revenueRows.length).toBeLessThan(orders.length); // the definition leaves some out

    const summary = sheetRows(wb, 'summary');
    const revenue = summary.find((row) => row['Section'] === 'revenue');
    expect(minor(revenue?.['Total'])).toBe(revenueFromSheet);
    expect(revenue?.['Orders']).toBe(revenueRows.length);
    expect(String(revenue?.['Definition / note'])).toMatch(/payment_status = paid.*not cancelled or draft/);
    const total = summary.find((row) => row['Section'] === 'total');
    expect(minor(total?.['Total'])).toBe(orders.reduce((sum, o) => sum + minor(o['Total']), 0));
    // Lines counts line items; order_lines may add a difference row (no line ID) per order that needs one.
    expect(total?.['Lines']).toBe(sheetRows(wb, 'order_lines').filter((l) => l['Line ID'] !== null).length);

    // Each breakdown covers every order once: its rows sum to the total, and each row ties to the sheet.
    for (const [section, key] of [
      [
        'status',
        (o: Record<string, ExcelJS.CellValue>) =>
          `${String(o['Order status'])}/${String(o['Payment status'])}`,
      ],
      ['payment_method', (o: Record<string, ExcelJS.CellValue>) => String(o['Payment method'])],
    ] as const) {
      const rows = summary.filter((row) => row['Section'] === section);
      expect(rows.reduce((sum, row) => sum + minor(row['Total']), 0)).toBe(minor(total?.['Total']));
      for (const row of rows) {
        const k =
          section === 'status'
            ? `${String(row['Order status'])}/${String(row['Payment status'])}`
            : String(row['Payment method']);
        const matching = orders.filter((o) => key(o) === k);
        expect(row['Orders']).toBe(matching.length);
        expect(minor(row['Total'])).toBe(matching.reduce((sum, o) => sum + minor(o['Total']), 0));
      }
    }
    const days = summary.filter((row) => row['Section'] === 'day');
    expect(days.reduce((n, row) => n + Number(row['Orders']), 0)).toBe(orders.length);
    const expectedDays = new Set(SAMPLE.orders.map((o) => storeDay(o.created_at)));
    expect(days.map((row) => (row['Day'] as Date).toISOString().slice(0, 10)).sort()).toEqual(
      [...expectedDays].sort(),
    );
    const checksRow = summary.find((row) => row['Section'] === 'checks');
    expect(String(checksRow?.['Definition / note'])).toContain(
      `${sheetRows(wb, 'checks').length} check rows`,
    );

    // Every sheet keeps a frozen header row and an autofilter; labelled headers carry a note naming the field.
    for (const ws of wb.worksheets) {
      expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(ws.autoFilter).toBeTruthy();
    }
    const ordersSheet = wb.getWorksheet('orders') as ExcelJS.Worksheet;
    const headerOf = (label: string): ExcelJS.Cell => {
      let found: ExcelJS.Cell | undefined;
      ordersSheet.getRow(1).eachCell((c) => {
        if (c.value === label) found = c;
      });
      if (!found) throw new Error(`no header ${label}`);
      return found;
    };
    const noteText = (c: ExcelJS.Cell): string => JSON.stringify(c.note);
    expect(noteText(headerOf('Order number'))).toContain('API field: number');
    expect(noteText(headerOf('Total'))).toContain('total_amount');
    // Notes on several sheets: each VML drawing reserves its own shape-id block and no shape id
    // repeats across the workbook (shared ids make Excel offer to repair the file).
    const zip = await ZipDirectory.open(join(dir, 'book.xlsx'));
    const vmlParts = [...zip.entries.keys()].filter((n) => /vmlDrawing\d+\.vml$/.test(n));
    expect(vmlParts.length).toBe(4);
    const blocks: string[] = [];
    const shapeIds: string[] = [];
    for (const part of vmlParts) {
      const xml = (await zip.read(part))?.toString('utf8') ?? '';
      blocks.push(/<o:idmap v:ext="edit" data="(\d+)"/.exec(xml)?.[1] ?? '?');
      const ids = [...xml.matchAll(/<v:shape id="_x0000_s(\d+)"/g)].map((m) => Number(m[1]));
      const block = Number(blocks.at(-1));
      for (const id of ids) expect(Math.floor(id / 1024), `${part} ${id}`).toBe(block);
      shapeIds.push(...ids.map(String));
    }
    await zip.close();
    expect(new Set(blocks).size).toBe(vmlParts.length);
    expect(new Set(shapeIds).size).toBe(shapeIds.length);

    const linesSheet = wb.getWorksheet('order_lines') as ExcelJS.Worksheet;
    const labels = (linesSheet.getRow(1).values as ExcelJS.CellValue[]).slice(1);
    expect(labels).toContain('Service charge (allocated)');
    // A line's name is its product's, not the order's.
    expect(labels).toContain('Product name');
    expect(labels).not.toContain('Order name');
    expect(labels).toContain('Line total');

    // The summary prints on one landscape page with a title naming store, period, zone and time.
    const summarySheet = wb.getWorksheet('summary') as ExcelJS.Worksheet;
    expect(summarySheet.pageSetup).toMatchObject({
      orientation: 'landscape',
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 1,
    });
    expect(summarySheet.headerFooter.oddHeader).toMatch(
      /Kopi && Kain: all orders \(Asia\/Kuala_Lumpur\), exported \d{4}-\d\d-\d\d \d\d:\d\d/,
    );
    // Tax by rate per month (and per day): the revenue orders' taxable amount and tax, from the seed.
    const taxMonths = summary.filter((row) => row['Section'] === 'tax_month');
    const revenueOrders = SAMPLE.orders.filter(isRevenue);
    expect(taxMonths.reduce((n, row) => n + minor(row['Taxable amount']), 0)).toBe(
      revenueOrders.reduce((n, o) => n + o.total_before_tax, 0),
    );
    expect(taxMonths.reduce((n, row) => n + minor(row['Tax']), 0)).toBe(
      revenueOrders.reduce((n, o) => n + o.tax_amount, 0),
    );
    for (const row of taxMonths) expect(row['Tax rate (%)']).toBe(6);
    const taxDays = summary.filter((row) => row['Section'] === 'tax_day');
    expect(taxDays.reduce((n, row) => n + Number(row['Orders']), 0)).toBe(revenueOrders.length);
    expect(String(revenue?.['Definition / note'])).toContain('paid (cash basis)');

    // The checks sheet: amounts (and its messages) in currency units.
    const checks = sheetRows(wb, 'checks');
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks.filter((x) => x['Difference'] !== null && x['Difference'] !== undefined)) {
      expect(String(c['Message'])).toContain(`difference ${Number(c['Difference']).toFixed(2)} MYR`);
    }
  });
});

describe('status sets', () => {
  it('--status completed,confirmed returns exactly those orders, one read per value', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    s.clearRequestLog();
    const r = await run(s, ['export', 'orders', 'set.csv', '--status', 'completed,confirmed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = parseCsv(join(dir, 'set.csv')).map((row) => row['id']);
    const expected = SAMPLE.orders
      .filter((o) => o.order_status === 'completed' || o.order_status === 'confirmed')
      .map((o) => o.id);
    expect([...ids].sort()).toEqual([...expected].sort());
    const reads = s
      .requestLog()
      .filter((e) => e.path.startsWith('/api/v2/orders'))
      .map((e) => new URL(e.path, 'http://x').searchParams.get('order_status'));
    expect(reads.sort()).toEqual(['completed', 'confirmed']);
  });

  it('--revenue keeps paid orders that are not cancelled or draft; a bad value is a usage error', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, ['export', 'orders', 'rev.csv', '--revenue', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = parseCsv(join(dir, 'rev.csv')).map((row) => row['id']);
    expect([...ids].sort()).toEqual(
      SAMPLE.orders
        .filter(isRevenue)
        .map((o) => o.id)
        .sort(),
    );
    const bad = await run(s, ['export', 'orders', 'x.csv', '--status', 'completed,shipped']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"shipped"');
    const none = await run(s, ['export', 'orders', 'x.csv', '--revenue', '--payment-status', 'refunded']);
    expect(none.code).toBe(2);
  });
});

/** Invoices of a profile file: invoice number → rows. */
function invoicesOf(
  rows: Record<string, string>[],
  numberColumn: string,
): Map<string, Record<string, string>[]> {
  const out = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const k = row[numberColumn] as string;
    out.set(k, [...(out.get(k) ?? []), row]);
  }
  return out;
}

/** The tax a program adds to a net amount at `percent`, rounded half away from zero to the minor unit. */
const taxOn = (amount: number, percent: number): number =>
  Math.sign(amount) * Math.round(Math.abs((amount * percent) / 100));

/** A Xero invoice's total as Xero computes it from tax-exclusive rows: lines plus their tax at the taxed rate. */
function xeroTotal(rows: Record<string, string>[], taxed: string, percent: number): number {
  return rows.reduce((sum, l) => {
    const amount = lineMinor(l['*Quantity'], l['*UnitAmount']);
    return sum + amount + (l['*TaxType'] === taxed ? taxOn(amount, percent) : 0);
  }, 0);
}

/** `*Quantity` × `*UnitAmount` in exact minor units (quantities are whole numbers here). */
const lineMinor = (quantity: string | undefined, unit: string | undefined): number =>
  Number(quantity) * minor(unit);

describe('accounting profiles', () => {
  it('xero: one invoice per revenue order, tax through *TaxType; each invoice as Xero totals it is the order total', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, [
      'export',
      'orders',
      'xero.csv',
      '--profile',
      'xero',
      '--tax-type',
      'SST 6%',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const revenue = SAMPLE.orders.filter(isRevenue);
    // Orders whose own parts do not add up to total_amount (tax excluded from prices in this store)
    // get a difference line; the count is reported.
    const unexplained = revenue.filter(
      (o) =>
        o.line_items.reduce((sum, l) => sum + l.total_amount, 0) +
          o.answers_amount -
          o.discounts_amount +
          o.service_amount +
          o.service_charge_amount +
          o.tip_amount +
          o.adjustment_amount +
          o.tax_amount !==
        o.total_amount,
    );
    expect(r.json<{ invoices: { withDifference: number } }>().invoices.withDifference).toBe(
      unexplained.length,
    );
    const text = readFileSync(join(dir, 'xero.csv'), 'utf8');
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const rows = parseCsv(join(dir, 'xero.csv'));
    expect(Object.keys(rows[0] ?? {})).toEqual([
      '*ContactName', 'EmailAddress', 'POAddressLine1', 'POAddressLine2', 'POAddressLine3', 'POAddressLine4',
      'POCity', 'PORegion', 'POPostalCode', 'POCountry', '*InvoiceNumber', 'Reference', '*InvoiceDate',
      '*DueDate', 'InventoryItemCode', '*Description', '*Quantity', '*UnitAmount', 'Discount', '*AccountCode',
      '*TaxType', 'TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2', 'Currency',
      'BrandingTheme',
    ]); // prettier-ignore
    const invoices = invoicesOf(rows, '*InvoiceNumber');
    expect(invoices.size).toBe(revenue.length);
    for (const order of revenue) {
      const lines = invoices.get(order.number) ?? [];
      expect(xeroTotal(lines, 'SST 6%', 6), order.id).toBe(order.total_amount);
      const [y, m, d] = storeDay(order.created_at).split('-');
      for (const l of lines) {
        expect(l['*InvoiceDate']).toBe(`${d}/${m}/${y}`);
        expect(l['*DueDate']).toBe(`${d}/${m}/${y}`);
        expect(l['Reference']).toBe(order.id);
        expect(l['Currency']).toBe('MYR');
        expect(l['*TaxType']).not.toBe('');
      }
    }
    // Tax is never a line: every row on the sales account is a net amount at the store's rate.
    expect(rows.some((l) => l['*Description'] === 'Tax')).toBe(false);
    // (A difference line, what an order's own figures leave unexplained, has no tax either.)
    for (const l of rows.filter((x) => x['*AccountCode'] === '200')) {
      if (!l['*Description']?.startsWith('Difference to')) expect(l['*TaxType']).toBe('SST 6%');
    }
    for (const l of rows.filter((x) => x['*Description'] === 'Tax rounding')) {
      expect(l).toMatchObject({ '*AccountCode': '860', '*TaxType': 'Tax Exempt' });
    }
    expect(r.json<{ accounting: { tax: unknown } }>().accounting.tax).toEqual({
      mode: 'exclusive',
      importAs: 'tax exclusive',
      taxType: 'SST 6%',
      zeroTaxType: 'Tax Exempt',
    });

    const us = await run(s, [
      'export',
      'orders',
      'xero-us.csv',
      '--profile',
      'xero',
      '--tax-type',
      'SST 6%',
      '--date-format',
      'MM/DD/YYYY',
      '--due-days',
      '14',
    ]);
    expect(us.code, us.stderr).toBe(0);
    const first = revenue[0] as Order;
    const row = parseCsv(join(dir, 'xero-us.csv')).find((x) => x['*InvoiceNumber'] === first.number);
    const [y, m, d] = storeDay(first.created_at).split('-');
    expect(row?.['*InvoiceDate']).toBe(`${m}/${d}/${y}`);
    const due = new Date(Date.parse(`${storeDay(first.created_at)}T00:00:00Z`) + 14 * 86_400_000);
    expect(row?.['*DueDate']).toBe(
      `${String(due.getUTCMonth() + 1).padStart(2, '0')}/${String(due.getUTCDate()).padStart(2, '0')}/${due.getUTCFullYear()}`,
    );
  });

  it('quickbooks: Item Amount = Item Quantity × Item Rate, a product/service per kind, each invoice the order total', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, [
      'export',
      'orders',
      'qbo.csv',
      '--profile',
      'quickbooks',
      '--invoice-prefix',
      'KK-',
      '--tax-type',
      'SR',
      '--zero-tax-type',
      'Out of scope',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseCsv(join(dir, 'qbo.csv'));
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'Invoice number', 'Customer', 'Invoice date', 'Due date', 'Terms', 'Memo', 'Item (Product/Service)',
      'Item Description', 'Item Quantity', 'Item Rate', 'Item Amount', 'Item tax code', 'Service Date',
    ]); // prettier-ignore
    const invoices = invoicesOf(rows, 'Invoice number');
    const revenue = SAMPLE.orders.filter(isRevenue);
    expect(invoices.size).toBe(revenue.length);
    for (const order of revenue) {
      const lines = invoices.get(`KK-${order.number}`) ?? [];
      for (const l of lines) {
        expect(lineMinor(l['Item Quantity'], l['Item Rate'])).toBe(minor(l['Item Amount']));
        expect(l['Item tax code']).toMatch(/^(SR|Out of scope)$/);
      }
      const total = lines.reduce(
        (sum, l) =>
          sum +
          minor(l['Item Amount']) +
          (l['Item tax code'] === 'SR' ? taxOn(minor(l['Item Amount']), 6) : 0),
        0,
      );
      expect(total, order.id).toBe(order.total_amount);
      const [y, m, d] = storeDay(order.created_at).split('-');
      expect(lines[0]?.['Invoice date']).toBe(`${m}/${d}/${y}`);
    }
    const items = new Set(rows.map((l) => l['Item (Product/Service)']));
    expect([...items].sort()).toEqual(
      expect.arrayContaining(['Sales', 'Service charge', 'Shipping', 'Tips']),
    );
    expect(items.has('')).toBe(false);
  });

  it('xero: 1,200 orders split into files of at most 500 invoices (-part2, -part3), each order in exactly one', async () => {
    const seed = generateStore({ products: 20, customers: 50, orders: 1200, seed: 15 });
    const s = await sandboxOf(seed);
    const sub = mkdtempSync(join(dir, 'split-'));
    const r = await run(
      s,
      [
        'export',
        'orders',
        'xero.csv',
        '--profile',
        'xero',
        '--tax-type',
        'SST 6%',
        '--basis',
        'accrual',
        '--json',
      ],
      sub,
    );
    expect(r.code, r.stderr).toBe(0);
    // Accrual: confirmed or completed, unless refunded (a refund reverses the sale, issue 39).
    const invoiced = seed.orders.filter(
      (o) =>
        (o.order_status === 'confirmed' || o.order_status === 'completed') && o.payment_status !== 'refunded',
    );
    const parts = Math.ceil(invoiced.length / 500);
    expect(parts).toBeGreaterThan(1);
    const names = ['xero.csv', ...Array.from({ length: parts - 1 }, (_, i) => `xero-part${i + 2}.csv`)];
    expect(
      readdirSync(sub)
        .filter((f) => f.endsWith('.csv'))
        .sort(),
    ).toEqual([...names, 'xero-totals.csv'].sort());
    const seen = new Map<string, string>();
    for (const file of names) {
      const invoices = invoicesOf(parseCsv(join(sub, file)), '*InvoiceNumber');
      expect(invoices.size).toBeLessThanOrEqual(500);
      for (const n of invoices.keys()) {
        expect(seen.has(n), `${n} in ${file} and ${seen.get(n)}`).toBe(false);
        seen.set(n, file);
      }
      for (const [n, lines] of invoices) {
        const order = seed.orders.find((o) => o.number === n) as Order;
        expect(xeroTotal(lines, 'SST 6%', 6), n).toBe(order.total_amount);
      }
    }
    expect(seen.size).toBe(invoiced.length);

    // A smaller export into the same name: the later parts are not its own, and the user is told.
    const small = await run(
      s,
      [
        'export',
        'orders',
        'xero.csv',
        '--profile',
        'xero',
        '--tax-type',
        'SST 6%',
        '--status',
        'completed',
        '--payment-status',
        'paid',
        '--until',
        '2026-01-31',
      ],
      sub,
    );
    expect(small.code, small.stderr).toBe(0);
    expect(small.stdout).toContain('1 file');
    expect(small.stderr).toContain('xero-part2.csv is from an earlier export');
  });
});

describe('dated incremental feeds', () => {
  it("three nightly runs into 'orders-{date}.csv': every new or changed order exactly once, nothing else", async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const cwd = mkdtempSync(join(dir, 'feed-'));
    const post = async (body: unknown): Promise<void> => {
      const res = await fetch(`${s.url}/__sandbox/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    };
    const newOrder = (n: number): Order => ({
      ...(structuredClone(SAMPLE.orders[0]) as Order),
      id: `ord_new_${n}`,
      number: String(9000 + n),
      name: `#${9000 + n}`,
      created_at: new Date().toISOString(),
    });
    // Each run "happens" on another night (store zone UTC+8: 20:00Z is 04:00 the next day).
    const night = async (iso: string, extra: string[] = []) => {
      const r = await run(s, ['export', 'orders', 'orders-{date}.csv', '--incremental', ...extra], cwd, {
        MBULK_NOW: iso,
      });
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    const idsOf = (file: string): string[] => parseCsv(join(cwd, file)).map((row) => row['id'] as string);

    await night('2026-11-22T20:00:00Z');
    const first = idsOf('orders-2026-11-23.csv');
    expect([...first].sort()).toEqual(SAMPLE.orders.map((o) => o.id).sort());

    await post([newOrder(1), newOrder(2)]);
    await post({ id: 'ord_00000003', order_status: 'cancelled' });
    // --dry-run shows what the next run takes, writes nothing and keeps the watermark.
    const dry = await night('2026-11-23T20:00:00Z', ['--dry-run']);
    expect(dry.stdout).toContain('would export 3 new or changed orders');
    expect(existsSync(join(cwd, 'orders-2026-11-24.csv'))).toBe(false);
    await night('2026-11-23T20:00:00Z');
    const second = idsOf('orders-2026-11-24.csv');
    expect([...second].sort()).toEqual(['ord_00000003', 'ord_new_1', 'ord_new_2']);

    await post(newOrder(3));
    await post([
      { id: 'ord_new_1', payment_status: 'refunded' },
      { id: 'ord_00000007', fulfillment_status: 'fulfilled' },
    ]);
    await night('2026-11-24T20:00:00Z');
    const third = idsOf('orders-2026-11-25.csv');
    expect([...third].sort()).toEqual(['ord_00000007', 'ord_new_1', 'ord_new_3']);
    // The first night's file was not rewritten by later runs.
    expect(idsOf('orders-2026-11-23.csv')).toEqual(first);

    // Exactly once per version: ord_new_1 twice (created, then changed), everything else once.
    const all = [...first, ...second, ...third];
    const counts = new Map<string, number>();
    for (const id of all) counts.set(id, (counts.get(id) ?? 0) + 1);
    const changedTwice = ['ord_new_1', 'ord_00000003', 'ord_00000007'];
    for (const [id, n] of counts) expect(n, id).toBe(changedTwice.includes(id) ? 2 : 1);

    // A night with nothing new still writes its (empty) file and says so.
    const quiet = await night('2026-11-25T20:00:00Z');
    expect(quiet.stdout).toMatch(/0 new or changed orders since 20\d\d-/);
    expect(idsOf('orders-2026-11-26.csv')).toEqual([]);
    expect(readFileSync(join(cwd, 'orders-2026-11-26.csv'), 'utf8')).toContain('order_status');
  });
});

describe('a second run of a dated feed on the same day', () => {
  it("writes beside the first run's file, never over it (its orders would be in no file)", async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const cwd = mkdtempSync(join(dir, 'same-day-'));
    const idsOf = (file: string): string[] => parseCsv(join(cwd, file)).map((row) => row['id'] as string);
    const first = await run(s, ['export', 'orders', 'o-{date}.csv', '--incremental'], cwd, {
      MBULK_NOW: '2026-11-22T20:00:00Z',
    });
    expect(first.code, first.stderr).toBe(0);
    expect(idsOf('o-2026-11-23.csv')).toHaveLength(SAMPLE.orders.length);

    const again = await run(s, ['export', 'orders', 'o-{date}.csv', '--incremental'], cwd, {
      MBULK_NOW: '2026-11-22T21:00:00Z',
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      'o-2026-11-23.csv holds an earlier run of this feed: writing o-2026-11-23-run2.csv',
    );
    expect(idsOf('o-2026-11-23.csv')).toHaveLength(SAMPLE.orders.length);
    expect(existsSync(join(cwd, 'o-2026-11-23-run2.csv'))).toBe(true);
  });
});

describe('local spreadsheet conventions', () => {
  it('--decimal-comma writes 12,90 with ; between fields, and --headers labels', async () => {
    const s = await sandboxOf(SAMPLE_PATH);
    const r = await run(s, ['export', 'orders', 'eu.csv', '--decimal-comma', '--headers', 'labels']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseCsv(join(dir, 'eu.csv'), ';');
    expect(rows).toHaveLength(SAMPLE.orders.length);
    const byId = new Map(rows.map((row) => [row['Order ID'], row]));
    for (const order of SAMPLE.orders) {
      const cell = byId.get(order.id)?.['Total'] as string;
      expect(cell).toMatch(/^-?\d+,\d\d$/);
      expect(Math.round(Number(cell.replace(',', '.')) * 100)).toBe(order.total_amount);
    }
    const summary = parseCsv(join(dir, 'eu-summary.csv'), ';');
    expect(summary.find((row) => row['Section'] === 'revenue')?.['Total']).toMatch(/^\d+,\d\d$/);
    expect((await run(s, ['export', 'orders', 'x.xlsx', '--csv-delimiter', ';'])).code).toBe(2);
  });
});
