import { describe, expect, it } from 'vitest';
import { formatInvoiceDate, partPath } from '../../../src/export/accounting-profile.js';
import { feedFileName } from '../../../src/export/feed-file-name.js';
import { invoiceLines } from '../../../src/export/invoice-lines.js';
import {
  intersectSelections,
  isEmptySelection,
  matchesSelection,
  parseStatusList,
  REVENUE_SELECTION,
  selectionReads,
} from '../../../src/export/order-selection.js';
import { makeOrder, STORE } from './order-factory.js';

describe('invoiceLines', () => {
  const sum = (lines: { quantity: number; unitAmount: number; amount: number }[]): number =>
    lines.reduce((s, l) => {
      expect(l.quantity * l.unitAmount).toBe(l.amount);
      return s + l.amount;
    }, 0);

  it('adds lines for every order-level amount so the invoice is the order total, exactly', () => {
    const order = makeOrder({
      lines: [{ price: 333, quantity: 3 }, { price: 1999 }],
      discounts: [150, 49],
      answers: 120,
      service: 500,
      serviceCharge: 210,
      tip: 300,
      adjustment: -7,
      tax: 321,
    });
    const lines = invoiceLines(order, STORE);
    expect(lines.map((l) => l.kind)).toEqual([
      'item',
      'item',
      'answers',
      'discount',
      'discount',
      'service',
      'service_charge',
      'tip',
      'adjustment',
      'tax',
    ]);
    expect(lines[0]).toMatchObject({ quantity: 3, unitAmount: 333, amount: 999 });
    expect(sum(lines)).toBe(order.total_amount);
  });

  it('writes a line whose total does not divide by its quantity as 1 × total, and no tax line when prices include tax', () => {
    const order = makeOrder({ lines: [{ price: 100, quantity: 3 }], tax: 27, taxInclusive: true });
    order.line_items[0]!.total_amount = 301; // an option priced once per line
    order.items_amount = 301;
    order.total_before_tax = 301;
    order.total_amount = 301;
    const lines = invoiceLines(order, { ...STORE, tax: { inclusive: true, percent: 10 } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ quantity: 1, unitAmount: 301 });
    expect(lines[0]?.description).toContain('× 3');
    expect(sum(lines)).toBe(301);
  });

  it("carries what the order's own figures do not explain on a difference line", () => {
    const order = makeOrder({ lines: [{ price: 1000 }] });
    order.total_amount += 5;
    const lines = invoiceLines(order, STORE);
    expect(lines.at(-1)).toMatchObject({ kind: 'difference', amount: 5 });
    expect(sum(lines)).toBe(order.total_amount);
  });
});

describe('status selections', () => {
  it('parses lists, refuses unknown values, and reads once per value of the first multi-valued dimension', () => {
    expect(parseStatusList('status', ' Completed, confirmed,completed ', ['completed', 'confirmed'])).toEqual(
      ['completed', 'confirmed'],
    );
    expect(() => parseStatusList('status', 'done', ['completed'])).toThrow(/"done"/);
    expect(() => parseStatusList('status', ' , ', ['completed'])).toThrow(/at least one/);
    const sel = {
      order_status: ['completed', 'confirmed'],
      payment_status: ['paid'],
      fulfillment_status: ['ready', 'fulfilled'],
    };
    expect(selectionReads(sel)).toEqual([
      { payment_status: 'paid', order_status: 'completed' },
      { payment_status: 'paid', order_status: 'confirmed' },
    ]);
    expect(selectionReads({})).toEqual([{}]);
    const order = makeOrder();
    order.order_status = 'completed';
    order.payment_status = 'paid';
    order.fulfillment_status = 'unfulfilled';
    expect(matchesSelection(order, sel)).toBe(false); // the fulfillment set is checked client-side
    expect(matchesSelection(order, { order_status: ['completed'] })).toBe(true);
  });

  it('--revenue intersects with the given sets', () => {
    const r = intersectSelections({ order_status: ['completed', 'cancelled'] }, REVENUE_SELECTION);
    expect(r).toEqual({ order_status: ['completed'], payment_status: ['paid'] });
    expect(isEmptySelection(intersectSelections({ payment_status: ['refunded'] }, REVENUE_SELECTION))).toBe(
      true,
    );
  });
});

describe('file names', () => {
  it('fills {date}, {from} and {to} in the store zone', () => {
    const values = {
      runAt: new Date('2026-11-23T17:30:00Z'),
      from: '2026-11-22T17:05:00Z',
      timezone: 'Asia/Jakarta',
    };
    expect(feedFileName('orders-{date}.csv', values)).toBe('orders-2026-11-24.csv');
    expect(feedFileName('o-{from}-{to}.csv', values)).toBe('o-2026-11-23T0005-2026-11-24T0030.csv');
    expect(feedFileName('o-{from}.csv', { ...values, from: null })).toBe('o-start.csv');
    expect(() => feedFileName('o-{day}.csv', values)).toThrow(/\{day\}/);
  });

  it('numbers the parts of a split profile export and formats invoice dates', () => {
    expect([1, 2, 3].map((n) => partPath('/x/xero.csv', n))).toEqual([
      '/x/xero.csv',
      '/x/xero-2.csv',
      '/x/xero-3.csv',
    ]);
    expect(formatInvoiceDate('2026-01-05', 'DD/MM/YYYY')).toBe('05/01/2026');
    expect(formatInvoiceDate('2026-01-05', 'MM/DD/YYYY')).toBe('01/05/2026');
  });
});
