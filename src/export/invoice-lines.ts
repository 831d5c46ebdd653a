import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import type { AccountKind } from './accounting-accounts.js';
import { programLineTaxes, programTax, type TaxPolicy } from './accounting-tax.js';
import { allocateLargestRemainder } from './allocate-largest-remainder.js';
import { inferTaxedBase, type TaxablePart } from './taxed-base.js';
import { optionsText } from './options-text.js';

export type InvoiceLineKind =
  | 'item'
  | 'answers'
  | 'discount'
  | 'service'
  | 'service_charge'
  | 'tip'
  | 'adjustment'
  | 'tax'
  | 'rounding'
  | 'difference';

/** The account kind (`--accounts`) of each kind of line. */
export const LINE_ACCOUNT: Record<InvoiceLineKind, AccountKind> = {
  item: 'sales',
  answers: 'sales',
  discount: 'discount',
  service: 'shipping',
  service_charge: 'service-charge',
  tip: 'tips',
  adjustment: 'adjustment',
  tax: 'tax',
  rounding: 'rounding',
  difference: 'adjustment',
};

/** One invoice line of an order, money in integer minor units. `quantity × unitAmount = amount`, exactly. */
export interface InvoiceLine {
  kind: InvoiceLineKind;
  /** Stable across versions of the order (`li:<line id>`, `discount:<id>`, else the kind): what a ledger compares. */
  key: string;
  description: string;
  /** A positive number; 1 for every line but items whose amount divides exactly by their quantity. */
  quantity: number;
  unitAmount: number;
  amount: number;
  sku: string | null;
  /** True: the store's tax rate (`policy.taxed`); false: the rate with no tax (`policy.zero`). */
  taxed: boolean;
  /**
   * The tax the program computes for this line: added to it (`exclusive`), contained in it
   * (`inclusive`), or 0 (a line with no tax, and the tax line of `line` mode, whose amount is tax).
   */
  tax: number;
  /** `line` mode: whether the store's tax covers the line (its net is at the store's rate). */
  covered?: boolean;
}

const int = (n: number): number => (Number.isSafeInteger(n) ? n : Math.round(n));

/** The stated parts of an order (before tax handling), as invoice lines at the store's own prices. */
function statedLines(order: Order, store: Pick<Store, 'currency'>): Omit<InvoiceLine, 'taxed' | 'tax'>[] {
  const decimals = currencyDecimals(store.currency);
  const out: Omit<InvoiceLine, 'taxed' | 'tax'>[] = [];
  const single = (kind: InvoiceLineKind, key: string, description: string, amount: number): void => {
    const a = int(amount);
    if (a !== 0) out.push({ kind, key, description, quantity: 1, unitAmount: a, amount: a, sku: null });
  };
  for (const line of order.line_items) {
    const amount = int(line.total_amount);
    const options = optionsText(line.options, decimals);
    const name = options ? `${line.name} (${options})` : line.name;
    out.push({
      ...itemQuantity(name, amount, line.quantity, line.unit),
      kind: 'item',
      key: `li:${line.id}`,
      sku: line.sku,
    });
  }
  single('answers', 'answers', 'Order options', order.answers_amount);
  const listed = order.discounts.reduce((s, d) => s + int(d.amount), 0);
  if (order.discounts.length > 0 && listed === int(order.discounts_amount)) {
    for (const d of order.discounts)
      single('discount', `discount:${d.id}`, `Discount: ${d.name}`, -int(d.amount));
  } else {
    single('discount', 'discount', 'Discounts', -int(order.discounts_amount));
  }
  const service = order.service?.title ?? order.service?.name ?? null;
  single('service', 'service', service ? `Service: ${service}` : 'Service', order.service_amount);
  single('service_charge', 'service_charge', 'Service charge', order.service_charge_amount);
  single('tip', 'tip', 'Tip', order.tip_amount);
  single('adjustment', 'adjustment', 'Adjustment', order.adjustment_amount);
  return out;
}

/**
 * An item's quantity and unit amount: its quantity when the amount divides exactly by it (unit
 * amount in whole minor units), else 1 at the amount with the quantity in the description, so that
 * quantity × unit amount is the amount to the minor unit and the program's own line totals agree.
 */
