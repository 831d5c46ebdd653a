import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * Issue 23 acceptance: files the books can take as they are. Through the CLI against the sandbox
 * seeded with the sample store (Kuala Lumpur, MYR, prices excluding 6% tax); every file is read back
 * with papaparse, and expected figures come from the seed or the sandbox's own state.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'samples', 'store.json'), 'utf8')) as StoreSnapshot;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-books-'));
const TAX = ['--tax-type', 'SST 6%'];

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sandboxOf(seed: StoreSnapshot): Promise<RunningSandbox> {
  const s = await startSandbox({ seed });
  sandboxes.push(s);
  return s;
}

const run = (s: RunningSandbox, argv: string[], cwd: string, env: Record<string, string> = {}) =>
  runCli(argv, { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token, ...env }, cwd);

const parseCsv = (file: string): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;

/** Currency units as text → exact minor units (MYR). */
const minor = (v: string | undefined): number => Math.round(Number(v ?? 0) * 100);
const taxOn = (amount: number): number => Math.sign(amount) * Math.round(Math.abs((amount * 6) / 100));
/** A Xero document's total as Xero computes it: quantity × unit amount, plus 6% on the taxed rows. */
const xeroTotal = (rows: Record<string, string>[]): number =>
  rows.reduce((sum, l) => {
    const amount = Number(l['*Quantity']) * minor(l['*UnitAmount']);
    return sum + amount + (l['*TaxType'] === 'SST 6%' ? taxOn(amount) : 0);
  }, 0);
const byNumber = (rows: Record<string, string>[], column = '*InvoiceNumber') => {
  const out = new Map<string, Record<string, string>[]>();
  for (const r of rows) out.set(r[column] as string, [...(out.get(r[column] as string) ?? []), r]);
  return out;
};
const isRevenue = (o: Order): boolean =>
  o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft';

