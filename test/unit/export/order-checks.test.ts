import { describe, expect, it } from 'vitest';
import { checkRow, orderChecks } from '../../../src/export/order-checks.js';
import { makeOrder, STORE } from './order-factory.js';

const full = () =>
  makeOrder({
    discounts: [300],
    answers: 100,
    service: 500,
    serviceCharge: 50,
    tip: 200,
    adjustment: -25,
    tax: 250,
  });

describe('orderChecks', () => {
  it('finds nothing wrong in a consistent order', () => {
    expect(orderChecks(full(), STORE)).toEqual([]);
    expect(orderChecks(full())).toEqual([]);
  });

  it('reports items_amount against the sum of line totals, with the difference', () => {
    const order = full();
    order.items_amount += 150;
    const checks = orderChecks(order, STORE);
    const items = checks.find((c) => c.code === 'items_amount');
    expect(items).toMatchObject({ stated: 2700, computed: 2550, difference: 150, unit: 'money' });
    // The raised items_amount no longer matches total_before_tax either: shown, not hidden.
    expect(checks.map((c) => c.code)).toContain('total_before_tax');
  });

  it('reports quantities, discounts and the before-tax formula', () => {
    const order = full();
    order.items_quantity = 99;
    order.discounts_amount = 301;
    const codes = orderChecks(order, STORE).map((c) => c.code);
    expect(codes).toEqual(expect.arrayContaining(['items_quantity', 'discounts_amount', 'total_before_tax']));
    const qty = orderChecks(order, STORE).find((c) => c.code === 'items_quantity');
    expect(qty).toMatchObject({ stated: 99, computed: 3, difference: 96, unit: 'quantity' });
  });

  it('checks total_amount with the store tax rule, or accepts either rule without a store', () => {
    const exclusive = full();
    const inclusive = makeOrder({ tax: 250, taxInclusive: true });
    const incStore = { ...STORE, tax: { inclusive: true, percent: 10 } };
    expect(orderChecks(exclusive, STORE)).toEqual([]);
    expect(orderChecks(inclusive, incStore)).toEqual([]);
    expect(orderChecks(inclusive, STORE).map((c) => c.code)).toEqual(['total_amount']);
    expect(orderChecks(exclusive, incStore)).toMatchObject([{ code: 'total_amount', difference: 250 }]);
    expect(orderChecks(inclusive)).toEqual([]);
    const wrong = full();
    wrong.total_amount += 1;
    expect(orderChecks(wrong).map((c) => c.code)).toEqual(['total_amount']);
  });

  it('reports fractional money, amounts with no lines to carry them, and a foreign currency', () => {
    const order = full();
    order.tip_amount += 0.5;
    order.total_before_tax += 0.5;
    order.total_amount += 0.5;
    expect(orderChecks(order, STORE).map((c) => c.code)).toContain('amount_not_integer');
    expect(orderChecks(makeOrder({ lines: [], tip: 100 }), STORE).map((c) => c.code)).toContain(
      'no_lines_to_allocate',
    );
    const foreign = full();
    foreign.currency = 'EUR';
    expect(orderChecks(foreign, STORE).map((c) => c.code)).toEqual(['currency_mismatch']);
  });

  it('turns a check into a checks-sheet row with money and quantity in separate columns', () => {
    const order = full();
    order.items_amount += 150;
    const [first] = orderChecks(order, STORE);
    expect(checkRow(order, first!)).toMatchObject({
      order_id: order.id,
      order_number: order.number,
      check: 'items_amount',
      stated_amount: 2700,
      computed_amount: 2550,
      difference_amount: 150,
      stated_quantity: null,
    });
  });
});
