import type { Order, OrderLineItem } from '../../../src/schema/order.js';
import type { Store } from '../../../src/schema/store.js';

/** Test orders whose amounts add up (unless a test overrides a field afterwards). */

export const STORE: Store = {
  id: 'store_1',
  object: 'store',
  name: 'Kopi Kita',
  alias: 'kopikita',
  phone: '6281234567890',
  email: 'owner@example.com',
  country: 'ID',
  currency: 'USD',
  timezone: 'Asia/Jakarta',
  address: null,
  tax: { inclusive: false, percent: 10 },
  service_charge: null,
};

export interface LineSpec {
  price: number;
  quantity?: number;
  sku?: string | null;
  name?: string;
  options?: OrderLineItem['options'];
}

export interface OrderSpec {
  id?: string;
  number?: string;
  lines?: LineSpec[];
  discounts?: number[];
  answers?: number;
  service?: number;
  serviceCharge?: number;
  tip?: number;
  adjustment?: number;
  tax?: number;
  taxInclusive?: boolean;
  createdAt?: string;
  updatedAt?: string;
  remark?: string;
  customerPhone?: string;
}

export function makeOrder(spec: OrderSpec = {}): Order {
  const id = spec.id ?? 'ord_1';
  const lines = (spec.lines ?? [{ price: 1000, quantity: 2 }, { price: 550 }]).map((l, i): OrderLineItem => ({
    id: `${id}_li${i + 1}`,
    object: 'order_line_item',
    product_id: `prod_${i + 1}`,
    variant_id: i % 2 === 0 ? `var_${i + 1}` : null,
    name: l.name ?? `Item ${i + 1}`,
    sku: l.sku === undefined ? `SKU-${i + 1}` : l.sku,
    quantity: l.quantity ?? 1,
    quantity_float: l.quantity ?? 1,
    unit: 'pcs',
    unit_value: 1,
    price: l.price,
    total_amount: l.price * (l.quantity ?? 1),
    options: l.options ?? [],
    image_urls: [],
  }));
  const items = lines.reduce((s, l) => s + l.total_amount, 0);
  const discounts = (spec.discounts ?? []).map((amount, i) => ({
    id: `disc_${i + 1}`,
    name: `Promo ${i + 1}`,
    amount,
    type: 'fixed',
  }));
  const discountsAmount = discounts.reduce((s, d) => s + d.amount, 0);
  const answers = spec.answers ?? 0;
  const service = spec.service ?? 0;
  const serviceCharge = spec.serviceCharge ?? 0;
  const tip = spec.tip ?? 0;
  const adjustment = spec.adjustment ?? 0;
  const tax = spec.tax ?? 0;
  const beforeTax = items + answers - discountsAmount + service + serviceCharge + tip + adjustment;
  const createdAt = spec.createdAt ?? '2026-11-01T03:00:00.000Z';
  return {
    id,
    object: 'order',
    number: spec.number ?? '1001',
    name: `#${spec.number ?? '1001'}`,
    store: { id: STORE.id, name: STORE.name, alias: STORE.alias },
    order_status: 'confirmed',
    payment_status: 'paid',
    payment_method: 'bank_transfer',
    fulfillment_status: 'unfulfilled',
    remark: spec.remark ?? '',
    internal_note: '',
    attribution: null,
    customer: {
      id: 'cus_1',
      object: 'customer',
      name: 'Budi',
      email: null,
      phone: spec.customerPhone ?? '6281200000001',
      address: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    },
    line_items: lines,
    answers:
      answers === 0
        ? []
        : [
            {
              id: 'ans_1',
              object: 'order_answer',
              question_id: 'q_1',
              question_text: 'Gift wrap',
              question_type: 'QUESTION_TEXT',
              answers: ['Yes'],
              prices: [answers],
              option_ids: ['opt_1'],
              image_urls: [],
            },
          ],
    discounts,
    service:
      service === 0
        ? null
        : {
            title: 'Delivery',
            name: 'courier',
            price: service,
            distance: 3,
            distance_unit: 'km',
            location: null,
          },
    schedule: null,
    items_quantity: lines.reduce((s, l) => s + l.quantity, 0),
    items_amount: items,
    answers_amount: answers,
    discounts_amount: discountsAmount,
    service_amount: service,
    service_charge_amount: serviceCharge,
    tip_amount: tip,
    adjustment_amount: adjustment,
    total_before_tax: beforeTax,
    tax_amount: tax,
    total_amount: spec.taxInclusive ? beforeTax : beforeTax + tax,
    currency: 'USD',
    created_at: createdAt,
    updated_at: spec.updatedAt ?? createdAt,
  };
}

export async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
