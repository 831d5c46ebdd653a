import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import { allocateLargestRemainder } from './allocate-largest-remainder.js';
import { ALLOCATED_AMOUNTS, type OrderLineSheetRow } from './order-columns.js';
import { minor, type ExportStore } from './order-row.js';
import { optionsText } from './options-text.js';

/**
 * The `order_lines` rows of an order, one per line item, in the order's line order.
 *
 * Each row repeats the order's id, number, creation date, statuses and customer, so the sheet can
 * be filtered and summed on its own. The order-level amounts (discounts, answers, service, service
 * charge, tip, adjustment, tax) are allocated to the lines in proportion to the line
 * `total_amount`s with largest-remainder rounding (see allocateLargestRemainder): over an order's
 * rows each `*_alloc` column sums exactly to the order's amount.
 *
 * `allocated_total` = line total + answers + service + service charge + tip + adjustment −
 * discount (+ tax when the store's prices exclude tax); over an order it sums to the order's
 * `total_amount` whenever the order's own amounts add up (orderChecks says when they do not).
 *
 * An amount that is not an integer (the API never sends one) cannot be split exactly: its column
 * is left blank and orderChecks reports it.
 *
 * When the rows' `allocated_total` does not sum to the order's `total_amount` (its own figures do
 * not add up, or it has no lines), a last row named DIFFERENCE_ROW_NAME carries the difference in
 * `allocated_total`: the sheet's `allocated_total` then sums to the `orders` sheet's `total_amount`.
 */
export function orderLineRows(order: Order, store: ExportStore): OrderLineSheetRow[] {
  const rows = lineItemRows(order, store);
  // Tie the sheet to `orders`: when the lines do not add up to the order's total, one more row
  // carries the difference, so order_lines' allocated_total sums to the orders sheet's total.
  const sum = rows.reduce<number | null>(
    (s, r) => (s === null || typeof r.allocated_total !== 'number' ? null : s + r.allocated_total),
    0,
  );
  const total = minor(order.total_amount);
  if (sum !== null && total !== null && sum !== total) rows.push(differenceRow(order, total - sum));
  return rows;
}

/** The row that carries what an order's lines leave of its stated total (see orderChecks). */
function differenceRow(order: Order, difference: number): OrderLineSheetRow {
  return rowOf(order, {
    line_number: null,
    line_id: null,
    product_id: null,
    variant_id: null,
    sku: null,
    name: DIFFERENCE_ROW_NAME,
    quantity: null,
    unit: null,
    price: null,
    total_amount: null,
    options: null,
    discount_alloc: null,
    answers_alloc: null,
    service_alloc: null,
    service_charge_alloc: null,
    tip_alloc: null,
    adjustment_alloc: null,
    tax_alloc: null,
    allocated_total: difference,
  });
}

/** The `name` of an order_lines row that is no line item but the difference to the order's total. */
export const DIFFERENCE_ROW_NAME = "Difference to the order's stated total (see checks)";

type OrderPart =
  | 'order_id'
  | 'order_number'
  | 'order_created_at'
  | 'order_created_at_iso'
  | 'order_status'
  | 'payment_status'
  | 'fulfillment_status'
  | 'customer_id'
  | 'customer_name'
  | 'customer_phone'
  | 'currency';

/**
 * A row: the order's columns every row repeats, then the line's. One object literal of a fixed
 * shape (no spread): this runs for every line of a 100k-order export.
 */
function rowOf(order: Order, l: Omit<OrderLineSheetRow, OrderPart>): OrderLineSheetRow {
  return {
    order_id: order.id,
    order_number: order.number,
    order_created_at: order.created_at,
    order_created_at_iso: order.created_at,
    order_status: order.order_status,
    payment_status: order.payment_status,
    fulfillment_status: order.fulfillment_status,
    customer_id: order.customer.id,
    customer_name: order.customer.name,
    customer_phone: order.customer.phone,
    line_number: l.line_number,
    line_id: l.line_id,
    product_id: l.product_id,
    variant_id: l.variant_id,
    sku: l.sku,
    name: l.name,
    quantity: l.quantity,
    unit: l.unit,
    price: l.price,
    total_amount: l.total_amount,
    options: l.options,
    discount_alloc: l.discount_alloc,
    answers_alloc: l.answers_alloc,
    service_alloc: l.service_alloc,
    service_charge_alloc: l.service_charge_alloc,
    tip_alloc: l.tip_alloc,
    adjustment_alloc: l.adjustment_alloc,
    tax_alloc: l.tax_alloc,
    allocated_total: l.allocated_total,
    currency: order.currency,
  };
}

function lineItemRows(order: Order, store: ExportStore): OrderLineSheetRow[] {
  const lines = order.line_items;
  if (lines.length === 0) return [];
  const decimals = currencyDecimals(store.currency);
  const weights = lines.map((l) => l.total_amount);
  const weightsOk = weights.every((w) => Number.isSafeInteger(w));
  const allocations = ALLOCATED_AMOUNTS.map(([, field]) => {
    const amount = order[field];
    return weightsOk && Number.isSafeInteger(amount) ? allocateLargestRemainder(amount, weights) : null;
  });
  const [discount, answers, service, serviceCharge, tip, adjustment, tax] = allocations;
  return lines.map((line, i) => {
    const share = (a: number[] | null | undefined): number | null => (a ? (a[i] ?? null) : null);
    const parts = [
      line.total_amount,
      share(answers),
      share(service),
      share(serviceCharge),
      share(tip),
      share(adjustment),
      store.tax.inclusive ? 0 : share(tax),
    ];
    const d = share(discount);
    const allocatedTotal =
      d === null || parts.some((p) => p === null || !Number.isSafeInteger(p))
        ? null
        : (parts as number[]).reduce((s, p) => s + p, 0) - d;
    return rowOf(order, {
      line_number: i + 1,
      line_id: line.id,
      product_id: line.product_id,
      variant_id: line.variant_id,
      sku: line.sku,
      name: line.name,
      quantity: line.quantity,
      unit: line.unit,
      price: minor(line.price),
      total_amount: minor(line.total_amount),
      options: optionsText(line.options, decimals),
      discount_alloc: d,
      answers_alloc: share(answers),
      service_alloc: share(service),
      service_charge_alloc: share(serviceCharge),
      tip_alloc: share(tip),
      adjustment_alloc: share(adjustment),
      tax_alloc: share(tax),
      allocated_total: allocatedTotal,
    });
  });
}
