import type { ColumnSpec } from '../sheets/sheet-writer.js';

/**
 * Columns of the orders export. Keys are the API's field names where one exists. Money columns
 * hold integer minor units; the sheet writer shows them in currency units with the store
 * currency's decimals. Ids, numbers, SKUs and phones are text so nothing is lost to scientific
 * notation or leading-zero stripping. Date-times come twice: a real spreadsheet date shown in the
 * store time zone and the API's ISO string.
 */

export const ORDERS_SHEET = 'orders';
export const ORDER_LINES_SHEET = 'order_lines';
export const CHECKS_SHEET = 'checks';

interface Column<K extends string> extends ColumnSpec {
  key: K;
}
const money = <K extends string>(key: K): Column<K> => ({ key, header: key, type: 'money', width: 13 });
const text = <K extends string>(key: K, width: number): Column<K> => ({
  key,
  header: key,
  type: 'text',
  width,
});
const col = <K extends string>(key: K, type: ColumnSpec['type'], width: number): Column<K> => ({
  key,
  header: key,
  type,
  width,
});

/** One row per order. */
export const ORDER_COLUMNS = [
  text('id', 22),
  text('number', 10),
  text('name', 14),
  col('created_at', 'datetime', 19),
  text('created_at_iso', 26),
  col('updated_at', 'datetime', 19),
  text('updated_at_iso', 26),
  text('order_status', 12),
  text('payment_status', 13),
  text('fulfillment_status', 16),
  text('payment_method', 15),
  text('customer_id', 22),
  text('customer_name', 22),
  text('customer_phone', 16),
  text('customer_email', 26),
  col('items_quantity', 'number', 10),
  money('items_amount'),
  money('answers_amount'),
  money('discounts_amount'),
  money('service_amount'),
  money('service_charge_amount'),
  money('tip_amount'),
  money('adjustment_amount'),
  money('total_before_tax'),
  money('tax_amount'),
  money('total_amount'),
  text('currency', 8),
  text('discount_names', 24),
  text('answers', 30),
  text('service_title', 18),
  text('schedule_date', 26),
  text('schedule_time', 26),
  text('schedule_time_end', 26),
  text('schedule_timezone', 16),
  text('attribution_channel', 14),
  text('attribution_source_type', 14),
  text('attribution_source_id', 22),
  text('remark', 30),
  text('internal_note', 30),
] as const satisfies readonly ColumnSpec[];

/**
 * The order-level amounts that are spread over the lines, each column in proportion to the line
 * totals with largest-remainder rounding, so a column sums exactly to the order's amount.
 */
export const ALLOCATED_AMOUNTS = [
  ['discount_alloc', 'discounts_amount'],
  ['answers_alloc', 'answers_amount'],
  ['service_alloc', 'service_amount'],
  ['service_charge_alloc', 'service_charge_amount'],
  ['tip_alloc', 'tip_amount'],
  ['adjustment_alloc', 'adjustment_amount'],
  ['tax_alloc', 'tax_amount'],
] as const;

/** One row per line item; carries the order's identity, date, statuses and customer. */
export const ORDER_LINE_COLUMNS = [
  text('order_id', 22),
  text('order_number', 10),
  col('order_created_at', 'datetime', 19),
  text('order_created_at_iso', 26),
  text('order_status', 12),
  text('payment_status', 13),
  text('fulfillment_status', 16),
  text('customer_id', 22),
  text('customer_name', 22),
  text('customer_phone', 16),
  col('line_number', 'integer', 6),
  text('line_id', 22),
  text('product_id', 22),
  text('variant_id', 22),
  text('sku', 16),
  text('name', 30),
  col('quantity', 'number', 9),
  text('unit', 8),
  money('price'),
  money('total_amount'),
  text('options', 40),
  money('discount_alloc'),
  money('answers_alloc'),
  money('service_alloc'),
  money('service_charge_alloc'),
  money('tip_alloc'),
  money('adjustment_alloc'),
  money('tax_alloc'),
  money('allocated_total'),
  text('currency', 8),
] as const satisfies readonly ColumnSpec[];

/** One row per failed check of an order (see orderChecks). */
export const CHECK_COLUMNS = [
  text('order_id', 22),
  text('order_number', 10),
  col('order_created_at', 'datetime', 19),
  text('order_created_at_iso', 26),
  text('check', 18),
  text('field', 22),
  money('stated_amount'),
  money('computed_amount'),
  money('difference_amount'),
  col('stated_quantity', 'number', 10),
  col('computed_quantity', 'number', 10),
  col('difference_quantity', 'number', 10),
  text('formula', 60),
  text('message', 60),
] as const satisfies readonly ColumnSpec[];

/** One row per summary figure (see order-summary.ts). */
export const SUMMARY_COLUMNS = [
  text('section', 15),
  text('order_status', 12),
  text('payment_status', 13),
  col('day', 'date', 11),
  text('month', 8),
  text('payment_method', 15),
  col('tax_rate', 'number', 8),
  col('orders', 'integer', 8),
  col('lines', 'integer', 8),
  money('taxable_amount'),
  money('tax_amount'),
  money('total_amount'),
  text('note', 60),
] as const satisfies readonly ColumnSpec[];

/** A cell value as the export produces it: text, a number (money in minor units), or blank. */
export type ExportCell = string | number | null;
export type OrderSheetRow = Record<(typeof ORDER_COLUMNS)[number]['key'], ExportCell>;
export type OrderLineSheetRow = Record<(typeof ORDER_LINE_COLUMNS)[number]['key'], ExportCell>;
export type CheckSheetRow = Record<(typeof CHECK_COLUMNS)[number]['key'], ExportCell>;
