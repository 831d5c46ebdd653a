import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import type { AccountKind } from './accounting-accounts.js';
import { taxInGross, taxOnNet, type TaxPolicy } from './accounting-tax.js';
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

/**
 * The invoice lines of an order for an accounting import (Xero, QuickBooks Online): one line per
 * line item, then one per order-level amount that is not zero — answers, each discount (negative),
 * service, service charge, tip, adjustment — each with the store's tax rate. Tax is never a sales
 * line: see TaxPolicy for how each mode carries it.
 *
 * The invoice's total as the program computes it (lines, plus tax added line by line when amounts
 * exclude tax) is exactly the order's `total_amount`: a `rounding` line (rate with no tax) carries
 * the difference between the program's per-line tax and the store's, and when the order's own
 * figures do not add up (the `checks` sheet lists them) a last `difference` line carries the rest.
 */
export function invoiceLines(
  order: Order,
  store: Pick<Store, 'tax' | 'currency'>,
  policy: TaxPolicy,
): InvoiceLine[] {
  const p = policy.percent;
  const stated = statedLines(order, store);
  const taxAmount = int(order.tax_amount);
  const out: InvoiceLine[] = [];
  const extra = (kind: InvoiceLineKind, description: string, amount: number, taxed = false): void => {
    if (amount !== 0)
      out.push({
        kind,
        key: kind,
        description,
        quantity: 1,
        unitAmount: amount,
        amount,
        sku: null,
        taxed,
        tax: 0,
      });
  };
  if (policy.mode === 'line') {
    // Net lines with no tax, and the store's tax as a line of its own on the tax account.
    let contained = 0;
    for (const l of stated) {
      const inTax = store.tax.inclusive ? taxInGross(l.amount, p) : 0;
      contained += inTax;
      out.push({ ...l, ...withAmount(l, l.amount - inTax), taxed: false, tax: 0 });
    }
    extra('tax', 'Tax', taxAmount);
    // Inclusive prices: the tax taken out line by line may differ from the store's by rounding.
    if (store.tax.inclusive) extra('rounding', 'Tax rounding', contained - taxAmount);
  } else if (policy.mode === 'inclusive') {
    for (const l of stated) out.push({ ...l, taxed: true, tax: taxInGross(l.amount, p) });
  } else {
    let added = 0;
    for (const l of stated) {
      const tax = taxOnNet(l.amount, p);
      added += tax;
      out.push({ ...l, taxed: true, tax });
    }
    extra('rounding', 'Tax rounding', taxAmount - added);
  }
  // What the program will total, against what the order states.
  const total = out.reduce((s, l) => s + l.amount + (policy.mode === 'exclusive' ? l.tax : 0), 0);
  extra(
    'difference',
    "Difference to the order's stated total (see the checks sheet)",
    int(order.total_amount) - total,
    policy.mode === 'inclusive',
  );
  if (policy.mode === 'inclusive') {
    const last = out.at(-1);
    if (last?.kind === 'difference') last.tax = taxInGross(last.amount, p);
  }
  return out;
}

/** The total of lines as the program computes it (tax added in `exclusive` mode). */
export function linesTotal(lines: readonly InvoiceLine[], policy: Pick<TaxPolicy, 'mode'>): number {
  return lines.reduce((s, l) => s + l.amount + (policy.mode === 'exclusive' ? l.tax : 0), 0);
}
