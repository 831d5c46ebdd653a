import type { ColumnSpec } from '../sheets/sheet-writer.js';

/** `labels`: headers people read, with a note naming the field; `fields`: the API's field names. */
export type HeaderStyle = 'labels' | 'fields';

/**
 * Readable headers of the order export columns, by column key. Keys missing here keep their key.
 * Each labelled XLSX header carries a cell note naming the API field (or how the value is derived),
 * so an accountant reads `Service charge (allocated)` and a developer still finds
 * `service_charge_alloc`.
 */
const LABELS: Record<string, string> = {
  id: 'Order ID',
  number: 'Order number',
  name: 'Order name',
  created_at: 'Created',
  created_at_iso: 'Created (ISO)',
  updated_at: 'Updated',
  updated_at_iso: 'Updated (ISO)',
  order_status: 'Order status',
  payment_status: 'Payment status',
  fulfillment_status: 'Fulfillment status',
  payment_method: 'Payment method',
  customer_id: 'Customer ID',
  customer_name: 'Customer name',
  customer_phone: 'Customer phone',
  customer_email: 'Customer email',
  items_quantity: 'Items quantity',
  items_amount: 'Items amount',
  answers_amount: 'Answers amount',
  discounts_amount: 'Discounts',
  service_amount: 'Service',
  service_charge_amount: 'Service charge',
  tip_amount: 'Tip',
  adjustment_amount: 'Adjustment',
  total_before_tax: 'Total before tax',
  tax_amount: 'Tax',
  total_amount: 'Total',
  currency: 'Currency',
  discount_names: 'Discount names',
  answers: 'Answers',
  service_title: 'Service title',
  schedule_date: 'Schedule date',
  schedule_time: 'Schedule time',
  schedule_time_end: 'Schedule end time',
  schedule_timezone: 'Schedule time zone',
  attribution_channel: 'Attribution channel',
  attribution_source_type: 'Attribution source type',
  attribution_source_id: 'Attribution source ID',
  remark: 'Customer remark',
  internal_note: 'Internal note',
  order_id: 'Order ID',
  order_number: 'Order number',
  order_created_at: 'Order created',
  order_created_at_iso: 'Order created (ISO)',
  line_number: 'Line',
  line_id: 'Line ID',
  product_id: 'Product ID',
  variant_id: 'Variant ID',
  sku: 'SKU',
  quantity: 'Quantity',
  unit: 'Unit',
  price: 'Unit price',
  options: 'Options',
  discount_alloc: 'Discount (allocated)',
  answers_alloc: 'Answers (allocated)',
  service_alloc: 'Service (allocated)',
  service_charge_alloc: 'Service charge (allocated)',
  tip_alloc: 'Tip (allocated)',
  adjustment_alloc: 'Adjustment (allocated)',
  tax_alloc: 'Tax (allocated)',
  allocated_total: 'Line total with allocations',
  check: 'Check',
  field: 'Field',
  stated_amount: 'Stated amount',
  computed_amount: 'Computed amount',
  difference_amount: 'Difference',
  stated_quantity: 'Stated quantity',
  computed_quantity: 'Computed quantity',
  difference_quantity: 'Quantity difference',
  formula: 'Formula',
  message: 'Message',
  section: 'Section',
  day: 'Day',
  orders: 'Orders',
  lines: 'Lines',
  note: 'Definition / note',
  month: 'Month',
  tax_rate: 'Tax rate (%)',
  taxable_amount: 'Taxable amount',
};

/** Labels that differ by sheet: a line's `name` is its product's, an order's is the order's. */
const SHEET_LABELS: Record<string, Record<string, string>> = {
  order_lines: { name: 'Product name', total_amount: 'Line total' },
};

/** Notes for columns that are not a plain API field. */
const DERIVED: Record<string, string> = {
  created_at_iso: 'created_at as the API sent it (ISO 8601)',
  updated_at_iso: 'updated_at as the API sent it (ISO 8601)',
  order_created_at_iso: "the order's created_at as the API sent it (ISO 8601)",
  discount_names: 'discounts[].name, joined with "; "',
  line_number: 'position of the line in line_items (1 = first)',
  allocated_total:
    'total_amount + answers + service + service charge + tip + adjustment (+ tax when prices exclude tax) - discount, allocated to this line',
  stated_amount: 'the amount the order states (currency units)',
  computed_amount: "the amount computed from the order's parts (currency units)",
  difference_amount: 'stated - computed (currency units)',
  section: 'total, revenue, checks, status, day, payment_method, tax_day or tax_month',
  month: "created_at's month in the store's time zone (YYYY-MM)",
  tax_rate:
    "the store's tax rate for orders with tax, 0 for orders without (the API gives no rate per order)",
  taxable_amount: 'total_before_tax, less tax_amount when prices include tax (revenue orders)',
  day: "created_at's day in the store's time zone",
  orders: 'number of orders (rows of the orders sheet)',
  lines: 'number of line items (rows of the order_lines sheet)',
  note: 'what the figure includes',
};

const ALLOC_SOURCE: Record<string, string> = {
  discount_alloc: 'discounts_amount',
  answers_alloc: 'answers_amount',
  service_alloc: 'service_amount',
  service_charge_alloc: 'service_charge_amount',
  tip_alloc: 'tip_amount',
  adjustment_alloc: 'adjustment_amount',
  tax_alloc: 'tax_amount',
};

const LINE_FIELDS = new Set([
  'line_id',
  'product_id',
  'variant_id',
  'sku',
  'name',
  'quantity',
  'unit',
  'price',
  'total_amount',
  'options',
]);

/** The note of a labelled header: the API field it holds, or how it is derived. */
export function columnNote(key: string, sheet: string): string {
  const derived = DERIVED[key];
  if (derived !== undefined) return `${key}: ${derived}`;
  const source = ALLOC_SOURCE[key];
  if (source !== undefined)
    return `${key}: the order's ${source}, allocated to the lines in proportion to their total_amount (largest remainder, sums exactly)`;
  const field =
    sheet.startsWith('order_lines') && LINE_FIELDS.has(key)
      ? `line_items[].${key === 'line_id' ? 'id' : key}`
      : key.startsWith('customer_')
        ? `customer.${key.slice('customer_'.length)}`
        : key.startsWith('attribution_')
          ? `attribution.${key.slice('attribution_'.length)}`
          : key.startsWith('schedule_')
            ? `schedule.${key.slice('schedule_'.length)}`
            : key;
  return `API field: ${field}`;
}

/** The columns with the chosen headers (labels get a note naming the field). */
export function withHeaders<C extends ColumnSpec>(
  columns: readonly C[],
  style: HeaderStyle,
  sheet: string,
): C[] {
  if (style === 'fields') return [...columns];
  const own = SHEET_LABELS[sheet.replace(/_\d+$/, '')] ?? {};
  return columns.map((c) => ({
    ...c,
    header: own[c.key] ?? LABELS[c.key] ?? c.key,
    note: columnNote(c.key, sheet),
  }));
}
