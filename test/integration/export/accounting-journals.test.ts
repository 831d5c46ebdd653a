import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * Issue 39 acceptance: a multi-day rehearsal of the summary journal feeds against the sandbox, a UK
 * store (GBP, 20% VAT in the prices) through --profile xero-journal and a US store (USD, 8.875%
 * sales tax added) through --profile quickbooks-journal. Every file is read back with papaparse and
 * tied to the API's orders (read from the sandbox) and to the plain export's summary.
 */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-journals-'));
const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const parseCsv = (file: string): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;
const minor = (v: string | undefined): number =>
  v === undefined || v === '' ? 0 : Math.round(Number(v) * 100);

/**
 * A journal line as read back: which journal, its description, account, signed amount (debit +) and
 * the tax the program adds to it (Xero: the line's amount at its TaxRate, rounded half away from zero;
 * QuickBooks: none, the tax is a line of its own).
 */
interface Line {
  journal: string;
  date: string;
  description: string;
  account: string;
  amount: number;
  tax: number;
}
const halfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

const SETUPS = [
  {
    name: 'UK, VAT in prices, Xero manual journals',
    country: 'GB',
    currency: 'GBP',
    profile: 'xero-journal',
    accounts: 'payment=090,payment.card=091',
    read: (file: string): Line[] =>
      parseCsv(file).map((r) => ({
        journal: `${r['*Narration']}|${r['*Date']}`,
        date: r['*Date'] as string,
        description: r['Description'] as string,
        account: r['*AccountCode'] as string,
        amount: minor(r['*Amount']),
        tax: r['*TaxRate'] === '20% (VAT on Income)' ? halfAway((minor(r['*Amount']) * 20) / 100) : 0,
      })),
    header:
      '*Narration,*Date,Description,*AccountCode,*TaxRate,*Amount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2',
  },
  {
    name: 'US, sales tax added, QuickBooks Online journal entries',
    country: 'US',
    currency: 'USD',
    profile: 'quickbooks-journal',
    accounts: 'payment=Undeposited Funds,payment.card=Card Clearing',
    read: (file: string): Line[] =>
      parseCsv(file).map((r) => ({
        journal: r['Journal No.'] as string,
        date: r['Journal Date'] as string,
        description: r['Description'] as string,
        account: r['Account Name'] as string,
        amount: minor(r['Debits']) - minor(r['Credits']),
        tax: 0,
      })),
    header: 'Journal No.,Journal Date,Account Name,Debits,Credits,Description,Name',
  },
] as const;

