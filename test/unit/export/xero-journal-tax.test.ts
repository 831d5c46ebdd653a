import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { exportOrders } from '../../../src/export/export-orders.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { taxAndTotal } from '../../../src/sandbox/order-money.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';
import { fromArray } from './order-factory.js';

/**
 * Issue 39: Xero's manual journals carry the store's tax rate on the lines its tax covers, so Xero
 * computes the VAT and its VAT return sees the sales by rate. The file is read back here as Xero
 * reads it, on its own: each line's Amount is before tax, and Xero adds the line's tax at its
 * TaxRate (rounded half away from zero) to its VAT account; a journal must balance with that tax.
 */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-xero-journal-tax-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RATE = '20% (VAT on Income)';
const halfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));
const minor = (v: string | undefined): number =>
  v === undefined || v === '' ? 0 : Math.round(Number(v) * 100);

/** A generated UK store, every other order with a tip (and every fourth its service charge) outside the VAT. */
function ukStore(): StoreSnapshot {
  const snap = generateStore({ country: 'GB', currency: 'GBP', orders: 600, seed: 391 });
  let k = 0;
  snap.orders = snap.orders.map((o) => {
    if (o.tip_amount === 0 && o.service_charge_amount === 0) return o;
    if (++k % 2 === 0) return o;
    const out = o.tip_amount + (k % 4 === 1 ? o.service_charge_amount : 0);
    const { tax } = taxAndTotal(o.total_before_tax - out, snap.me.tax);
    return { ...o, tax_amount: tax };
  });
  return snap;
}

interface Row {
  journal: string;
  description: string;
  account: string;
  rate: string;
  amount: number;
}

describe('xero-journal: the store tax rate on the lines, Xero computes the VAT', () => {
  it("every journal balances with Xero's VAT; its VAT is the store's to the penny; lines outside the VAT at No VAT", async () => {
    const snap = ukStore();
    const path = join(dir, 'journal.csv');
    await exportOrders({
      orders: fromArray(snap.orders),
      store: snap.me,
      path,
      format: 'csv',
      accounting: { profile: 'xero', journal: 'day', accounts: 'payment=090,payment.card=091' },
    });
    const rows: Row[] = [];
    for (const f of readdirSync(dir).filter((x) => /^journal(-part\d+)?\.csv$/.test(x))) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text.split(/\r?\n/)[0]).toBe(
        '*Narration,*Date,Description,*AccountCode,*TaxRate,*Amount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2',
      );
      for (const r of Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data)
        rows.push({
          journal: `${r['*Narration']}|${r['*Date']}`,
          description: r['Description'] ?? '',
          account: r['*AccountCode'] ?? '',
          rate: r['*TaxRate'] ?? '',
          amount: minor(r['*Amount']),
        });
    }
    // Xero's arithmetic: a line at 20% gets 20% of its amount as VAT; No VAT none.
    const vat = (r: Row): number => (r.rate === RATE ? halfAway((r.amount * 20) / 100) : 0);
    expect(new Set(rows.map((r) => r.rate))).toEqual(new Set([RATE, 'No VAT']));
    const journals = new Map<string, Row[]>();
    for (const r of rows) journals.set(r.journal, [...(journals.get(r.journal) ?? []), r]);
    expect(journals.size).toBeGreaterThan(10);
    for (const [name, js] of journals)
      expect(
        js.reduce((s, r) => s + r.amount + vat(r), 0),
        name,
      ).toBe(0);

    // The VAT Xero computes over every journal is the VAT the store charged on the orders posted.
    const paid = snap.orders.filter(
      (o: Order) =>
        o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft',
    );
    const storeVat = paid.reduce((s, o) => s + o.tax_amount, 0);
    expect(-rows.reduce((s, r) => s + vat(r), 0)).toBe(storeVat);
    // No line of its own for the tax: Xero posts it.
    expect(rows.filter((r) => /^Tax \d/.test(r.description))).toEqual([]);
    // Sales net of VAT, plus the VAT, are what the customers paid.
    const payments = rows.filter((r) => r.description.startsWith('Payments: '));
    expect(payments.reduce((s, r) => s + r.amount, 0)).toBe(paid.reduce((s, o) => s + o.total_amount, 0));
    // Tips outside the store's VAT are at No VAT; shipping and discounts the VAT covers at 20%.
    expect(rows.some((r) => r.description === 'Tips, no tax' && r.rate === 'No VAT')).toBe(true);
    for (const r of rows.filter((x) => / at 20%$/.test(x.description))) expect(r.rate).toBe(RATE);
    expect(rows.some((r) => r.description === 'Shipping at 20%')).toBe(true);
    expect(rows.some((r) => r.description === 'Discounts at 20%' && r.amount > 0)).toBe(true);
    // The pennies Xero's rounding would lose are on Tax rounding lines at No VAT, a few a journal.
    const rounding = rows.filter((r) => r.description === 'Tax rounding');
    expect(rounding.length).toBeGreaterThan(0);
    for (const r of rounding) {
      expect(r.rate).toBe('No VAT');
      expect(Math.abs(r.amount)).toBeLessThan(100);
    }
  });
});
