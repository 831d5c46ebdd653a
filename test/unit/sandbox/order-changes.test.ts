import { describe, expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import type { Order } from '../../../src/schema/index.js';

/** The admin routes that change orders over time (refund, cancel, clock), as a store would. */
describe('sandbox order changes', () => {
  const snapshot = generateStore({ products: 10, customers: 5, orders: 40, seed: 3 });
  const paidWith = (min: number) =>
    snapshot.orders.find(
      (o) =>
        o.payment_status === 'paid' &&
        o.order_status !== 'cancelled' &&
        o.line_items.some((l) => l.quantity >= min),
    ) as Order;

  it('a partial refund takes units off a line and works the money out again; the order stays paid', () => {
    const store = new SandboxStore({ state: structuredClone(snapshot) });
    const order = paidWith(2);
    const line = order.line_items.find((l) => l.quantity >= 2) as Order['line_items'][number];
    store.setClock({ now: '2030-01-02T10:00:00Z' });
    const after = store.refundOrder(order.id, { line_items: [{ id: line.id, quantity: 1 }] });
    expect(after.payment_status).toBe('paid');
    expect(after.line_items.find((l) => l.id === line.id)?.quantity).toBe(line.quantity - 1);
    expect(after.items_amount).toBe(order.items_amount - line.price);
    const { percent, inclusive } = snapshot.me.tax;
    const tax = inclusive
      ? Math.round((after.total_before_tax * percent) / (100 + percent))
      : Math.round((after.total_before_tax * percent) / 100);
    expect(after.tax_amount).toBe(tax);
    expect(after.total_amount).toBe(inclusive ? after.total_before_tax : after.total_before_tax + tax);
    expect(after.total_amount).toBeLessThan(order.total_amount);
    // Stamped by the moved clock, after it.
    expect(after.updated_at > '2030-01-02T10:00:00.000Z').toBe(true);
  });

  it('a full refund and a cancellation change the statuses only; wrong requests change nothing', () => {
    const store = new SandboxStore({ state: structuredClone(snapshot) });
    const order = paidWith(1);
    expect(() => store.refundOrder(order.id, { line_items: [{ id: 'nope', quantity: 1 }] })).toThrow(
      /no line nope/,
    );
    expect(() =>
      store.refundOrder(order.id, { line_items: [{ id: order.line_items[0]?.id, quantity: 999 }] }),
    ).toThrow(/quantity/);
    const full = store.refundOrder(order.id, {});
    expect(full).toMatchObject({ payment_status: 'refunded', total_amount: order.total_amount });
    expect(() => store.refundOrder(order.id, {})).toThrow(/not paid/);
    const other = snapshot.orders.find((o) => o.id !== order.id && o.payment_status === 'paid') as Order;
    expect(store.cancelOrder(other.id)).toMatchObject({
      order_status: 'cancelled',
      payment_status: 'refunded',
    });
    expect(() => store.setClock({ now: 'tomorrow' })).toThrow(/ISO 8601/);
    // The clock never goes back.
    expect(store.setClock({ now: '2000-01-01T00:00:00Z' }).now > '2026-01-01').toBe(true);
  });
});
