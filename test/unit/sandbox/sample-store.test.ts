import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FULFILLMENT_STATUSES,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  StoreSnapshot,
  currencyDecimals,
  templateVariables,
} from '../../../src/schema/index.js';
import { orderTotalProblems } from './order-total-problems.js';
import { snapshotProblems } from './snapshot-problems.js';

/**
 * samples/store.json: the README demo's seed store. It is consistent everywhere except for
 * deliberate traps that the exports must catch or neutralise.
 */
const INCONSISTENT_ORDER = { id: 'ord_00000010', number: '1036' }; // items_amount != Σ line totals
const FORMULA_ORDER = { id: 'ord_0000000l', number: '1021' }; // remark is a spreadsheet formula
const LEADING_ZERO_SKU = '000123';

const raw: unknown = JSON.parse(
  readFileSync(new URL('../../../samples/store.json', import.meta.url), 'utf8'),
);
const sample = StoreSnapshot.parse(raw);

describe('samples/store.json', () => {
  it('parses with StoreSnapshot and has the advertised shape', () => {
    expect(sample.me.currency).toBe('MYR');
    expect(currencyDecimals(sample.me.currency)).toBe(2);
    expect(sample.me.country).toBe('MY');
    expect(sample.me.timezone).toBe('Asia/Kuala_Lumpur');
    expect(sample.products).toHaveLength(20);
    expect(sample.customers).toHaveLength(30);
    expect(sample.orders).toHaveLength(50);
  });

  it('is internally consistent: unique ids, skus and item ids; inventory rules; line references', () => {
    expect(snapshotProblems(sample)).toEqual([]);
    expect(new Set(sample.products.map((p) => p.name)).size).toBe(sample.products.length);
  });

  it('has realistic catalog data: variants, options, images, categories, skus like TEE-BLK-M', () => {
    const skus = sample.products.flatMap((p) => [p.sku, ...p.variants.map((v) => v.sku)]);
    expect(skus).toContain('TEE-BLK-M');
    expect(skus).toContain(LEADING_ZERO_SKU);
    expect(sample.products.filter((p) => p.variants.length > 0).length).toBeGreaterThanOrEqual(15);
    expect(sample.products.some((p) => p.variants.length === 0)).toBe(true);
    expect(sample.products.some((p) => p.options.some((o) => o.type === 'OPTION_SELECTION'))).toBe(true);
    expect(sample.products.some((p) => p.options.some((o) => o.type === 'OPTION_TEXT'))).toBe(true);
    expect(sample.products.some((p) => p.images.length >= 2)).toBe(true);
    expect(sample.products.some((p) => p.category_ids.length === 0)).toBe(true);
    expect(new Set(sample.products.flatMap((p) => p.category_ids)).size).toBeGreaterThan(5);
    expect(sample.customers.every((c) => /^[0-9]+$/.test(c.phone))).toBe(true);
    expect(sample.customers.filter((c) => c.address !== null).length).toBeGreaterThan(20);
  });

  it('adds up every order except the one deliberately inconsistent order', () => {
    const failing = sample.orders.filter((o) => orderTotalProblems(o, sample.me.tax, true).length > 0);
    expect(failing.map((o) => o.id)).toEqual([INCONSISTENT_ORDER.id]);
    const bad = failing[0];
    if (bad === undefined) throw new Error('unreachable');
    expect(bad.number).toBe(INCONSISTENT_ORDER.number);
    const lineSum = bad.line_items.reduce((s, l) => s + l.total_amount, 0);
    expect(bad.items_amount).not.toBe(lineSum);
    // Only the line sum is off: each line and the header formula are self-consistent.
    expect(bad.line_items.every((l) => l.total_amount === l.price * l.quantity)).toBe(true);
    expect(orderTotalProblems(bad, sample.me.tax, true).every((p) => p.startsWith('items_'))).toBe(true);
  });

  it('covers every order, payment and fulfillment status', () => {
    expect(new Set(sample.orders.map((o) => o.order_status))).toEqual(new Set(ORDER_STATUSES));
    expect(new Set(sample.orders.map((o) => o.payment_status))).toEqual(new Set(PAYMENT_STATUSES));
    expect(new Set(sample.orders.map((o) => o.fulfillment_status))).toEqual(new Set(FULFILLMENT_STATUSES));
  });

  it('contains the formula remark that exports must neutralise', () => {
    const order = sample.orders.find((o) => o.id === FORMULA_ORDER.id);
    expect(order?.number).toBe(FORMULA_ORDER.number);
    expect(order?.remark).toBe('=HYPERLINK("http://x","y")');
  });

  it('has approved, pending and rejected templates; order_update takes name and order_number', () => {
    const byName = new Map(sample.templates.map((t) => [t.name, t]));
    const orderUpdate = byName.get('order_update');
    expect(orderUpdate?.status).toBe('APPROVED');
    expect(orderUpdate?.body).toContain('{{name}}');
    expect(orderUpdate?.body).toContain('{{order_number}}');
    const statuses = new Set(sample.templates.map((t) => t.status));
    for (const s of ['APPROVED', 'PENDING', 'REJECTED'] as const) expect(statuses.has(s)).toBe(true);
    for (const t of sample.templates) {
      expect(t.parameters).toEqual(templateVariables(t.body));
      expect(t.status === 'REJECTED').toBe(t.rejected_reason !== null);
    }
  });
});