describe('summary journal feeds over several days', () => {
  for (const setup of SETUPS) {
    it(`${setup.name}: every journal balances, ties to the API and the summary, refunds reverse on their day, nothing twice`, async () => {
      const seed: StoreSnapshot = generateStore({
        country: setup.country,
        currency: setup.currency,
        orders: 160,
        seed: 39,
        now: '2027-03-01T00:00:00Z',
      });
      // Card payments clear to their own account; the rest to payment=.
      seed.orders = seed.orders.map((o, i) => (i % 3 === 0 ? { ...o, payment_method: 'card' } : o));
      const s = await startSandbox({ seed });
      sandboxes.push(s);
      const cwd = mkdtempSync(join(dir, `${setup.country}-`));
      const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
      const admin = async (path: string, body: unknown): Promise<Order> => {
        const res = await fetch(`${s.url}/__sandbox/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(200);
        return (await res.json()) as Order;
      };
      const night = async (iso: string) => {
        const r = await runCli(
          [
            'export',
            'orders',
            'journal-{date}.csv',
            '--profile',
            setup.profile,
            '--accounts',
            setup.accounts,
            '--incremental',
            '--feed',
            'journals',
            '--json',
          ],
          { ...env, MBULK_NOW: iso },
          cwd,
        );
        expect(r.code, r.stderr).toBe(0);
        return r;
      };
      const apiOrders = async (): Promise<Order[]> => {
        const out: Order[] = [];
        let cursor: string | null = null;
        do {
          const res = await fetch(`${s.url}/api/v2/orders?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
            headers: { authorization: `Bearer ${s.token}` },
          });
          const page = (await res.json()) as { data: Order[]; next_cursor: string | null };
          out.push(...page.data);
          cursor = page.next_cursor;
        } while (cursor);
        return out;
      };
      const isRevenue = (o: Order): boolean =>
        o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft';

      // Night 1: every paid order of the past days, one journal per day.
      await night('2027-03-01T06:00:00Z');
      const before = (await apiOrders()).filter(isRevenue);
      // Day 2: a partial refund, a full refund and a cancellation of orders of earlier days.
      await admin('clock', { now: '2027-03-02T15:00:00Z' });
      const partial = before.find((o) => o.line_items.some((l) => l.quantity >= 2)) as Order;
      const line = partial.line_items.find((l) => l.quantity >= 2) as Order['line_items'][number];
      await admin(`orders/${partial.id}/refund`, { line_items: [{ id: line.id, quantity: 1 }] });
      const [refunded, cancelled] = before.filter((o) => o.id !== partial.id);
      await admin(`orders/${(refunded as Order).id}/refund`, {});
      await admin(`orders/${(cancelled as Order).id}/cancel`, {});
      await night('2027-03-02T23:00:00Z');
      // A same-day re-run: nothing new, nothing posted twice.
      const again = await night('2027-03-02T23:30:00Z');
      expect(again.json<{ orders: number }>().orders).toBe(0);

      const files = readdirSync(cwd).filter((f) =>
        /^journal-\d{4}-\d\d-\d\d(-run\d+)?(-part\d+)?\.csv$/.test(f),
      );
      expect(files.length).toBeGreaterThanOrEqual(2);
      const lines: Line[] = [];
      for (const f of files) {
        expect(readFileSync(join(cwd, f), 'utf8').split(/\r?\n/)[0]).toBe(setup.header);
        lines.push(...setup.read(join(cwd, f)).map((l) => ({ ...l, journal: `${f}|${l.journal}` })));
      }
      // Every journal balances, to the minor unit, with the tax the program adds.
      const journals = new Map<string, Line[]>();
      for (const l of lines) journals.set(l.journal, [...(journals.get(l.journal) ?? []), l]);
      expect(journals.size).toBeGreaterThan(5);
      for (const [name, js] of journals)
        expect(
          js.reduce((n, l) => n + l.amount + l.tax, 0),
          name,
        ).toBe(0);

      // Over every file, the journals tie to the API's orders as they are now.
      const now = (await apiOrders()).filter(isRevenue);
      const sum = (os: Order[], f: (o: Order) => number): number => os.reduce((n, o) => n + f(o), 0);
      const on = (test: (l: Line) => boolean): number => lines.filter(test).reduce((n, l) => n + l.amount, 0);
      const payment = (l: Line): boolean => /Payments: /.test(l.description);
      const tax = (l: Line): boolean => /(^|: )Tax \d/.test(l.description);
      expect(on((l) => payment(l) && /Payments: card/.test(l.description))).toBe(
        sum(
          now.filter((o) => o.payment_method === 'card'),
          (o) => o.total_amount,
        ),
      );
      expect(on(payment)).toBe(sum(now, (o) => o.total_amount));
      // The tax: QuickBooks' tax lines, Xero's tax on the lines at the store's rate.
      const taxOf = (ls: Line[]): number => ls.reduce((n, l) => n + (tax(l) ? l.amount : 0) + l.tax, 0);
      expect(-taxOf(lines)).toBe(sum(now, (o) => o.tax_amount));
      expect(-on((l) => !payment(l) && !tax(l))).toBe(sum(now, (o) => o.total_amount - o.tax_amount));

      // Refunds of earlier days reverse on the day they happen, as lines of their own.
      const changes = lines.filter((l) => l.description.includes('Refunds and changes'));
      expect(changes.length).toBeGreaterThan(0);
      const refundDay = setup.country === 'GB' ? '02/03/2027' : '03/02/2027';
      for (const l of changes) expect(l.date).toBe(refundDay);
      const lost = sum(before, (o) => o.total_amount) - sum(now, (o) => o.total_amount);
      expect(-on((l) => payment(l) && l.description.includes('Refunds and changes'))).toBe(lost);

      // A one-shot journal export ties to the plain export's summary for the same orders.
      const one = await runCli(
        ['export', 'orders', 'once.csv', '--profile', setup.profile, '--accounts', setup.accounts, '--json'],
        env,
        cwd,
      );
      expect(one.code, one.stderr).toBe(0);
      const plain = await runCli(['export', 'orders', 'plain.csv', '--json'], env, cwd);
      expect(plain.code, plain.stderr).toBe(0);
      const summary = parseCsv(join(cwd, 'plain-summary.csv'));
      // (Xero takes 300 lines a file: the journals go on in once-part2.csv…, none split.)
      const onceFiles = readdirSync(cwd).filter((f) => /^once(-part\d+)?\.csv$/.test(f));
      const once = onceFiles.flatMap((f) =>
        setup.read(join(cwd, f)).map((l) => ({ ...l, journal: `${l.journal}` })),
      );
      for (const f of onceFiles)
        expect(setup.read(join(cwd, f)).length).toBeLessThanOrEqual(setup.country === 'GB' ? 300 : 1000);
      const revenue = summary.find((r) => r['section'] === 'revenue') as Record<string, string>;
      expect(once.filter(payment).reduce((n, l) => n + l.amount, 0)).toBe(minor(revenue['total_amount']));
      const taxRows = summary.filter((r) => r['section'] === 'tax_day');
      expect(-taxOf(once)).toBe(taxRows.reduce((n, r) => n + minor(r['tax_amount']), 0));
      expect(-once.filter((l) => !payment(l) && !tax(l)).reduce((n, l) => n + l.amount, 0)).toBe(
        taxRows.reduce((n, r) => n + minor(r['taxable_amount']), 0),
      );
      // One journal per day: as many as the summary's days with revenue.
      const days = new Set(once.map((l) => l.journal));
      expect(days.size).toBe(new Set(taxRows.map((r) => r['day'])).size);
    });
  }
});

