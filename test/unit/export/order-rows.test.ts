import { describe, expect, it } from 'vitest';
import { ALLOCATED_AMOUNTS, ORDER_COLUMNS, ORDER_LINE_COLUMNS } from '../../../src/export/order-columns.js';
import { orderLineRows } from '../../../src/export/order-line-rows.js';
import { orderRow } from '../../../src/export/order-row.js';
import { optionsText } from '../../../src/export/options-text.js';
import { makeOrder, STORE } from './order-factory.js';

const busy = () =>
  makeOrder({
    lines: [
      { price: 1000, quantity: 3, sku: '000123' },
      { price: 333 },
      { price: 0, sku: null },
      { price: 1667, quantity: 2 },
    ],
    discounts: [500, 101],
    answers: 250,
    service: 1500,
    serviceCharge: 77,
    tip: 1000,
    adjustment: -99,
    tax: 701,
  });

describe('orderRow', () => {
  it('fills every orders column with the order fields, money in minor units', () => {
    const order = busy();
    order.attribution = {
      channel: 'whatsapp',
      ctwa_clid: null,
      source_id: '1234567890123456',
      source_type: 'ad',
      source_url: null,
      headline: null,
      conversation_id: null,
      referred_at: null,
    };
    const row = orderRow(order, STORE);
    expect(Object.keys(row).sort()).toEqual(ORDER_COLUMNS.map((c) => c.key).sort());
    expect(row).toMatchObject({
      id: 'ord_1',
      number: '1001',
      created_at: '2026-11-01T03:00:00.000Z',
      created_at_iso: '2026-11-01T03:00:00.000Z',
      customer_phone: '6281200000001',
      customer_email: null,
      items_quantity: 7,
      items_amount: 3000 + 333 + 0 + 3334,
      discounts_amount: 601,
      adjustment_amount: -99,
      discount_names: 'Promo 1; Promo 2',
      answers: 'Gift wrap: Yes (+2.50)',
      service_title: 'Delivery',
      attribution_channel: 'whatsapp',
      attribution_source_id: '1234567890123456',
      schedule_date: null,
    });
  });

  it('leaves a fractional amount blank instead of writing a wrong number', () => {
    const order = makeOrder();
    order.tip_amount = 10.5;
    expect(orderRow(order, STORE).tip_amount).toBeNull();
  });
});

describe('orderLineRows', () => {
  it('gives one row per line carrying the order identity, statuses and customer', () => {
    const order = busy();
    const rows = orderLineRows(order, STORE);
    expect(rows).toHaveLength(4);
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(ORDER_LINE_COLUMNS.map((c) => c.key).sort());
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({
        order_id: 'ord_1',
        order_number: '1001',
        order_created_at: order.created_at,
        order_status: 'confirmed',
        payment_status: 'paid',
        fulfillment_status: 'unfulfilled',
        customer_id: 'cus_1',
        customer_name: 'Budi',
        line_number: i + 1,
        line_id: order.line_items[i]?.id,
        total_amount: order.line_items[i]?.total_amount,
      });
    }
    expect(rows[0]?.sku).toBe('000123');
    expect(rows[2]?.sku).toBeNull();
  });

  it('allocates each order-level amount so that its column sums exactly to the order amount', () => {
    const order = busy();
    const rows = orderLineRows(order, STORE);
    for (const [column, field] of ALLOCATED_AMOUNTS) {
      const total = rows.reduce((s, r) => s + (r[column] as number), 0);
      expect(total, column).toBe(order[field]);
    }
    // A zero-total line gets no share of anything.
    expect(rows[2]?.discount_alloc).toBe(0);
    expect(rows[2]?.tax_alloc).toBe(0);
    // Adjustment is negative; every share keeps its sign.
    expect(rows.every((r) => (r.adjustment_alloc as number) <= 0)).toBe(true);
  });

  it('makes allocated_total sum to total_amount (tax-exclusive and tax-inclusive stores)', () => {
    const exclusive = busy();
    const sumTotal = (rows: ReturnType<typeof orderLineRows>): number =>
      rows.reduce((s, r) => s + (r.allocated_total as number), 0);
    expect(sumTotal(orderLineRows(exclusive, STORE))).toBe(exclusive.total_amount);

    const inclusive = makeOrder({
      lines: [{ price: 1100 }, { price: 2200 }],
      tax: 300,
      taxInclusive: true,
      tip: 7,
    });
    const store = { ...STORE, tax: { inclusive: true, percent: 10 } };
    const rows = orderLineRows(inclusive, store);
    expect(sumTotal(rows)).toBe(inclusive.total_amount);
    expect(rows.reduce((s, r) => s + (r.tax_alloc as number), 0)).toBe(300);
  });

  it('flattens line options into readable text with prices in currency units', () => {
    const order = makeOrder({
      lines: [
        {
          price: 2500,
          options: [
            {
              question_id: 'q1',
              question_text: 'Size',
              question_type: 'SINGLE',
              answers: ['Large'],
              prices: [200],
              quantities: [1],
              option_ids: ['o1'],
              text: '',
              image_urls: [],
            },
            {
              question_id: 'q2',
              question_text: 'Sugar',
              question_type: 'SINGLE',
              answers: ['Less'],
              prices: [0],
              quantities: [1],
              option_ids: ['o2'],
              text: '',
              image_urls: [],
            },
          ],
        },
      ],
    });
    expect(orderLineRows(order, STORE)[0]?.options).toBe('Size: Large (+2.00); Sugar: Less');
  });

  it('returns no rows for an order without lines', () => {
    expect(orderLineRows(makeOrder({ lines: [] }), STORE)).toEqual([]);
  });
});

describe('optionsText', () => {
  it('shows quantities above one, negative prices, free text, and currency decimals', () => {
    const text = optionsText(
      [
        { question_text: 'Toppings', answers: ['Cheese', 'Bacon'], prices: [100, 150], quantities: [2, 1] },
        { question_text: 'Cup', answers: ['Own cup'], prices: [-500], quantities: [1] },
        { question_text: 'Note', answers: [], prices: [], text: 'no onions' },
        { question_text: 'Empty', answers: [], prices: [], text: '' },
      ],
      0,
    );
    expect(text).toBe('Toppings: Cheese ×2 (+100), Bacon (+150); Cup: Own cup (-500); Note: no onions');
  });
});
