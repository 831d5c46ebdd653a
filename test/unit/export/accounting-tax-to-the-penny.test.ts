import { describe, expect, it } from 'vitest';
import { EMPTY_ACCOUNTS } from '../../../src/export/accounting-accounts.js';
import { taxPolicy } from '../../../src/export/accounting-tax.js';
import { invoiceLines, type InvoiceLine } from '../../../src/export/invoice-lines.js';
import { inferTaxedBase } from '../../../src/export/taxed-base.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { taxAndTotal } from '../../../src/sandbox/order-money.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';

/**
 * Issue 39: the tax Xero and QuickBooks Online compute from a profile file is the tax the store
 * charged, order by order, to the penny. The programs' arithmetic is written out here on its own:
 * Xero takes each taxed line's tax and rounds it (half away from zero), then sums; QuickBooks Online
 * US applies the rate to the taxable subtotal and rounds once.
 */
const halfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));
const xeroTax = (lines: InvoiceLine[], p: number, inclusive: boolean): number =>
  lines
    .filter((l) => l.taxed)
    .reduce((s, l) => s + halfAway((l.amount * p) / (inclusive ? 100 + p : 100)), 0);
const quickbooksUsTax = (lines: InvoiceLine[], p: number): number =>
  halfAway((lines.filter((l) => l.taxed).reduce((s, l) => s + l.amount, 0) * p) / 100);

/** Orders of a generated store, some of them with tips (and service charges) outside the tax. */
function storeWithUntaxedParts(country: string, currency: string): StoreSnapshot {
  const snap = generateStore({ country, currency, orders: 600, seed: 39 });
  let k = 0;
  snap.orders = snap.orders.map((o) => {
    if (o.tip_amount === 0 && o.service_charge_amount === 0) return o;
    k++;
    // Every other such order: the store's tax leaves the tip (and every fourth the service charge) out.
    if (k % 2 === 0) return o;
    const out = o.tip_amount + (k % 4 === 1 ? o.service_charge_amount : 0);
    const { tax } = taxAndTotal(o.total_before_tax - out, snap.me.tax);
    const total = snap.me.tax.inclusive ? o.total_before_tax : o.total_before_tax + tax;
    return { ...o, tax_amount: tax, total_amount: total };
  });
  return snap;
}

const revenue = (o: Order): boolean => o.order_status !== 'cancelled' && o.order_status !== 'draft';

describe('tax the program computes = tax the store charged, on every order', () => {
  it('UK, prices including 20% VAT, through Xero', () => {
    const snap = storeWithUntaxedParts('GB', 'GBP');
    const store = snap.me;
    expect(store.tax).toEqual({ inclusive: true, percent: 20 });
    const policy = taxPolicy(store, 'xero', {}, EMPTY_ACCOUNTS);
    let checked = 0;
    let untaxedTips = 0;
    for (const o of snap.orders.filter(revenue)) {
      const lines = invoiceLines(o, store, policy);
      expect(xeroTax(lines, 20, true), o.id).toBe(o.tax_amount);
      expect(
        lines.reduce((s, l) => s + l.amount, 0),
        o.id,
      ).toBe(o.total_amount);
      // Lines outside the tax carry the no-tax rate; the difference and rounding lines never tax.
      for (const l of lines.filter((x) => !x.taxed)) expect(l.tax).toBe(0);
      for (const l of lines.filter((x) => x.kind === 'difference' || x.kind === 'rounding'))
        expect(l.taxed).toBe(false);
      if (lines.some((l) => l.kind === 'tip' && !l.taxed)) untaxedTips++;
      checked++;
    }
    expect(checked).toBeGreaterThan(300);
    expect(untaxedTips).toBeGreaterThan(5);
  });

  it('US, prices excluding 8.875% sales tax, through QuickBooks Online (on the subtotal) and Xero (per line)', () => {
    const snap = storeWithUntaxedParts('US', 'USD');
    const store = snap.me;
    expect(store.tax).toEqual({ inclusive: false, percent: 8.875 });
    const qb = taxPolicy(store, 'quickbooks', {}, EMPTY_ACCOUNTS);
    const xero = taxPolicy(store, 'xero', { taxType: 'Sales Tax' }, EMPTY_ACCOUNTS);
    let checked = 0;
    for (const o of snap.orders.filter(revenue)) {
      const q = invoiceLines(o, store, qb);
      expect(quickbooksUsTax(q, 8.875), o.id).toBe(o.tax_amount);
      expect(q.reduce((s, l) => s + l.amount, 0) + o.tax_amount, o.id).toBe(o.total_amount);
      const x = invoiceLines(o, store, xero);
      expect(xeroTax(x, 8.875, false), o.id).toBe(o.tax_amount);
      expect(x.reduce((s, l) => s + l.amount, 0) + o.tax_amount, o.id).toBe(o.total_amount);
      checked++;
    }
    expect(checked).toBeGreaterThan(300);
  });

  it("infers the taxed base from the order's figures, tips left out first", () => {
    const snap = generateStore({ country: 'GB', currency: 'GBP', orders: 200, seed: 7 });
    const o = snap.orders.find((x) => x.tip_amount > 50);
    if (!o) throw new Error('no order with a tip');
    const tax = snap.me.tax;
    // The sandbox leaves tips outside its tax: the tip is left out of the base, nothing else.
    expect([...inferTaxedBase(o, tax)].sort()).toEqual(
      ['adjustment', 'answers', 'items', 'service', 'service_charge'].sort(),
    );
    // An order whose tax covered its tip: every part.
    const withTip = { ...o, tax_amount: taxAndTotal(o.total_before_tax, tax).tax };
    expect([...inferTaxedBase(withTip, tax)].sort()).toEqual(
      ['adjustment', 'answers', 'items', 'service', 'service_charge', 'tip'].sort(),
    );
    // A tip too small to change the tax: taken as outside it (both sets explain the tax).
    const small = { ...o, tip_amount: 1, total_before_tax: o.total_before_tax - o.tip_amount + 1 };
    const smallTax = { ...small, tax_amount: taxAndTotal(small.total_before_tax - 1, tax).tax };
    expect(taxAndTotal(smallTax.total_before_tax, tax).tax).toBe(smallTax.tax_amount);
    expect(inferTaxedBase(smallTax, tax).has('tip')).toBe(false);
    expect(inferTaxedBase(smallTax, tax).has('items')).toBe(true);
    const none = { ...o, tax_amount: 0 };
    expect(inferTaxedBase(none, tax).has('items')).toBe(false);
  });
});
