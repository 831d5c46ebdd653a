import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import type { OrderSheetRow } from './order-columns.js';
import { optionsText } from './options-text.js';

/** The store fields the order rows need. */
export type ExportStore = Pick<Store, 'currency' | 'timezone' | 'tax'>;

/**
 * The `orders` sheet row of an order. Money stays in integer minor units (the writer formats);
 * date-times are the API's ISO strings, once for the date column and once as text. Nothing is
 * corrected here: inconsistent amounts are reported by orderChecks.
 */
export function orderRow(order: Order, store: ExportStore): OrderSheetRow {
  const decimals = currencyDecimals(store.currency);
  return {
    id: order.id,
    number: order.number,
    name: order.name,
    created_at: order.created_at,
    created_at_iso: order.created_at,
    updated_at: order.updated_at,
    updated_at_iso: order.updated_at,
    order_status: order.order_status,
    payment_status: order.payment_status,
    fulfillment_status: order.fulfillment_status,
    payment_method: order.payment_method,
    customer_id: order.customer.id,
    customer_name: order.customer.name,
    customer_phone: order.customer.phone,
    customer_email: order.customer.email,
    items_quantity: Number.isFinite(order.items_quantity) ? order.items_quantity : null,
    items_amount: minor(order.items_amount),
    answers_amount: minor(order.answers_amount),
    discounts_amount: minor(order.discounts_amount),
    service_amount: minor(order.service_amount),
    service_charge_amount: minor(order.service_charge_amount),
    tip_amount: minor(order.tip_amount),
    adjustment_amount: minor(order.adjustment_amount),
    total_before_tax: minor(order.total_before_tax),
    tax_amount: minor(order.tax_amount),
    total_amount: minor(order.total_amount),
    currency: order.currency,
    discount_names: order.discounts.map((d) => d.name).join('; '),
    answers: optionsText(order.answers, decimals),
    service_title: order.service ? (order.service.title ?? order.service.name) : null,
    schedule_date: order.schedule?.date ?? null,
    schedule_time: order.schedule?.time ?? null,
    schedule_time_end: order.schedule?.time_end ?? null,
    schedule_timezone: order.schedule?.timezone ?? null,
    attribution_channel: order.attribution?.channel ?? null,
    attribution_source_type: order.attribution?.source_type ?? null,
    attribution_source_id: order.attribution?.source_id ?? null,
    remark: order.remark,
    internal_note: order.internal_note,
  };
}

/** Money as the writer takes it (integer minor units), or blank when the API sent a fraction (orderChecks reports it). */
export function minor(amount: number): number | null {
  return Number.isSafeInteger(amount) ? amount : null;
}
