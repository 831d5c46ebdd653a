import type { Order, Store } from '../../../src/schema/index.js';

/**
 * Every way an order's money fails to add up, as short messages (empty when consistent). The
 * formula is the one documented in src/sandbox/generator.ts.
 */
export function orderTotalProblems(order: Order, tax: Store['tax'], tipsInTax = false): string[] {
  const problems: string[] = [];
  let items = 0;
  let quantity = 0;
  for (const line of order.line_items) {
    if (line.total_amount !== line.price * line.quantity)
      problems.push(`line ${line.id}: total != price * quantity`);
    items += line.total_amount;
    quantity += line.quantity;
  }
  if (order.items_amount !== items) problems.push(`items_amount ${order.items_amount} != Σ lines ${items}`);
  if (order.items_quantity !== quantity)
    problems.push(`items_quantity ${order.items_quantity} != Σ ${quantity}`);
  const answers = order.answers.reduce((sum, a) => sum + a.prices.reduce((s, p) => s + p, 0), 0);
  if (order.answers_amount !== answers) problems.push(`answers_amount != Σ answer prices`);
  const discounts = order.discounts.reduce((sum, d) => sum + d.amount, 0);
  if (order.discounts_amount !== discounts) problems.push(`discounts_amount != Σ discounts`);
  if (order.service_amount !== (order.service?.price ?? 0)) problems.push(`service_amount != service.price`);
  const beforeTax =
    order.items_amount +
    order.answers_amount -
    order.discounts_amount +
    order.service_amount +
    order.service_charge_amount +
    order.tip_amount +
    order.adjustment_amount;
  if (order.total_before_tax !== beforeTax)
    problems.push(`total_before_tax ${order.total_before_tax} != ${beforeTax}`);
  // The tax is on the total before tax less the tip (a tip is outside the tax), or on all of it.
  const base = order.total_before_tax - (tipsInTax ? 0 : order.tip_amount);
  const expectedTax = tax.inclusive
    ? Math.round((base * tax.percent) / (100 + tax.percent))
    : Math.round((base * tax.percent) / 100);
  if (order.tax_amount !== expectedTax) problems.push(`tax_amount ${order.tax_amount} != ${expectedTax}`);
  const total = tax.inclusive ? order.total_before_tax : order.total_before_tax + order.tax_amount;
  if (order.total_amount !== total) problems.push(`total_amount ${order.total_amount} != ${total}`);
  if (order.total_amount < 0) problems.push('negative total');
  for (const v of [
    items,
    answers,
    discounts,
    order.tax_amount,
    order.total_amount,
    order.service_charge_amount,
  ]) {
    if (!Number.isInteger(v)) problems.push(`non-integer money ${v}`);
  }
  return problems;
}
