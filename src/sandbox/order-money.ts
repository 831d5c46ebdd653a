import type { Order } from '../schema/index.js';
import type { Store } from '../schema/index.js';

/**
 * An order's tax and total from its total before tax (the generator's formulas, see generator.ts).
 * The tax is on the total before tax less the tip (`untaxed`): the spec states one `tax_amount` per
 * order and not what it covers; the sandbox's decision (docs/architecture.md, the API's gaps) is
 * that a tip, given freely, is outside the tax (as a voluntary tip is outside UK VAT and most US
 * states' sales tax) and a service charge is not. Prices excluding tax add
 * `round((total_before_tax − tip) × percent / 100)`; prices including tax contain
 * `round((total_before_tax − tip) × percent / (100 + percent))`.
 */
export function taxAndTotal(
  totalBeforeTax: number,
  tax: Store['tax'],
  untaxed = 0,
): { tax: number; total: number } {
  const p = tax.percent;
  const base = totalBeforeTax - untaxed;
  const amount = tax.inclusive ? Math.round((base * p) / (100 + p)) : Math.round((base * p) / 100);
  return { tax: amount, total: tax.inclusive ? totalBeforeTax : totalBeforeTax + amount };
}

/**
 * The order with its money worked out again from its lines (after a line's quantity changed): items,
 * the service charge of a dine-in order (rate of the store), discounts capped at what they
 * discount, the total before tax, the tax and the total. Other amounts stay as they were.
 */
export function recomputeOrderMoney(order: Order, store: Pick<Store, 'tax' | 'service_charge'>): Order {
  const itemsAmount = order.line_items.reduce((s, l) => s + l.total_amount, 0);
  const discountsAmount = Math.min(order.discounts_amount, itemsAmount + order.answers_amount);
  const sc = store.service_charge;
  const serviceCharge =
    order.service === null && sc !== null && order.service_charge_amount !== 0
      ? Math.round(((itemsAmount + order.answers_amount - discountsAmount) * sc.rate) / 100) + sc.amount
      : order.service_charge_amount;
  const subtotal =
    itemsAmount +
    order.answers_amount -
    discountsAmount +
    order.service_amount +
    serviceCharge +
    order.tip_amount;
  const adjustment = Math.max(order.adjustment_amount, -subtotal);
  const totalBeforeTax = subtotal + adjustment;
  // The order's own rule: its tip outside the tax (the sandbox's), unless its stated tax covered it
  // (a store generated with tipsInTax, or a seed file's order).
  const tipTaxed =
    order.tip_amount !== 0 &&
    order.tax_amount === taxAndTotal(order.total_before_tax, store.tax).tax &&
    order.tax_amount !== taxAndTotal(order.total_before_tax, store.tax, order.tip_amount).tax;
  const { tax, total } = taxAndTotal(totalBeforeTax, store.tax, tipTaxed ? 0 : order.tip_amount);
  return {
    ...order,
    items_amount: itemsAmount,
    items_quantity: order.line_items.reduce((s, l) => s + l.quantity, 0),
    discounts_amount: discountsAmount,
    service_charge_amount: serviceCharge,
    adjustment_amount: adjustment,
    total_before_tax: totalBeforeTax,
    tax_amount: tax,
    total_amount: total,
  };
}