function itemQuantity(
  name: string,
  amount: number,
  quantity: number,
  unit: string,
): Pick<InvoiceLine, 'description' | 'quantity' | 'unitAmount' | 'amount'> {
  if (Number.isSafeInteger(quantity) && quantity > 0 && amount % quantity === 0) {
    return { description: name, quantity, unitAmount: amount / quantity, amount };
  }
  return {
    description: `${name} × ${quantity}${unit ? ` ${unit}` : ''}`,
    quantity: 1,
    unitAmount: amount,
    amount,
  };
}

/** A line at another amount (its net part): the same quantity when it still divides, else 1. */
function withAmount(
  line: Pick<InvoiceLine, 'description' | 'quantity'>,
  amount: number,
): Pick<InvoiceLine, 'description' | 'quantity' | 'unitAmount' | 'amount'> {
  const q = line.quantity;
  if (q === 1) return { description: line.description, quantity: 1, unitAmount: amount, amount };
  if (amount % q === 0) return { description: line.description, quantity: q, unitAmount: amount / q, amount };
  return { description: `${line.description} × ${q}`, quantity: 1, unitAmount: amount, amount };
}

/** The part of an order (TaxablePart) each stated kind of line belongs to. */
const LINE_PART: Partial<Record<InvoiceLineKind, TaxablePart>> = {
  item: 'items',
  discount: 'items',
  answers: 'answers',
  service: 'service',
  service_charge: 'service_charge',
  tip: 'tip',
  adjustment: 'adjustment',
};

/**
 * The invoice lines of an order for an accounting import (Xero, QuickBooks Online): one line per
 * line item, then one per order-level amount that is not zero — answers, each discount (negative),
 * service, service charge, tip, adjustment. Tax is never a sales line: see TaxPolicy for how each
 * mode carries it.
 *
 * Tax to the penny: the lines the store's tax covers (inferTaxedBase: the parts of the order whose
 * sum gives its `tax_amount`) take the store's rate, the others the rate with no tax; and the tax
 * the program computes (programTax: line by line, or on the subtotal) is made exactly the order's
 * `tax_amount` by moving a few minor units from the largest taxed line to a `Tax rounding` line at
 * the rate with no tax (fitProgramTax), so the invoice's total stays the order's.
 *
 * The invoice's total as the program computes it is exactly the order's `total_amount`: when the
 * order's own figures do not add up (the `checks` sheet lists them) a last `difference` line, with
 * no tax, carries the rest.
 */
export function invoiceLines(
  order: Order,
  store: Pick<Store, 'tax' | 'currency'>,
  policy: TaxPolicy,
): InvoiceLine[] {
  const p = policy.percent;
  const stated = statedLines(order, store);
  const taxAmount = int(order.tax_amount);
  const base = inferTaxedBase(order, { percent: p, inclusive: store.tax.inclusive });
  const covered = (kind: InvoiceLineKind): boolean => {
    const part = LINE_PART[kind];
    return part === undefined || base.has(part);
  };
  let out: InvoiceLine[] = [];
  const extra = (kind: InvoiceLineKind, description: string, amount: number): void => {
    if (amount !== 0)
      out.push({
        kind,
        key: kind,
        description,
        quantity: 1,
        unitAmount: amount,
        amount,
        sku: null,
        taxed: false,
        tax: 0,
      });
  };
  if (policy.mode === 'line') {
    // Net lines with no tax, and the store's tax as a line of its own on the tax account. Prices
    // including tax: the order's tax is taken out of the lines it covers in proportion (exact).
    const taxedIdx = stated.flatMap((l, i) => (covered(l.kind) ? [i] : []));
    const shares = store.tax.inclusive
      ? allocateLargestRemainder(
          taxAmount,
          taxedIdx.map((i) => (stated[i] as (typeof stated)[number]).amount),
        )
      : [];
    const inTax = new Map(taxedIdx.map((i, k) => [i, shares[k] ?? 0]));
    stated.forEach((l, i) => {
      out.push({
        ...l,
        ...withAmount(l, l.amount - (inTax.get(i) ?? 0)),
        taxed: false,
        tax: 0,
        covered: p !== 0 && covered(l.kind),
      });
    });
    extra('tax', 'Tax', taxAmount);
  } else {
    const inclusive = policy.mode === 'inclusive';
    // A store without tax: every line at its one rate (named by --tax-type), no tax.
    out = stated.map((l) => ({ ...l, taxed: p === 0 || covered(l.kind), tax: 0 }));
    out = fitProgramTax(out, taxAmount, policy, inclusive);
  }
  // What the program will total, against what the order states.
  extra(
    'difference',
    "Difference to the order's stated total (see the checks sheet)",
    int(order.total_amount) - linesTotal(out, policy),
  );
  return out;
}

