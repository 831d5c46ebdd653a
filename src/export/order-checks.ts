import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import { formatMoney } from '../sheets/money.js';
import type { Store } from '../schema/store.js';
import type { CheckSheetRow } from './order-columns.js';

export type OrderCheckCode =
  | 'items_amount'
  | 'items_quantity'
  | 'discounts_amount'
  | 'total_before_tax'
  | 'total_amount'
  | 'amount_not_integer'
  | 'no_lines_to_allocate'
  | 'currency_mismatch';

/** One way in which an order's own figures do not add up. Shown to the user, never corrected. */
export interface OrderCheck {
  code: OrderCheckCode;
  /** The order field whose stated value disagrees. */
  field: string;
  /** `money` (minor units), `quantity`, or `none` when there is no figure to compare. */
  unit: 'money' | 'quantity' | 'none';
  /** The value the order states. */
  stated: number | null;
  /** The value computed from the order's parts. */
  computed: number | null;
  /** stated − computed. */
  difference: number | null;
  /** How `computed` is obtained. */
  formula: string;
  message: string;
}

const FORMULAS = {
  items_amount: 'sum of line_items[].total_amount',
  items_quantity: 'sum of line_items[].quantity',
  discounts_amount: 'sum of discounts[].amount',
  total_before_tax:
    'items_amount + answers_amount - discounts_amount + service_amount + service_charge_amount + tip_amount + adjustment_amount',
  total_exclusive: 'total_before_tax + tax_amount (prices exclude tax)',
  total_inclusive: 'total_before_tax (prices include tax; tax_amount is the tax contained in it)',
} as const;

const MONEY_FIELDS = [
  'items_amount',
  'answers_amount',
  'discounts_amount',
  'service_amount',
  'service_charge_amount',
  'tip_amount',
  'adjustment_amount',
  'total_before_tax',
  'tax_amount',
  'total_amount',
] as const;

/**
 * Checks that an order's amounts add up (money in minor units, compared exactly):
 *
 * - `items_amount` = Σ line `total_amount`; `items_quantity` = Σ line `quantity`;
 *   `discounts_amount` = Σ discount `amount` (discounts are positive amounts that are subtracted);
 * - `total_before_tax` = items + answers − discounts + service + service charge + tip + adjustment;
 * - `total_amount` = `total_before_tax` + `tax_amount` when the store's prices exclude tax, or
 *   = `total_before_tax` when they include it (`store.tax.inclusive`). Without `store`, either
 *   interpretation is accepted.
 *
 * Also reported: a money field that is not an integer, order-level amounts on an order with no
 * lines to allocate them to, and an order currency other than the store's (money columns are
 * formatted with the store currency's decimals). Returns [] for a consistent order.
 */
export function orderChecks(order: Order, store?: Pick<Store, 'tax' | 'currency'>): OrderCheck[] {
  const out: OrderCheck[] = [];
  // Messages state amounts as the sheet shows them: currency units with the store currency's decimals.
  const decimals = store ? currencyDecimals(store.currency) : null;
  const units = (minor: number): string =>
    decimals !== null && Number.isSafeInteger(minor) ? formatMoney(minor, decimals) : String(minor);
  const money = (field: string, stated: number, computed: number, formula: string): void => {
    if (stated === computed) return;
    out.push({
      code: field as OrderCheckCode,
      field,
      unit: 'money',
      stated,
      computed,
      difference: stated - computed,
      formula,
      message: `${field} is ${units(stated)} but ${formula} is ${units(computed)} (difference ${units(stated - computed)}${store ? ` ${store.currency}` : ', minor units'})`,
    });
  };

  const notInteger: string[] = MONEY_FIELDS.filter((f) => !Number.isSafeInteger(order[f]));
  for (const line of order.line_items) {
    if (!Number.isSafeInteger(line.total_amount) || !Number.isSafeInteger(line.price))
      notInteger.push('line_items');
  }
  for (const field of new Set(notInteger)) {
    out.push({
      code: 'amount_not_integer',
      field,
      unit: 'none',
      stated: null,
      computed: null,
      difference: null,
      formula: '',
      message: `${field}: an amount is not an integer number of minor units (left blank in the sheets)`,
    });
  }

  const sumLines = order.line_items.reduce((s, l) => s + l.total_amount, 0);
  money('items_amount', order.items_amount, sumLines, FORMULAS.items_amount);

  const sumQty = order.line_items.reduce((s, l) => s + l.quantity, 0);
  if (sumQty !== order.items_quantity) {
    out.push({
      code: 'items_quantity',
      field: 'items_quantity',
      unit: 'quantity',
      stated: order.items_quantity,
      computed: sumQty,
      difference: order.items_quantity - sumQty,
      formula: FORMULAS.items_quantity,
      message: `items_quantity is ${order.items_quantity} but the lines add up to ${sumQty}`,
    });
  }

  const sumDiscounts = order.discounts.reduce((s, d) => s + d.amount, 0);
  money('discounts_amount', order.discounts_amount, sumDiscounts, FORMULAS.discounts_amount);

  const beforeTax =
    order.items_amount +
    order.answers_amount -
    order.discounts_amount +
    order.service_amount +
    order.service_charge_amount +
    order.tip_amount +
    order.adjustment_amount;
  money('total_before_tax', order.total_before_tax, beforeTax, FORMULAS.total_before_tax);

  const exclusive = order.total_before_tax + order.tax_amount;
  const inclusive = order.total_before_tax;
  if (store) {
    money(
      'total_amount',
      order.total_amount,
      store.tax.inclusive ? inclusive : exclusive,
      store.tax.inclusive ? FORMULAS.total_inclusive : FORMULAS.total_exclusive,
    );
  } else if (order.total_amount !== exclusive && order.total_amount !== inclusive) {
    money('total_amount', order.total_amount, exclusive, FORMULAS.total_exclusive);
  }

  if (order.line_items.length === 0) {
    const unallocated = MONEY_FIELDS.filter(
      (f) => f !== 'items_amount' && f !== 'total_before_tax' && f !== 'total_amount' && order[f] !== 0,
    );
    if (unallocated.length > 0) {
      out.push({
        code: 'no_lines_to_allocate',
        field: unallocated.join(', '),
        unit: 'none',
        stated: null,
        computed: null,
        difference: null,
        formula: '',
        message: 'the order has amounts but no line items, so order_lines does not carry them',
      });
    }
  }

  if (store && order.currency.toUpperCase() !== store.currency.toUpperCase()) {
    out.push({
      code: 'currency_mismatch',
      field: 'currency',
      unit: 'none',
      stated: null,
      computed: null,
      difference: null,
      formula: '',
      message: `order currency ${order.currency} differs from the store currency ${store.currency}; amounts are shown with ${store.currency} decimals`,
    });
  }
  return out;
}

/** The `checks` sheet row of one check. */
export function checkRow(order: Order, check: OrderCheck): CheckSheetRow {
  const isMoney = check.unit === 'money';
  const isQty = check.unit === 'quantity';
  return {
    order_id: order.id,
    order_number: order.number,
    order_created_at: order.created_at,
    order_created_at_iso: order.created_at,
    check: check.code,
    field: check.field,
    stated_amount: isMoney ? check.stated : null,
    computed_amount: isMoney ? check.computed : null,
    difference_amount: isMoney ? check.difference : null,
    stated_quantity: isQty ? check.stated : null,
    computed_quantity: isQty ? check.computed : null,
    difference_quantity: isQty ? check.difference : null,
    formula: check.formula,
    message: check.message,
  };
}
