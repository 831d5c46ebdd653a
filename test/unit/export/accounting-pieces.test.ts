import { describe, expect, it } from 'vitest';
import { formatInvoiceDate, partPath } from '../../../src/export/accounting-profile.js';
import { feedFileName } from '../../../src/export/feed-file-name.js';
import { invoiceLines, LINE_ACCOUNT, type InvoiceLine } from '../../../src/export/invoice-lines.js';
import type { TaxPolicy } from '../../../src/export/accounting-tax.js';
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
  const exclusive: TaxPolicy = {
    mode: 'exclusive',
    percent: 10,
    taxed: '10% Sales',
    zero: 'No tax',
    computation: 'line',
  };
  const inclusive: TaxPolicy = { ...exclusive, mode: 'inclusive' };
  const lineMode: TaxPolicy = {
    mode: 'line',
    percent: 10,
    taxed: 'No tax',
    zero: 'No tax',
    computation: 'line',
  };
  /** Each line's quantity × unit amount is its amount; the total as the program computes it. */
  const programTotal = (lines: InvoiceLine[], policy: TaxPolicy): number =>
    lines.reduce((s, l) => {
      expect(l.quantity * l.unitAmount).toBe(l.amount);
      return s + l.amount + (policy.mode === 'exclusive' ? l.tax : 0);
    }, 0);

  it('prices excluding tax: net lines at the store rate, never a tax line; the program total is the order total', () => {
    const order = makeOrder({
      lines: [{ price: 335, quantity: 3 }, { price: 1995 }],
      discounts: [150, 49],
      answers: 120,
      service: 500,
      serviceCharge: 210,
      tip: 300,
      adjustment: -7,
      tax: 392, // 10% of 3,924
    });
    const lines = invoiceLines(order, STORE, exclusive);
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
      'rounding',
    ]);
    expect(lines[0]).toMatchObject({ quantity: 3, unitAmount: 335, amount: 1005, taxed: true, tax: 101 });
    // Per-line tax (100.5 → 101, 199.5 → 200, …) would differ from the order's tax on the sum: a
    // unit moves from the largest single taxed line to the rounding line (no tax), so the tax the
    // program computes is the order's and the invoice's total too (issue 39).
    const rounding = lines.at(-1) as InvoiceLine;
    expect(rounding).toMatchObject({ taxed: false, tax: 0 });
    expect(Math.abs(rounding.amount)).toBeLessThan(10);
    expect(lines.reduce((s, l) => s + l.tax, 0)).toBe(order.tax_amount);
    expect(lines.reduce((s, l) => s + l.amount, 0)).toBe(order.total_before_tax);
    expect(programTotal(lines, exclusive)).toBe(order.total_amount);
    expect(LINE_ACCOUNT.tip).toBe('tips');
    expect(lines.filter((l) => LINE_ACCOUNT[l.kind] === 'sales').map((l) => l.kind)).toEqual([
      'item',
      'item',
      'answers',
    ]);
  });

  it('prices including tax: the amounts paid, the tax contained; a line that does not divide is 1 × total', () => {
    const order = makeOrder({ lines: [{ price: 100, quantity: 3 }], tax: 27, taxInclusive: true });
    order.line_items[0]!.total_amount = 301; // an option priced once per line
    order.items_amount = 301;
    order.total_before_tax = 301;
    order.total_amount = 301;
    const lines = invoiceLines(order, { ...STORE, tax: { inclusive: true, percent: 10 } }, inclusive);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ quantity: 1, unitAmount: 301, taxed: true, tax: 27 });
    expect(lines[0]?.description).toContain('× 3');
    expect(programTotal(lines, inclusive)).toBe(301);
  });

  it('with tax=ACCOUNT: net lines with no tax and the tax as a line of its own', () => {
    const order = makeOrder({ lines: [{ price: 1000, quantity: 2 }, { price: 550 }], tax: 255 });
    const lines = invoiceLines(order, STORE, lineMode);
    expect(lines.map((l) => l.kind)).toEqual(['item', 'item', 'tax']);
    expect(lines.every((l) => !l.taxed && l.tax === 0)).toBe(true);
    expect(lines.at(-1)?.amount).toBe(order.tax_amount);
    expect(programTotal(lines, lineMode)).toBe(order.total_amount);
    // Prices including tax: the net of each line, the tax line, and the rounding between them.
    const incl = makeOrder({
      lines: [{ price: 1099, quantity: 3 }, { price: 505 }],
      taxInclusive: true,
      tax: 346,
    });
    const inclLines = invoiceLines(incl, { ...STORE, tax: { inclusive: true, percent: 10 } }, lineMode);
    expect(inclLines.find((l) => l.kind === 'tax')?.amount).toBe(346);
    expect(programTotal(inclLines, lineMode)).toBe(incl.total_amount);
  });

  it("carries what the order's own figures do not explain on a difference line", () => {
    const order = makeOrder({ lines: [{ price: 1000 }] });
    order.total_amount += 5;
    const lines = invoiceLines(order, STORE, exclusive);
    expect(lines.at(-1)).toMatchObject({ kind: 'difference', amount: 5, taxed: false });
    expect(programTotal(lines, exclusive)).toBe(order.total_amount);
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
      '/x/xero-part2.csv',
      '/x/xero-part3.csv',
    ]);
    expect(formatInvoiceDate('2026-01-05', 'DD/MM/YYYY')).toBe('05/01/2026');
    expect(formatInvoiceDate('2026-01-05', 'MM/DD/YYYY')).toBe('01/05/2026');
  });
});