/**
 * The lines with the tax the program computes for each (`tax`), made to total `want` when it can
 * be: a few minor units `s` move from the largest taxed line (quantity 1 first) to a `Tax rounding`
 * line at the rate with no tax, the smallest `s` that gives the program's tax `want`. The lines'
 * sum does not change, so neither does the invoice's total (tax inclusive) or its net (tax
 * exclusive: the total is then net + `want`). Without a taxed line to move from, prices excluding
 * tax put the difference on the `Tax rounding` line itself (the total is right, the tax is not).
 */
export function fitProgramTax(
  lines: readonly InvoiceLine[],
  want: number,
  policy: Pick<TaxPolicy, 'percent' | 'computation'>,
  inclusive: boolean,
): InvoiceLine[] {
  const out = withProgramTax(lines, policy, inclusive);
  const taxedAmounts = out.filter((l) => l.taxed).map((l) => l.amount);
  const have = programTax(taxedAmounts, policy, inclusive);
  // More than a rounding difference (a store whose tax is not at its rate): not ours to hide.
  if (have === want || policy.percent === 0 || Math.abs(want - have) > taxedAmounts.length + 2) {
    return inclusive || have === want ? out : [...out, roundingLine(want - have)];
  }
  const sum = taxedAmounts.reduce((s, a) => s + a, 0);
  const one = (a: number): number => programTax([a], policy, inclusive);
  const candidates = out
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => l.taxed && l.amount > 1)
    .sort((a, b) => (a.l.quantity === 1 ? 0 : 1) - (b.l.quantity === 1 ? 0 : 1) || b.l.amount - a.l.amount)
    .slice(0, 3);
  for (const { l, i } of candidates) {
    const limit = Math.min(l.amount - 1, 100_000);
    for (let d = 1; d <= limit; d++) {
      for (const s of [d, -d]) {
        const after =
          policy.computation === 'subtotal'
            ? programTax([sum - s], policy, inclusive)
            : have - one(l.amount) + one(l.amount - s);
        if (after !== want) continue;
        const moved = [...out];
        moved[i] = { ...l, ...withAmount(l, l.amount - s) };
        moved.push(roundingLine(s));
        return withProgramTax(moved, policy, inclusive);
      }
    }
  }
  return inclusive ? out : [...out, roundingLine(want - have)];
}

/** The lines with `tax` set to each taxed line's share of the program's tax (0 on the others). */
function withProgramTax(
  lines: readonly InvoiceLine[],
  policy: Pick<TaxPolicy, 'percent' | 'computation'>,
  inclusive: boolean,
): InvoiceLine[] {
  const taxed = lines.filter((l) => l.taxed);
  const shares = programLineTaxes(
    taxed.map((l) => l.amount),
    policy,
    inclusive,
  );
  let k = 0;
  return lines.map((l) => ({ ...l, tax: l.taxed ? (shares[k++] ?? 0) : 0 }));
}

/** A `Tax rounding` line (rate with no tax) of `amount`. */
export function roundingLine(amount: number): InvoiceLine {
  return {
    kind: 'rounding',
    key: 'rounding',
    description: 'Tax rounding',
    quantity: 1,
    unitAmount: amount,
    amount,
    sku: null,
    taxed: false,
    tax: 0,
  };
}

/** The total of lines as the program computes it (tax added in `exclusive` mode). */
export function linesTotal(lines: readonly InvoiceLine[], policy: Pick<TaxPolicy, 'mode'>): number {
  return lines.reduce((s, l) => s + l.amount + (policy.mode === 'exclusive' ? l.tax : 0), 0);
}
