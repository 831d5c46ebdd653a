import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { optionsText } from './options-text.js';

/** One invoice line of an order, money in integer minor units. `quantity × unitAmount = amount`, exactly. */
export interface InvoiceLine {
  kind:
    | 'item'
    | 'answers'
    | 'discount'
    | 'service'
    | 'service_charge'
    | 'tip'
    | 'adjustment'
    | 'tax'
    | 'difference';
  description: string;
  /** A positive number; 1 for every line but items whose total divides exactly by their quantity. */
  quantity: number;
  unitAmount: number;
  amount: number;
  sku: string | null;
}

const int = (n: number): number => (Number.isSafeInteger(n) ? n : Math.round(n));

/**
 * The invoice lines of an order for an accounting import (Xero, QuickBooks Online): one line per
 * line item, then one line per order-level amount that is not zero — answers, each discount
 * (negative), service, service charge, tip, adjustment, and tax when the store's prices exclude
 * tax. Over an order the line amounts sum exactly to `total_amount`: when the order's own figures
 * do not add up (the `checks` sheet lists them), a last `difference` line carries the rest, so the
 * invoice always equals what the customer was charged.
 *
 * An item line keeps its quantity when its `total_amount` divides exactly by it (unit amount in
 * whole minor units); otherwise (options priced per line, fractional quantities) it is written as
 * quantity 1 at the line total, with the quantity in the description. Either way
 * quantity × unit amount is the line total to the minor unit, so the importer's own line totals
 * agree with ours.
 */
export function invoiceLines(order: Order, store: Pick<Store, 'tax' | 'currency'>): InvoiceLine[] {
  const decimals = currencyDecimals(store.currency);
  const out: InvoiceLine[] = [];
  const single = (kind: InvoiceLine['kind'], description: string, amount: number): void => {
    const a = int(amount);
    if (a !== 0) out.push({ kind, description, quantity: 1, unitAmount: a, amount: a, sku: null });
  };
  for (const line of order.line_items) {
    const amount = int(line.total_amount);
    const options = optionsText(line.options, decimals);
    const name = options ? `${line.name} (${options})` : line.name;
    const q = line.quantity;
    if (Number.isSafeInteger(q) && q > 0 && amount % q === 0) {
      out.push({
        kind: 'item',
        description: name,
        quantity: q,
        unitAmount: amount / q,
        amount,
        sku: line.sku,
      });
    } else {
      out.push({
        kind: 'item',
        description: `${name} × ${q}${line.unit ? ` ${line.unit}` : ''}`,
        quantity: 1,
        unitAmount: amount,
        amount,
        sku: line.sku,
      });
    }
  }
  single('answers', 'Order options', order.answers_amount);
  const listed = order.discounts.reduce((s, d) => s + int(d.amount), 0);
  if (order.discounts.length > 0 && listed === int(order.discounts_amount)) {
    for (const d of order.discounts) single('discount', `Discount: ${d.name}`, -int(d.amount));
  } else {
    single('discount', 'Discounts', -int(order.discounts_amount));
  }
  const service = order.service?.title ?? order.service?.name ?? null;
  single('service', service ? `Service: ${service}` : 'Service', order.service_amount);
  single('service_charge', 'Service charge', order.service_charge_amount);
  single('tip', 'Tip', order.tip_amount);
  single('adjustment', 'Adjustment', order.adjustment_amount);
  if (!store.tax.inclusive) single('tax', 'Tax', order.tax_amount);
  const sum = out.reduce((s, l) => s + l.amount, 0);
  single(
    'difference',
    "Difference to the order's stated total (see the checks sheet)",
    int(order.total_amount) - sum,
  );
  return out;
}
