import type { Order } from '../schema/order.js';

/**
 * The parts of an order a store's tax may or may not cover. `items` are the line items less the
 * discounts (a discount lowers the price of what it discounts); `answers` are priced order options.
 */
export const TAXABLE_PARTS = ['items', 'answers', 'service', 'service_charge', 'tip', 'adjustment'] as const;
export type TaxablePart = (typeof TAXABLE_PARTS)[number];

/**
 * Which parts are left out first when several sets of parts explain the order's tax: tips (often
 * outside the tax: a gratuity is not a supply), then the service charge, the adjustment, shipping,
 * order options, and the items last.
 */
const LEFT_OUT_FIRST: readonly TaxablePart[] = [
  'tip',
  'service_charge',
  'adjustment',
  'service',
  'answers',
  'items',
];

const int = (n: number): number => (Number.isSafeInteger(n) ? n : Math.round(n));

/** The amount of each part of an order, in minor units. */
export function partAmounts(order: Order): Record<TaxablePart, number> {
  return {
    items: int(order.items_amount) - int(order.discounts_amount),
    answers: int(order.answers_amount),
    service: int(order.service_amount),
    service_charge: int(order.service_charge_amount),
    tip: int(order.tip_amount),
    adjustment: int(order.adjustment_amount),
  };
}

/** The tax a store states on a base: `round(base × p / 100)` on top, or `round(base × p / (100 + p))` inside. */
export function storeTaxOn(base: number, percent: number, inclusive: boolean): number {
  const exact = inclusive ? (base * percent) / (100 + percent) : (base * percent) / 100;
  return Math.sign(exact) * Math.round(Math.abs(exact));
}

/**
 * The parts of an order its tax covers, inferred from its figures: the API states one `tax_amount`
 * per order and no rate or base, so the base is the set of parts whose sum, taxed at the store's
 * rate, gives exactly the stated tax. Among several such sets the one leaving out the fewest parts
 * is taken (LEFT_OUT_FIRST), the tip out of it when that explains the tax as well (a tip too small
 * to move the tax is taken as outside it); an order with no tax has an empty base. When no set gives
 * the stated tax exactly (a store that rounds otherwise), every part counts as covered, and the
 * invoice's tax fit (fitProgramTax) makes up the pennies. Parts that are zero count as covered.
 */
export function inferTaxedBase(
  order: Order,
  tax: { percent: number; inclusive: boolean },
): ReadonlySet<TaxablePart> {
  const stated = int(order.tax_amount);
  const amounts = partAmounts(order);
  const all = new Set<TaxablePart>(TAXABLE_PARTS);
  if (stated === 0 && tax.percent !== 0) return new Set(TAXABLE_PARTS.filter((p) => amounts[p] === 0));
  if (tax.percent === 0) return all;
  const open = LEFT_OUT_FIRST.filter((p) => amounts[p] !== 0);
  let best: { miss: number; cost: number; out: TaxablePart[] } | undefined;
  // Every subset of the non-zero parts (at most 2^6): which are left out.
  for (let mask = 0; mask < 1 << open.length; mask++) {
    const out = open.filter((_, i) => (mask & (1 << i)) !== 0);
    const base = open.filter((p) => !out.includes(p)).reduce((s, p) => s + amounts[p], 0);
    const miss = Math.abs(storeTaxOn(base, tax.percent, tax.inclusive) - stated);
    // The cost of leaving parts out: items dearest (LEFT_OUT_FIRST is in that order); a tip costs
    // when kept in, since a tip given freely is outside the tax unless only it explains the tax.
    const cost =
      out.reduce((s, p) => s + (p === 'tip' ? 0 : 2 ** LEFT_OUT_FIRST.indexOf(p)), 0) +
      (amounts.tip !== 0 && !out.includes('tip') ? 1 : 0);
    if (!best || miss < best.miss || (miss === best.miss && cost < best.cost)) best = { miss, cost, out };
  }
  if (!best || best.miss !== 0) return all;
  for (const p of best.out) all.delete(p);
  return all;
}
