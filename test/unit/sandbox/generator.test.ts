import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { SANDBOX_IMAGE_BASE, generateStore } from '../../../src/sandbox/generator.js';
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

describe('generateStore', () => {
  it('is deterministic: same options and seed give byte-identical JSON', () => {
    const opts = { products: 60, customers: 40, orders: 90, seed: 7 };
    const a = JSON.stringify(generateStore(opts));
    const b = JSON.stringify(generateStore(opts));
    expect(a === b).toBe(true);
    expect(JSON.stringify(generateStore({ ...opts, seed: 8 })) === a).toBe(false);
  });

  it('keeps products and customers unchanged when only the order count changes', () => {
    const a = generateStore({ products: 30, customers: 20, orders: 10, seed: 3 });
    const b = generateStore({ products: 30, customers: 20, orders: 200, seed: 3 });
    expect(JSON.stringify(b.products) === JSON.stringify(a.products)).toBe(true);
    expect(JSON.stringify(b.customers) === JSON.stringify(a.customers)).toBe(true);
    expect(JSON.stringify(b.templates) === JSON.stringify(a.templates)).toBe(true);
  });

  it('produces objects valid against the snapshot schema (several seeds and currencies)', () => {
    for (const opts of [
      { products: 300, customers: 200, orders: 300, seed: 1 },
      { products: 50, customers: 30, orders: 60, seed: 99, currency: 'JPY', country: 'GB' },
      { products: 50, customers: 30, orders: 60, seed: 5, currency: 'KWD', country: 'ID' },
    ]) {
      const result = StoreSnapshot.safeParse(generateStore(opts));
      expect(result.error?.issues.slice(0, 3) ?? []).toEqual([]);
    }
  });

  it('is internally consistent: unique ids/skus/item ids, inventory rules, line references', () => {
    const s = generateStore({ products: 1500, customers: 300, orders: 1500, seed: 11 });
    expect(snapshotProblems(s)).toEqual([]);
  });

  it('adds up every order total (exclusive and inclusive tax stores)', () => {
    for (const country of ['MY', 'GB']) {
      const s = generateStore({ products: 200, customers: 100, orders: 2000, seed: 4, country });
      expect(s.me.tax.inclusive).toBe(country === 'GB');
      const bad = s.orders.flatMap((o) => orderTotalProblems(o, s.me.tax).map((p) => `${o.id}: ${p}`));
      expect(bad).toEqual([]);
      // Every money component shows up somewhere, so the formula is exercised, not just zeros.
      for (const key of [
        'answers_amount',
        'discounts_amount',
        'service_amount',
        'service_charge_amount',
        'tip_amount',
        'adjustment_amount',
        'tax_amount',
      ] as const) {
        expect(s.orders.some((o) => o[key] !== 0)).toBe(true);
      }
      expect(s.orders.some((o) => o.adjustment_amount < 0)).toBe(true);
    }
  });

  it("leaves tips outside the store's tax (the sandbox's rule), or not with tipsInTax", () => {
    for (const country of ['MY', 'GB']) {
      const opts = { products: 50, customers: 50, orders: 600, seed: 5, country };
      const out = generateStore(opts);
      const tipped = out.orders.filter((o) => o.tip_amount > 0);
      expect(tipped.length).toBeGreaterThan(20);
      const p = out.me.tax.percent;
      const taxOn = (base: number): number => Math.round((base * p) / (out.me.tax.inclusive ? 100 + p : 100));
      for (const o of tipped) expect(o.tax_amount, o.id).toBe(taxOn(o.total_before_tax - o.tip_amount));
      const within = generateStore({ ...opts, tipsInTax: true });
      for (const o of within.orders) expect(orderTotalProblems(o, within.me.tax, true), o.id).toEqual([]);
      expect(
        within.orders
          .filter((o) => o.tip_amount > 0)
          .some((o) => o.tax_amount !== taxOn(o.total_before_tax - o.tip_amount)),
      ).toBe(true);
    }
  });

  it('averages about 3 variants per product, some products having none', () => {
    const s = generateStore({ products: 3000, customers: 0, orders: 0, seed: 21 });
    const variants = s.products.reduce((n, p) => n + p.variants.length, 0);
    expect(variants / s.products.length).toBeGreaterThan(2.8);
    expect(variants / s.products.length).toBeLessThan(3.3);
    const single = s.products.filter((p) => p.variants.length === 0);
    expect(single.length).toBeGreaterThan(200);
    expect(single.every((p) => p.inventory?.item_type === 'product')).toBe(true);
  });

  it('generates the catalog features the importers must handle', () => {
    const s = generateStore({ products: 2000, customers: 0, orders: 0, seed: 2 });
    const ps = s.products;
    expect(ps.some((p) => /^0\d{5}$/.test(p.sku))).toBe(true); // leading zeros
    expect(ps.some((p) => p.variants.some((v) => v.sku?.startsWith('0')))).toBe(true);
    expect(ps.filter((p) => p.reference_id !== null).length / ps.length).toBeGreaterThan(0.75);
    expect(new Set(ps.map((p) => p.status))).toEqual(new Set(['VISIBLE', 'HIDDEN']));
    expect(ps.some((p) => p.category_ids.length === 0)).toBe(true);
    expect(ps.some((p) => p.category_ids.length > 1)).toBe(true);
    expect(ps.some((p) => p.tags.length > 0)).toBe(true);
    expect(ps.some((p) => p.soldout)).toBe(true);
    expect(ps.some((p) => p.original_price > p.price)).toBe(true);
    const options = ps.flatMap((p) => p.options);
    const types = new Set(options.map((o) => o.type));
    for (const t of ['OPTION_SELECTION', 'OPTION_TEXT', 'OPTION_DATE'])
      expect(types.has(t as never)).toBe(true);
    for (const o of options.filter((o) => o.type === 'OPTION_SELECTION')) {
      const settings = o.settings as { options: { text: string; id: string; price: number }[] };
      expect(settings.options.length).toBeGreaterThan(0);
      expect(settings.options.every((c) => typeof c.id === 'string' && Number.isInteger(c.price))).toBe(true);
    }
    const counts = new Set(ps.map((p) => p.images.length));
    expect(counts).toEqual(new Set([0, 1, 2, 3, 4]));
    const images = ps.flatMap((p) => p.images);
    expect(images.every((u) => u.startsWith(SANDBOX_IMAGE_BASE) && u.endsWith('.png'))).toBe(true);
    expect(new Set(images).size).toBe(images.length);
    expect(images.some((u) => new URL(u).hostname.endsWith('.invalid'))).toBe(false);
  });

  it('covers every order, payment and fulfillment status once there are enough orders', () => {
    const s = generateStore({ products: 20, customers: 10, orders: 12, seed: 5 });
    expect(new Set(s.orders.map((o) => o.order_status))).toEqual(new Set(ORDER_STATUSES));
    expect(new Set(s.orders.map((o) => o.payment_status))).toEqual(new Set(PAYMENT_STATUSES));
    expect(new Set(s.orders.map((o) => o.fulfillment_status))).toEqual(new Set(FULFILLMENT_STATUSES));
  });

  it('writes orders with raw counter numbers, embedded customers and creation order', () => {
    const s = generateStore({ products: 50, customers: 40, orders: 300, seed: 6 });
    expect(s.orders.map((o) => o.number)).toEqual(s.orders.map((_, i) => String(1001 + i)));
    const customers = new Map(s.customers.map((c) => [c.id, c]));
    for (const o of s.orders) expect(o.customer).toEqual(customers.get(o.customer.id));
    for (const list of [s.products, s.customers, s.orders]) {
      const created = list.map((x) => x.created_at);
      expect(created).toEqual([...created].sort());
    }
    // Orders come after the catalog and the customers.
    const lastProduct = s.products.at(-1)?.created_at ?? '';
    expect(s.orders.every((o) => o.created_at > lastProduct)).toBe(true);
    expect(s.orders.some((o) => o.line_items.some((l) => l.options.length > 0))).toBe(true);
    expect(s.orders.some((o) => o.attribution !== null && o.schedule !== null)).toBe(true);
  });

  it('gives customers valid digits-only phones of several countries and full addresses', () => {
    const s = generateStore({ products: 0, customers: 1500, orders: 0, seed: 9 });
    const countries = new Set<string>();
    for (const c of s.customers) {
      expect(c.phone).toMatch(/^[1-9][0-9]{7,14}$/);
      const parsed = parsePhoneNumberFromString(`+${c.phone}`);
      expect(parsed?.isValid(), c.phone).toBe(true);
      if (parsed?.country) countries.add(parsed.country);
      if (c.address) {
        expect(Object.keys(c.address).sort()).toEqual([
          'address1',
          'address2',
          'city',
          'country',
          'district',
          'latitude',
          'longitude',
          'state',
          'zip',
        ]);
        expect(parsed?.country).toBe(c.address.country);
      }
    }
    expect(countries.size).toBeGreaterThanOrEqual(6);
    expect(s.customers.some((c) => c.email === null)).toBe(true);
    expect(s.customers.some((c) => c.address === null)).toBe(true);
    expect(new Set(s.customers.map((c) => c.email).filter((e) => e !== null)).size).toBe(
      s.customers.filter((c) => c.email !== null).length,
    );
  });

  it('includes approved, pending and rejected templates with their parameters', () => {
    const { templates } = generateStore({ products: 1, customers: 1, orders: 1 });
    const byStatus = (status: string) => templates.filter((t) => t.status === status);
    const orderUpdate = templates.find((t) => t.name === 'order_update');
    expect(orderUpdate?.status).toBe('APPROVED');
    expect(orderUpdate?.parameters).toEqual(['name', 'order_number']);
    expect(byStatus('PENDING').length).toBeGreaterThan(0);
    expect(byStatus('REJECTED').every((t) => (t.rejected_reason ?? '').length > 0)).toBe(true);
    expect(byStatus('REJECTED').length).toBeGreaterThan(0);
    for (const t of templates) expect(t.parameters).toEqual(templateVariables(t.body));
  });

  it('scales money to the currency decimals and handles empty stores', () => {
    const jpy = generateStore({ products: 50, customers: 5, orders: 20, currency: 'JPY', seed: 1 });
    expect(currencyDecimals('JPY')).toBe(0);
    expect(jpy.products.every((p) => Number.isInteger(p.price) && p.price > 0)).toBe(true);
    const empty = generateStore({ products: 0, customers: 0, orders: 5 });
    expect(StoreSnapshot.safeParse(empty).success).toBe(true);
    expect(empty.orders.every((o) => o.line_items.length === 0 && o.total_amount >= 0)).toBe(true);
    expect(() => generateStore({ products: -1 })).toThrow(RangeError);
  });

  it('does not read the clock: `now` anchors every timestamp', () => {
    const s = generateStore({ products: 20, customers: 20, orders: 20, now: '2030-01-01T00:00:00Z' });
    const all = [...s.products, ...s.customers, ...s.orders].flatMap((x) => [x.created_at, x.updated_at]);
    expect(all.every((t) => t < '2030-01-01T00:00:00Z' && t > '2027-12-01')).toBe(true);
    // The fast timestamp formatter agrees with Date#toISOString.
    expect(all.filter((t) => new Date(t).toISOString() !== t)).toEqual([]);
  });
});
