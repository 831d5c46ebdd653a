import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors/usage-error.js';
import { checkPaymentAccounts, parseAccounts } from '../../../src/export/accounting-accounts.js';
import { exportOrders } from '../../../src/export/export-orders.js';
import { recomputeOrderMoney } from '../../../src/sandbox/order-money.js';
import { fromArray, makeOrder, STORE } from './order-factory.js';

/** Issue 39, item 6: the checks an accountant expects before a file reaches the books. */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-acct-checks-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const usage = (f: () => unknown): UsageError => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error('no UsageError');
};

describe('--accounts takes kind=CODE pairs joined by commas, nothing else', () => {
  it('refuses a semicolon, a space or a bare code, naming the bad pair', () => {
    const semi = usage(() => parseAccounts('sales=200;shipping=210'));
    expect(semi.message).toContain('"sales=200;shipping=210"');
    expect(semi.exitCode).toBe(2);
    expect(semi.option).toBe('accounts');
    expect(usage(() => parseAccounts('sales=200 shipping=210')).message).toContain(
      '"sales=200 shipping=210"',
    );
    expect(usage(() => parseAccounts('sales=200,4000')).message).toContain('"4000"');
    expect(usage(() => parseAccounts('sales=200,tips=')).message).toContain('"tips="');
    // Still taken: spaces around pairs, a trailing comma, a mapping file's `kind,Name, with comma`.
    expect(parseAccounts(' sales = 200 , tips=260,').lines).toEqual({ sales: '200', tips: '260' });
    expect(parseAccounts('# ours\nsales,Sales, retail\nshipping=Delivery\n').lines).toEqual({
      sales: 'Sales, retail',
      shipping: 'Delivery',
    });
  });

  it('refuses a payment account equal to a revenue account, or payment accounts nothing uses', () => {
    const same = usage(() =>
      checkPaymentAccounts(parseAccounts('payment.card=200'), 'xero', { payments: true, journal: false }),
    );
    expect(same.message).toContain('payment.card=200 is the sales account');
    const tips = usage(() =>
      checkPaymentAccounts(parseAccounts('payment=260'), 'xero', { payments: true, journal: false }),
    );
    expect(tips.message).toContain('tips account');
    const unused = usage(() =>
      checkPaymentAccounts(parseAccounts('payment=090'), 'xero', { payments: false, journal: false }),
    );
    expect(unused.message).toContain('--payments');
    expect(() =>
      checkPaymentAccounts(parseAccounts('payment=090'), 'xero', { payments: false, journal: true }),
    ).not.toThrow();
  });

  it('an export with payment accounts and no --payments stops before writing (exit 2)', async () => {
    const path = join(dir, 'unused.csv');
    await expect(
      exportOrders({
        orders: fromArray([makeOrder()]),
        store: STORE,
        path,
        format: 'csv',
        accounting: { profile: 'xero', taxType: '10% Sales', accounts: 'payment=090' },
      }),
    ).rejects.toThrow(/used only with --payments/);
  });
});

describe('document numbers, totals file', () => {
  const order = recomputeOrderMoney(
    { ...makeOrder({ number: '100000123' }), order_status: 'completed' },
    { ...STORE, service_charge: null },
  );

  it('a QuickBooks document number over 21 characters is exit 2 naming the order and the prefix', async () => {
    const err = await exportOrders({
      orders: fromArray([order]),
      store: { ...STORE, country: 'US' },
      path: join(dir, 'qb-long.csv'),
      format: 'csv',
      accounting: { profile: 'quickbooks', invoicePrefix: 'WEBSHOP-UNITED-' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain('WEBSHOP-UNITED-100000123 is 24 characters');
    expect((err as UsageError).message).toContain('at most 21');
    expect((err as UsageError).message).toContain('--invoice-prefix');
    // Xero takes it.
    const ok = await exportOrders({
      orders: fromArray([order]),
      store: STORE,
      path: join(dir, 'xero-long.csv'),
      format: 'csv',
      accounting: { profile: 'xero', taxType: '10% Sales', invoicePrefix: 'WEBSHOP-UNITED-' },
    });
    expect(ok.accounting?.invoices).toBe(1);
  });

  it('-totals.csv names its files relative to its own folder', async () => {
    const sub = mkdtempSync(join(dir, 'totals-'));
    const r = await exportOrders({
      orders: fromArray([order]),
      store: STORE,
      path: join(sub, 'xero.csv'),
      format: 'csv',
      accounting: {
        profile: 'xero',
        taxType: '10% Sales',
        accounts: 'payment=090',
        payments: join(sub, 'pay', 'payments.csv'),
      },
    });
    const rows = Papa.parse<Record<string, string>>(
      readFileSync(r.accounting?.paths.totals as string, 'utf8'),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(rows.map((x) => x['file'])).toEqual(['xero.csv', join('pay', 'payments.csv')]);
  });
});