describe('QuickBooks Online US invoice files', () => {
  it('files of at most 1,000 rows, and the console names what the US import may refuse and offers the journal profile', async () => {
    const seed = generateStore({ country: 'US', currency: 'USD', orders: 400, seed: 40 });
    const s = await startSandbox({ seed });
    sandboxes.push(s);
    const cwd = mkdtempSync(join(dir, 'qbo-us-'));
    const r = await runCli(
      ['export', 'orders', 'qbo.csv', '--profile', 'quickbooks', '--basis', 'accrual', '--json'],
      { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token },
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const files = readdirSync(cwd).filter((f) => /^qbo(-part\d+)?\.csv$/.test(f));
    let negative = 0;
    for (const f of files) {
      const rows = parseCsv(join(cwd, f));
      expect(rows.length, f).toBeLessThanOrEqual(999);
      expect(new Set(rows.map((x) => x['Invoice number'])).size, f).toBeLessThanOrEqual(100);
      negative += rows.filter((x) => minor(x['Item Amount']) < 0).length;
    }
    expect(negative).toBeGreaterThan(0);
    expect(r.stderr).toContain(`${negative} negative lines here`);
    expect(r.stderr).toContain('--profile quickbooks-journal');
  });
});

describe('the console on payments and journal flags', () => {
  it('says a payments file is for a payment-import app; refuses --payments with a journal, --journal-period without one', async () => {
    const seed = generateStore({ country: 'GB', currency: 'GBP', orders: 30, seed: 41 });
    const s = await startSandbox({ seed });
    sandboxes.push(s);
    const cwd = mkdtempSync(join(dir, 'console-'));
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const pay = await runCli(
      ['export', 'orders', 'x.csv', '--profile', 'xero', '--payments', 'p.csv', '--accounts', 'payment=090'],
      env,
      cwd,
    );
    expect(pay.code, pay.stderr).toBe(0);
    expect(pay.stdout).toContain('The payments file is for a payment-import app');
    const both = await runCli(
      [
        'export',
        'orders',
        'j.csv',
        '--profile',
        'xero-journal',
        '--payments',
        'p2.csv',
        '--accounts',
        'payment=090',
      ],
      env,
      cwd,
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('drop --payments');
    const period = await runCli(
      ['export', 'orders', 'k.csv', '--profile', 'xero', '--journal-period', 'week'],
      env,
      cwd,
    );
    expect(period.code).toBe(2);
    expect(period.stderr).toContain('--journal-period goes with --profile xero-journal');
    const journal = await runCli(
      [
        'export',
        'orders',
        'w.csv',
        '--profile',
        'xero-journal',
        '--journal-period',
        'week',
        '--accounts',
        'payment=090',
      ],
      env,
      cwd,
    );
    expect(journal.code, journal.stderr).toBe(0);
    expect(journal.stdout).toMatch(/Exported \d+ Xero manual journals? \(one per week\)/);
    expect(journal.stdout).toContain('debits = credits');
  });
});

describe('QuickBooks Online UK and Xero journals: the rates named without flags', () => {
  it('quickbooks: 20.0% S and No VAT by default, tips outside the VAT at No VAT, the VAT computed line by line = the store’s; xero-journal says what Xero adds', async () => {
    const seed = generateStore({ country: 'GB', currency: 'GBP', orders: 200, seed: 42 });
    const s = await startSandbox({ seed });
    sandboxes.push(s);
    const cwd = mkdtempSync(join(dir, 'qbo-uk-'));
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const r = await runCli(['export', 'orders', 'qbo.csv', '--profile', 'quickbooks'], env, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Import with amounts "tax inclusive"; tax rate "20.0% S", no-tax rate "No VAT"',
    );
    const rows = readdirSync(cwd)
      .filter((f) => /^qbo(-part\d+)?\.csv$/.test(f))
      .flatMap((f) => parseCsv(join(cwd, f)));
    expect(new Set(rows.map((x) => x['Item tax code']))).toEqual(new Set(['20.0% S', 'No VAT']));
    expect(rows.some((x) => x['Item (Product/Service)'] === 'Tips' && x['Item tax code'] === 'No VAT')).toBe(
      true,
    );
    // QuickBooks Online outside the US takes each line's VAT out of it (amounts tax inclusive).
    const halfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));
    const vat = rows
      .filter((x) => x['Item tax code'] === '20.0% S')
      .reduce((n, x) => n + halfAway((minor(x['Item Amount']) * 20) / 120), 0);
    const paid = seed.orders.filter(
      (o) => o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft',
    );
    expect(vat).toBe(paid.reduce((n, o) => n + o.tax_amount, 0));

    const j = await runCli(
      ['export', 'orders', 'j.csv', '--profile', 'xero-journal', '--accounts', 'payment=090'],
      env,
      cwd,
    );
    expect(j.code, j.stderr).toBe(0);
    expect(j.stdout).toContain(
      'Lines the store\'s tax covers at "20% (VAT on Income)", the others at "No VAT"; amounts before tax: Xero adds each line\'s tax',
    );
  });
});