describe('an account per kind of line, tax never on sales', () => {
  it('--accounts sends shipping, service charge, tips and discounts to their accounts; tips have their own by default', async () => {
    const s = await sandboxOf(SAMPLE);
    const cwd = mkdtempSync(join(dir, 'accounts-'));
    const accounts = 'sales=4000,shipping=4100,service-charge=4200,tips=2300,discount=4900,rounding=4990';
    const r = await run(
      s,
      ['export', 'orders', 'xero.csv', '--profile', 'xero', ...TAX, '--accounts', accounts],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = parseCsv(join(cwd, 'xero.csv'));
    const revenue = SAMPLE.orders.filter(isRevenue);
    const invoices = byNumber(rows);
    for (const o of revenue) {
      const lines = invoices.get(o.number) ?? [];
      const on = (account: string) =>
        lines
          .filter((l) => l['*AccountCode'] === account)
          .reduce((n, l) => n + Number(l['*Quantity']) * minor(l['*UnitAmount']), 0);
      expect(on('4100'), o.id).toBe(o.service_amount);
      expect(on('4200'), o.id).toBe(o.service_charge_amount);
      expect(on('2300'), o.id).toBe(o.tip_amount);
      expect(on('4900'), o.id).toBe(0 - o.discounts_amount);
      expect(xeroTotal(lines), o.id).toBe(o.total_amount);
    }
    expect(revenue.some((o) => o.tip_amount > 0 && o.service_charge_amount > 0)).toBe(true);
    // No line is tax: every row on a revenue account is a net amount at the store's rate.
    expect(rows.some((l) => /^tax$/i.test(l['*Description'] ?? ''))).toBe(false);
    for (const l of rows.filter((x) =>
      ['4000', '4100', '4200', '2300', '4900'].includes(x['*AccountCode'] ?? ''),
    )) {
      // (What an order's own figures leave unexplained, its difference line, carries no tax either.)
      if (!l['*Description']?.startsWith('Difference to')) expect(l['*TaxType']).toBe('SST 6%');
    }
    expect(rows.every((l) => l['*TaxType'] !== '')).toBe(true);

    // Without --accounts, tips still do not go to sales (200): Xero's Other Revenue, 260.
    const plain = await run(s, ['export', 'orders', 'plain.csv', '--profile', 'xero', ...TAX], cwd);
    expect(plain.code, plain.stderr).toBe(0);
    const tips = parseCsv(join(cwd, 'plain.csv')).filter((l) => l['*Description'] === 'Tip');
    expect(tips.length).toBeGreaterThan(0);
    for (const t of tips) expect(t['*AccountCode']).toBe('260');

    // With a tax account: tax is a line of its own there, every line with the no-tax rate.
    // (From a mapping file, one kind=account per line.)
    writeFileSync(join(cwd, 'accounts.txt'), '# our chart\ntax=820\n');
    const taxLine = await run(
      s,
      ['export', 'orders', 'taxline.csv', '--profile', 'xero', '--accounts', 'accounts.txt', '--json'],
      cwd,
    );
    expect(taxLine.code, taxLine.stderr).toBe(0);
    const tl = parseCsv(join(cwd, 'taxline.csv'));
    for (const o of revenue) {
      const lines = byNumber(tl).get(o.number) ?? [];
      expect(
        lines.filter((l) => l['*AccountCode'] === '820').reduce((n, l) => n + minor(l['*UnitAmount']), 0),
      ).toBe(o.tax_amount);
      expect(lines.every((l) => l['*TaxType'] === 'Tax Exempt')).toBe(true);
      expect(lines.reduce((n, l) => n + Number(l['*Quantity']) * minor(l['*UnitAmount']), 0)).toBe(
        o.total_amount,
      );
    }
  });

  it('*TaxType is never blank: with no rate the store implies, exit 2 naming --tax-type', async () => {
    const s = await sandboxOf(SAMPLE);
    const cwd = mkdtempSync(join(dir, 'taxtype-'));
    const r = await run(s, ['export', 'orders', 'xero.csv', '--profile', 'xero'], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tax-type');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readdirSync(cwd)).toEqual([]);
    const pay = await run(
      s,
      ['export', 'orders', 'xero.csv', '--profile', 'xero', ...TAX, '--payments', 'p.csv'],
      cwd,
    );
    expect(pay.code).toBe(2);
    expect(pay.stderr).toContain('payment=ACCOUNT');
  });
});

describe('contacts and names', () => {
  it('two customers sharing a name are two contacts; names arrive as typed; ordinary exports keep the formula guard', async () => {
    const seed = structuredClone(SAMPLE);
    const revenue = seed.orders.filter(isRevenue);
    const [a, b] = [
      revenue[0] as Order,
      revenue.find((o) => o.customer.id !== revenue[0]?.customer.id) as Order,
    ];
    a.customer.name = 'Amirul';
    b.customer.name = 'Amirul';
    const aina = revenue.find(
      (o) => o.customer.id !== a.customer.id && o.customer.id !== b.customer.id,
    ) as Order;
    for (const o of seed.orders) if (o.customer.id === aina.customer.id) o.customer.name = '-Aina';
    const s = await sandboxOf(seed);
    const cwd = mkdtempSync(join(dir, 'contacts-'));
    const r = await run(s, ['export', 'orders', 'xero.csv', '--profile', 'xero', ...TAX], cwd);
    expect(r.code, r.stderr).toBe(0);
    const invoices = byNumber(parseCsv(join(cwd, 'xero.csv')));
    const contactOf = (o: Order) => invoices.get(o.number)?.[0]?.['*ContactName'];
    expect(contactOf(a)).toBe('Amirul');
    expect(contactOf(b)).toMatch(/^Amirul \(.+\)$/);
    // Every invoice of one customer goes to one contact, and no contact holds two customers.
    const customerOf = new Map<string, string>();
    for (const o of revenue) {
      const c = contactOf(o) as string;
      expect(customerOf.get(c) ?? o.customer.id, c).toBe(o.customer.id);
      customerOf.set(c, o.customer.id);
    }
    expect(contactOf(aina)).toBe('-Aina');
    expect(readFileSync(join(cwd, 'xero.csv'), 'utf8')).not.toContain("'-Aina");
    // --contact name merges them, as asked.
    const merged = await run(
      s,
      ['export', 'orders', 'm.csv', '--profile', 'xero', ...TAX, '--contact', 'name'],
      cwd,
    );
    expect(merged.code, merged.stderr).toBe(0);
    expect(byNumber(parseCsv(join(cwd, 'm.csv'))).get(b.number)?.[0]?.['*ContactName']).toBe('Amirul');
    // The ordinary export is opened in spreadsheets: its text keeps the guard.
    const plain = await run(s, ['export', 'orders', 'orders.csv'], cwd);
    expect(plain.code, plain.stderr).toBe(0);
    const row = parseCsv(join(cwd, 'orders.csv').replace(/^/, '')).find((x) => x['id'] === aina.id);
    expect(row?.['customer_name']).toBe("'-Aina");
  });
});

describe('payments and control totals', () => {
  it('the payments file pays exactly the paid invoices; each file has its count and total in the console, --json and the totals file', async () => {
    const s = await sandboxOf(SAMPLE);
    const cwd = mkdtempSync(join(dir, 'payments-'));
    const r = await run(
      s,
      [
        'export',
        'orders',
        'xero.csv',
        '--profile',
        'xero',
        ...TAX,
        '--basis',
        'accrual',
        '--payments',
        'pay.csv',
        '--accounts',
        'payment=090,payment.card=091',
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const invoices = byNumber(parseCsv(join(cwd, 'xero.csv')));
    // Accrual: confirmed or completed, unless refunded (issue 39).
    const accrued = SAMPLE.orders.filter(
      (o) =>
        (o.order_status === 'confirmed' || o.order_status === 'completed') && o.payment_status !== 'refunded',
    );
    expect(invoices.size).toBe(accrued.length);
    const paid = accrued.filter((o) => o.payment_status === 'paid');
    expect(paid.length).toBeLessThan(accrued.length); // some invoices stay unpaid
    const payments = parseCsv(join(cwd, 'pay.csv'));
    expect(Object.keys(payments[0] ?? {})).toEqual([
      'InvoiceNumber',
      'ContactName',
      'Date',
      'Amount',
      'AccountCode',
      'Reference',
      'Currency',
    ]);
    expect(payments.map((p) => p['InvoiceNumber']).sort()).toEqual(paid.map((o) => o.number).sort());
    for (const p of payments) {
      const order = paid.find((o) => o.number === p['InvoiceNumber']) as Order;
      expect(minor(p['Amount'])).toBe(xeroTotal(invoices.get(order.number) ?? []));
      expect(minor(p['Amount'])).toBe(order.total_amount);
      expect(p['AccountCode']).toBe(order.payment_method === 'card' ? '091' : '090');
      expect(p['ContactName']).toBe(invoices.get(order.number)?.[0]?.['*ContactName']);
    }

    // Control totals: the totals file and --json agree with the files read back.
    const totals = parseCsv(join(cwd, 'xero-totals.csv'));
    const invoiceTotal = [...invoices.values()].reduce((n, rows) => n + xeroTotal(rows), 0);
    expect(totals.map((t) => [t['file'], t['document'], Number(t['count']), minor(t['total'])])).toEqual([
      // Named relative to the totals file's folder (issue 39).
      ['xero.csv', 'invoices', accrued.length, invoiceTotal],
      ['pay.csv', 'payments', paid.length, paid.reduce((n, o) => n + o.total_amount, 0)],
    ]);
    const json = r.json<{ accounting: { totals: { count: number; total: number }[] } }>();
    expect(json.accounting.totals.map((t) => [t.count, t.total])).toEqual(
      totals.map((t) => [Number(t['count']), minor(t['total'])]),
    );
    const console = await run(s, ['export', 'orders', 'x2.csv', '--profile', 'xero', ...TAX], cwd);
    expect(console.stdout).toMatch(/x2\.csv: 30 invoices · total [\d,.]+ MYR \(tax [\d,.]+ MYR\)/);
  });
});

describe('a three-day accounting feed', () => {
  it('note edits, a partial refund, a full refund and a cancellation after invoicing: each invoice once, a credit note per change for exactly the difference, the ledger net equal to the API', async () => {
    const s = await sandboxOf(SAMPLE);
    const cwd = mkdtempSync(join(dir, 'feed-'));
    const admin = async (path: string, body: unknown): Promise<Order> => {
      const res = await fetch(`${s.url}/__sandbox/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(200);
      return (await res.json()) as Order;
    };
    const night = async (iso: string, json = true) => {
      const r = await run(
        s,
        [
          'export',
          'orders',
          'xero-{date}.csv',
          '--profile',
          'xero',
          ...TAX,
          '--incremental',
          '--feed',
          'books',
          '--payments',
          'pay-{date}.csv',
          '--accounts',
          'payment=090',
          ...(json ? ['--json'] : []),
        ],
        cwd,
        { MBULK_NOW: iso },
      );
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    const ledgerOf = (r: Awaited<ReturnType<typeof night>>) =>
      r.json<{ ledger: { orders: number; net: number } }>().ledger;
    const revenue = SAMPLE.orders.filter(isRevenue);
    const partial = revenue.find((o) => o.line_items.some((l) => l.quantity >= 2)) as Order;
    const [noted, refunded, cancelled] = revenue.filter((o) => o.id !== partial.id);
    if (!noted || !refunded || !cancelled) throw new Error('sample too small');

    // Night 1 (store zone UTC+8: 20:00Z is 04:00 the next day): every revenue order invoiced once.
    await night('2027-03-01T20:00:00Z');
    // Day 2: a note, a partial refund (one unit of one line).
    await admin('clock', { now: '2027-03-02T10:00:00Z' });
    await admin('orders', { id: noted.id, remark: 'ring twice' });
    const line = partial.line_items.find((l) => l.quantity >= 2) as Order['line_items'][number];
    const afterPartial = await admin(`orders/${partial.id}/refund`, {
      line_items: [{ id: line.id, quantity: 1 }],
    });
    expect(afterPartial.total_amount).toBeLessThan(partial.total_amount);
    const second = ledgerOf(await night('2027-03-02T20:00:00Z'));
    // Day 3: another note on the refunded order, a full refund, a cancellation.
    await admin('clock', { now: '2027-03-03T10:00:00Z' });
    await admin('orders', { id: partial.id, internal_note: 'customer called' });
    await admin(`orders/${refunded.id}/refund`, {});
    await admin(`orders/${cancelled.id}/cancel`, {});
    const thirdRun = await night('2027-03-03T20:00:00Z', false);
    // The console says what changed after invoicing, and what was done about it.
    expect(thirdRun.stdout).toMatch(
      /Changed after invoicing: 3 orders · 1 with the same amounts \(not exported again\) · 2 credited · 0 invoiced again/,
    );
    expect(thirdRun.stdout).toContain(
      `invoice ${cancelled.number} (${cancelled.id}): ${cancelled.order_status}/paid → cancelled/refunded, -`,
    );
    expect(thirdRun.stdout).toContain(`credit note CN-${cancelled.number}-2`);

    const files = readdirSync(cwd).sort();
    const invoiceFiles = files.filter((f) => /^xero-\d{4}-\d\d-\d\d\.csv$/.test(f));
    const creditFiles = files.filter((f) => f.endsWith('-credit-notes.csv'));
    expect(invoiceFiles).toEqual(['xero-2027-03-02.csv', 'xero-2027-03-03.csv', 'xero-2027-03-04.csv']);
    // Each invoice number exported once, over every file.
    const seen = new Map<string, string>();
    for (const f of invoiceFiles) {
      for (const n of byNumber(parseCsv(join(cwd, f))).keys()) {
        expect(seen.get(n), `${n} in ${f}`).toBeUndefined();
        seen.set(n, f);
      }
    }
    expect(seen.size).toBe(revenue.length);
    // Xero's required columns (`*`) are filled on every row of every invoice and credit note file.
    for (const f of [...invoiceFiles, ...creditFiles]) {
      for (const row of parseCsv(join(cwd, f))) {
        for (const [column, value] of Object.entries(row)) {
          if (column.startsWith('*')) expect(value, `${f} ${column}`).not.toBe('');
        }
      }
    }
    // One credit note per refund or cancellation, for exactly the difference; none for the notes.
    const credits = new Map<string, { total: number; reference: string; file: string }>();
    for (const f of creditFiles) {
      for (const [n, rows] of byNumber(parseCsv(join(cwd, f)))) {
        credits.set(n, { total: -xeroTotal(rows), reference: rows[0]?.['Reference'] as string, file: f });
      }
    }
    expect([...credits.entries()].map(([n, c]) => [n, c.reference, c.total, c.file]).sort()).toEqual(
      [
        [
          `CN-${partial.number}-2`,
          partial.number,
          partial.total_amount - afterPartial.total_amount,
          'xero-2027-03-03-credit-notes.csv',
        ],
        [
          `CN-${refunded.number}-2`,
          refunded.number,
          refunded.total_amount,
          'xero-2027-03-04-credit-notes.csv',
        ],
        [
          `CN-${cancelled.number}-2`,
          cancelled.number,
          cancelled.total_amount,
          'xero-2027-03-04-credit-notes.csv',
        ],
      ].sort(),
    );
    // What changed after invoicing, each night: the notes changed nothing that is exported again.
    const changes3 = parseCsv(join(cwd, 'xero-2027-03-04-changes.csv'));
    expect(changes3.find((c) => c['order_id'] === partial.id)?.['action']).toMatch(
      /^none: amounts unchanged/,
    );
    expect(changes3.find((c) => c['order_id'] === cancelled.id)?.['status_now']).toBe('cancelled/refunded');
    const changes2 = parseCsv(join(cwd, 'xero-2027-03-03-changes.csv'));
    expect(changes2.find((c) => c['order_id'] === noted.id)?.['action']).toMatch(/^none/);

    // The ledger's net is the API's net revenue for the period.
    const state = (await (await fetch(`${s.url}/__sandbox/state`)).json()) as StoreSnapshot;
    const apiNet = state.orders.filter(isRevenue).reduce((n, o) => n + o.total_amount, 0);
    const stateFile = JSON.parse(readFileSync(join(cwd, '.mbulk', 'exports.json'), 'utf8')) as {
      exports: Record<string, { ledger?: { orders: Record<string, { total: number }> } }>;
    };
    const ledgers = Object.values(stateFile.exports).map((e) => e.ledger);
    expect(ledgers).toHaveLength(1);
    const ledgerNet = Object.values(ledgers[0]?.orders ?? {}).reduce((n, e) => n + e.total, 0);
    expect(ledgerNet).toBe(apiNet);
    expect(thirdRun.stdout).toContain(`Ledger of this feed: ${revenue.length} invoiced orders standing at`);
    expect(second.net).toBe(apiNet + refunded.total_amount + cancelled.total_amount);
    // Payments: the first night pays every invoice, later nights nothing (refunds are not payments).
    expect(
      parseCsv(join(cwd, 'pay-2027-03-02.csv'))
        .map((p) => p['InvoiceNumber'])
        .sort(),
    ).toEqual(revenue.map((o) => o.number).sort());
    expect(parseCsv(join(cwd, 'pay-2027-03-03.csv'))).toEqual([]);
  });
});
