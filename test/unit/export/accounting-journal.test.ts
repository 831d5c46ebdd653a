import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAccounts } from '../../../src/export/accounting-accounts.js';
import { JournalBook, periodOf, type Journal } from '../../../src/export/accounting-journal.js';
import { emptyLedger, type Ledger } from '../../../src/export/accounting-ledger.js';
import { taxPolicy } from '../../../src/export/accounting-tax.js';
import { exportOrders } from '../../../src/export/export-orders.js';
import { recomputeOrderMoney } from '../../../src/sandbox/order-money.js';
import type { Order, Store } from '../../../src/schema/index.js';
import { fromArray, makeOrder, STORE } from './order-factory.js';

/** Issue 39: summary journals, one balanced journal per store per period. */
const UK: Store = {
  ...STORE,
  country: 'GB',
  currency: 'GBP',
  timezone: 'Europe/London',
  tax: { inclusive: true, percent: 20 },
};
const accounts = parseAccounts('payment=090,payment.card=091,tax=820,receivable=610');

function book(ledger?: Ledger, basis: 'paid' | 'accrual' = 'paid'): JournalBook {
  return new JournalBook({
    profile: 'xero',
    store: UK,
    policy: taxPolicy(UK, 'xero', {}, accounts),
    accounts,
    basis,
    period: 'day',
    postingDate: 'created',
    now: new Date('2026-11-28T00:00:00Z'),
    ...(ledger ? { ledger } : {}),
  });
}

function order(id: string, createdAt: string, method = 'card'): Order {
  const o = makeOrder({
    id,
    number: id.replace('ord_', ''),
    lines: [{ price: 1099, quantity: 3 }, { price: 457 }],
    tip: 150,
    taxInclusive: true,
    createdAt,
  });
  return {
    ...recomputeOrderMoney(
      { ...o, order_status: 'completed', payment_method: method },
      {
        tax: UK.tax,
        service_charge: null,
      },
    ),
    created_at: createdAt,
    updated_at: createdAt,
  };
}

const balance = (j: Journal): number => j.lines.reduce((s, l) => s + l.amount, 0);

describe('JournalBook', () => {
  it('one balanced journal per day in the store zone; payments clear per method; tax a line of its own', () => {
    const b = book();
    const a = order('ord_1', '2026-11-23T23:30:00Z'); // 23:30 in London: the 23rd
    const c = order('ord_2', '2026-11-24T09:00:00Z', 'cash');
    b.add(a);
    b.add(c);
    const journals = b.journals();
    expect(journals.map((j) => [j.period, j.orders])).toEqual([
      ['2026-11-23', 1],
      ['2026-11-24', 1],
    ]);
    for (const j of journals) expect(balance(j)).toBe(0);
    const first = journals[0] as Journal;
    expect(first.lines.find((l) => l.label === 'Payments: card')).toMatchObject({
      account: '091',
      amount: a.total_amount,
    });
    expect(first.lines.find((l) => l.label === 'Tax')).toMatchObject({
      account: '820',
      amount: -a.tax_amount,
    });
    expect(journals[1]?.lines.find((l) => l.label === 'Payments: cash')?.account).toBe('090');
  });

  it('a refund of an earlier day reverses on the day it happens, as lines of their own; a re-read posts nothing', () => {
    const ledger = emptyLedger();
    const a = order('ord_1', '2026-11-23T10:00:00Z');
    expect(book(ledger).add(a)).toBe('2026-11-23');
    expect(book(ledger).add({ ...a, remark: 'note', updated_at: '2026-11-24T08:00:00Z' })).toBeNull();
    const refunded = { ...a, payment_status: 'refunded' as const, updated_at: '2026-11-25T16:00:00Z' };
    const later = book(ledger);
    expect(later.add(refunded)).toBe('2026-11-25');
    const [j] = later.journals();
    expect(j?.period).toBe('2026-11-25');
    expect(j?.lines.every((l) => l.event === 'change')).toBe(true);
    expect(j?.lines.find((l) => l.label === 'Payments: card')?.amount).toBe(-a.total_amount);
    expect(balance(j as Journal)).toBe(0);
    expect(ledger.orders['ord_1']?.total).toBe(0);
  });

  it('accrual: an unpaid sale waits in receivable, its payment moves it to clearing', () => {
    const ledger = emptyLedger();
    const a = { ...order('ord_1', '2026-11-23T10:00:00Z'), payment_status: 'pending' as const };
    const first = book(ledger, 'accrual');
    first.add(a);
    expect(first.journals()[0]?.lines.find((l) => l.label === 'Unpaid sales')).toMatchObject({
      account: '610',
      amount: a.total_amount,
    });
    const paid = book(ledger, 'accrual');
    paid.add({ ...a, payment_status: 'paid', updated_at: '2026-11-26T10:00:00Z' });
    const [j] = paid.journals();
    expect(j?.lines.map((l) => [l.label, l.amount]).sort()).toEqual(
      [
        ['Payments: card', a.total_amount],
        ['Unpaid sales', -a.total_amount],
      ].sort(),
    );
  });

  it('weeks start on Monday, months are calendar months', () => {
    expect(periodOf('2026-11-29', 'week')).toBe('W2026-11-23'); // a Sunday
    expect(periodOf('2026-11-30', 'week')).toBe('W2026-11-30');
    expect(periodOf('2026-11-30', 'month')).toBe('2026-11');
  });
});

describe('journal profile options', () => {
  const run = (accounting: Parameters<typeof exportOrders>[0]['accounting']) =>
    exportOrders({
      orders: fromArray([order('ord_1', '2026-11-23T10:00:00Z')]),
      store: UK,
      path: join(tmpdir(), `mbulk-journal-${process.pid}-${Math.random()}.csv`),
      format: 'csv',
      ...(accounting ? { accounting } : {}),
    });

  it('refuses --payments (payments are journal lines) and a journal without clearing accounts (exit 2)', async () => {
    await expect(
      run({ profile: 'xero', journal: 'day', accounts: 'payment=090', payments: '/tmp/p.csv' }),
    ).rejects.toThrow(/drop --payments/);
    await expect(run({ profile: 'xero', journal: 'day' })).rejects.toThrow(/payment=ACCOUNT/);
    const r = await run({ profile: 'xero', journal: 'day', accounts: 'payment=090' });
    expect(r.accounting?.journals?.entries).toHaveLength(1);
  });
});
