import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { accountFor, paymentAccountFor, type AccountMap } from './accounting-accounts.js';
import type { ContactBook } from './accounting-contacts.js';
import type { Ledger, LedgerOrder } from './accounting-ledger.js';
import { UsageError } from '../errors/usage-error.js';
import {
  addDays,
  dayInZone,
  PROFILE_NUMBER_LIMIT,
  PROFILE_PROGRAM,
  type AccountingProfile,
  type InvoiceDateRule,
} from './accounting-profile.js';
import { programTax, type TaxPolicy } from './accounting-tax.js';
import {
  invoiceLines,
  LINE_ACCOUNT,
  fitProgramTax,
  linesTotal,
  roundingLine,
  type InvoiceLine,
  type InvoiceLineKind,
} from './invoice-lines.js';
import { isInBasis, type RevenueBasis } from './order-selection.js';

/** One line of a document, in the document's own direction (a credit note's lines are credits). */
export interface DocumentLine {
  kind: InvoiceLineKind;
  description: string;
  quantity: number;
  unitAmount: number;
  amount: number;
  /** Xero account code or QuickBooks product/service. */
  account: string;
  /** The program's tax rate name. */
  taxType: string;
  /** The tax the program computes for the line (see InvoiceLine.tax). */
  tax: number;
  sku: string | null;
}

/** An invoice or a credit note, ready to become rows of a profile file. */
export interface AccountingDocument {
  type: 'invoice' | 'credit_note';
  /** `1001`, a later invoice `1001-3`, a credit note `CN-1001-2` (after the prefix). */
  number: string;
  /** An invoice: the order id; a credit note: the invoice it credits. */
  reference: string;
  order: Order;
  contact: string;
  /** `YYYY-MM-DD` in the store's zone. */
  date: string;
  due: string;
  lines: DocumentLine[];
  /** As the program computes it (tax included); positive for both types. */
  total: number;
  /** The tax in `total` as the program computes it. */
  tax: number;
}

/** One payment of one invoice. */
export interface PaymentEntry {
  number: string;
  order: Order;
  contact: string;
  date: string;
  amount: number;
  method: string;
  account: string;
}

/** What happened to an order invoiced by an earlier run of the feed. */
export interface ChangeEntry {
  order: Order;
  invoice: string;
  statusBefore: string;
  statusAfter: string;
  totalBefore: number;
  totalAfter: number;
  /** `credit note CN-1001-2`, `invoice 1001-3`, or `none: amounts unchanged`. */
  action: string;
  documents: AccountingDocument[];
}

export interface OrderDocuments {
  documents: AccountingDocument[];
  payments: PaymentEntry[];
  change?: ChangeEntry;
  /** The order has an invoice line for a difference its own figures leave (orderChecks). */
  withDifference: boolean;
}

export interface AccountingBookOptions {
  profile: AccountingProfile;
  store: Pick<Store, 'tax' | 'currency' | 'timezone'>;
  policy: TaxPolicy;
  accounts: AccountMap;
  contacts: ContactBook;
  invoiceDate: InvoiceDateRule;
  basis: RevenueBasis;
  invoicePrefix: string;
  dueDays: number;
  /** The run's time (`exported` dates). */
  now: Date;
  /** A feed's ledger (kept and updated); without one, each export is on its own. */
  ledger?: Ledger;
  /** Compute payments (the payments file is written). */
  payments: boolean;
}

const status = (order: Order): string => `${order.order_status}/${order.payment_status}`;

/**
 * Turns orders into documents. Each order's first invoice carries its lines; with a ledger (an
 * accounting feed), an order seen again is compared with what its documents already stand for:
 * a change that leaves the amounts alone (a note, a fulfilment step) exports nothing; one that
 * changes them (a refund, a partial refund, a cancellation, changed lines) gives a credit note for
 * the difference when the total falls, a new invoice (`1001-3`) for the difference when it rises,
 * and both (old lines credited, new ones invoiced) when lines change at the same total. An order
 * leaving the revenue basis (refunded, cancelled) is credited in full. The ledger's net is then
 * the net revenue of the invoiced orders.
 */
export class AccountingBook {
  private readonly ledger: Ledger;

  constructor(private readonly options: AccountingBookOptions) {
    this.ledger = options.ledger ?? { orders: {}, contacts: {} };
  }

  add(order: Order): OrderDocuments {
    const o = this.options;
    const current = invoiceLines(order, o.store, o.policy);
    const inBasis = isInBasis(order, o.basis);
    const previous = this.ledger.orders[order.id];
    const withDifference = inBasis && current.some((l) => l.kind === 'difference');
    if (previous === undefined && !inBasis) return { documents: [], payments: [], withDifference };
    const entry: LedgerOrder = previous
      ? { ...previous, lines: { ...previous.lines }, open: previous.open.map(([n, a]) => [n, a]) }
      : {
          number: order.number,
          docs: 0,
          lines: {},
          total: 0,
          paid: 0,
          open: [],
          status: status(order),
          contact: o.contacts.contactFor(order.customer),
        };
    const target = inBasis ? current.filter((l) => l.kind !== 'rounding') : [];
    const targetTotal = inBasis ? linesTotal(current, o.policy) : 0;
    const targetTax = inBasis ? taxOf(current) : 0;
    const documents = this.documents(order, entry, current, target, targetTotal, targetTax);
    entry.tax = targetTax;
    entry.lines = Object.fromEntries(target.map((l) => [l.key, l.amount]));
    entry.total = targetTotal;
    entry.status = status(order);
    const payments = o.payments && inBasis && order.payment_status === 'paid' ? this.pay(order, entry) : [];
    if (o.ledger) this.ledger.orders[order.id] = entry;
    const change: ChangeEntry | undefined = previous && {
      order,
      invoice: this.number(previous.number, 1),
      statusBefore: previous.status,
      statusAfter: entry.status,
      totalBefore: previous.total,
      totalAfter: entry.total,
      action: changeAction(documents),
      documents,
    };
    return { documents, payments, ...(change ? { change } : {}), withDifference };
  }

  /**
   * A document's number; one longer than the program takes (QuickBooks: 21 characters) is a
   * UsageError (exit 2, nothing published): cut, two orders' documents could share a number.
   */
  private number(orderNumber: string, doc: number, credit = false): string {
    const o = this.options;
    const base = `${o.invoicePrefix}${orderNumber}`;
    const numbered = doc === 1 ? base : `${base}-${doc}`;
    const out = credit ? `${o.invoicePrefix}CN-${orderNumber}-${doc}` : numbered;
    const limit = PROFILE_NUMBER_LIMIT[o.profile];
    if (out.length > limit) {
      throw new UsageError(
        `order ${orderNumber}: document number ${out} is ${out.length} characters; ${PROFILE_PROGRAM[o.profile]} takes at most ${limit}${o.invoicePrefix ? ': shorten --invoice-prefix' : ''}`,
        'invoice-prefix',
      );
    }
    return out;
  }

  /** The documents that take the ledger entry from what it stands for to `target`. */
  private documents(
    order: Order,
    entry: LedgerOrder,
    current: readonly InvoiceLine[],
    target: readonly InvoiceLine[],
    targetTotal: number,
    targetTax: number,
  ): AccountingDocument[] {
    const o = this.options;
    if (entry.docs === 0 && targetTotal < 0) {
      // An order whose total is negative (a goodwill adjustment beyond the sale) is money owed to
      // the customer: a credit note, not an invoice with a negative total.
      entry.docs = 1;
      return [
        this.document(
          'credit_note',
          this.number(entry.number, 1, true),
          order.id,
          order,
          entry,
          this.firstDate(order),
          current.map((l) => negate(this.line(l))),
        ),
      ];
    }
    if (entry.docs === 0) {
      // The first invoice: the order's lines as they are.
      entry.docs = 1;
      const number = this.number(entry.number, 1);
      entry.open.push([number, targetTotal]);
      return [
        this.document(
          'invoice',
          number,
          order.id,
          order,
          entry,
          this.firstDate(order),
          current.map((l) => this.line(l)),
        ),
      ];
    }
    const byKey = new Map(current.map((l) => [l.key, l]));
    const want = new Map(target.map((l) => [l.key, l.amount]));
    const deltaLines: InvoiceLine[] = [];
    for (const key of new Set([...Object.keys(entry.lines), ...want.keys()])) {
      const d = (want.get(key) ?? 0) - (entry.lines[key] ?? 0);
      if (d !== 0) deltaLines.push(this.deltaLine(key, d, byKey.get(key)));
    }
    const change = targetTotal - entry.total;
    // The tax of a credit note or later invoice: exactly the change in the order's tax (a ledger
    // written before issue 39 has no standing tax: the lines' own tax then).
    const taxChange = entry.tax === undefined ? undefined : targetTax - entry.tax;
    const deltas = (
      change !== 0 && taxChange !== undefined && o.policy.mode !== 'line'
        ? fitSigned(deltaLines, taxChange, o.policy)
        : deltaLines
    ).map((l) => this.line(l));
    if (deltas.length === 0 && change === 0) return [];
    const added = (lines: readonly DocumentLine[]): number =>
      lines.reduce((s, l) => s + l.amount + (o.policy.mode === 'exclusive' ? l.tax : 0), 0);
    const rounding = (lines: DocumentLine[], total: number): DocumentLine[] => {
      const r = total - added(lines);
      return r === 0 ? lines : [...lines, this.line(roundingLine(r))];
    };
    const date =
      o.invoiceDate === 'exported'
        ? dayInZone(o.now.getTime(), o.store.timezone)
        : dayInZone(order.updated_at, o.store.timezone);
    const credited = this.number(entry.number, 1);
    const credit = (lines: DocumentLine[]): AccountingDocument => {
      entry.docs++;
      return this.document(
        'credit_note',
        this.number(entry.number, entry.docs, true),
        credited,
        order,
        entry,
        date,
        lines.map(negate),
      );
    };
    const invoice = (lines: DocumentLine[]): AccountingDocument => {
      entry.docs++;
      const number = this.number(entry.number, entry.docs);
      const doc = this.document('invoice', number, order.id, order, entry, date, lines);
      entry.open.push([number, doc.total]);
      return doc;
    };
    if (change < 0) return [credit(rounding(deltas, change))];
    if (change > 0) return [invoice(rounding(deltas, change))];
    // Lines changed at the same total: credit what fell, invoice what rose (with the rounding that
    // keeps the two equal; an invoice of rounding alone when only tax rounding moved).
    const fell = deltas.filter((l) => l.amount < 0);
    const rose = deltas.filter((l) => l.amount > 0);
    const fellTotal = added(fell);
    return [...(fell.length > 0 ? [credit(fell)] : []), invoice(rounding(rose, -fellTotal))];
  }

  private firstDate(order: Order): string {
    const o = this.options;
    if (o.invoiceDate === 'exported') return dayInZone(o.now.getTime(), o.store.timezone);
    // The API has no payment time: a paid order's latest change is when it was (last) seen paid.
    if (o.invoiceDate === 'paid' && order.payment_status === 'paid')
      return dayInZone(order.updated_at, o.store.timezone);
    return dayInZone(order.created_at, o.store.timezone);
  }

  private document(
    type: AccountingDocument['type'],
    number: string,
    reference: string,
    order: Order,
    entry: LedgerOrder,
    date: string,
    lines: DocumentLine[],
  ): AccountingDocument {
    const exclusive = this.options.policy.mode === 'exclusive';
    const total = lines.reduce((s, l) => s + l.amount + (exclusive ? l.tax : 0), 0);
    const tax =
      lines.reduce((s, l) => s + l.tax, 0) +
      lines.filter((l) => l.kind === 'tax').reduce((s, l) => s + l.amount, 0);
    return {
      type,
      number,
      reference,
      order,
      contact: entry.contact,
      date,
      due: addDays(date, this.options.dueDays),
      lines,
      total,
      tax,
    };
  }

  private line(l: InvoiceLine): DocumentLine {
    const o = this.options;
    return {
      kind: l.kind,
      description: l.description,
      quantity: l.quantity,
      unitAmount: l.unitAmount,
      amount: l.amount,
      account: accountFor(LINE_ACCOUNT[l.kind], o.accounts, o.profile),
      taxType: l.taxed ? o.policy.taxed : o.policy.zero,
      tax: l.tax,
      sku: l.sku,
    };
  }

  /** A line for a change of `d` in the line `key` (described from the order's current line when it has one). */
  private deltaLine(key: string, d: number, now: InvoiceLine | undefined): InvoiceLine {
    const o = this.options;
    const kind: InvoiceLineKind =
      now?.kind ??
      (key.startsWith('li:') ? 'item' : key.startsWith('discount:') ? 'discount' : (key as InvoiceLineKind));
    const taxed = now?.taxed ?? (o.policy.mode !== 'line' && kind !== 'tax' && kind !== 'rounding');
    const unit = now && now.quantity > 1 && d % now.unitAmount === 0 ? now.unitAmount : null;
    const quantity = unit === null ? 1 : Math.abs(d / unit);
    const tax = taxed ? programTax([d], o.policy, o.policy.mode === 'inclusive') : 0;
    return {
      kind,
      key,
      description: now?.description ?? `Line no longer on the order (${key})`,
      quantity,
      unitAmount: unit === null ? d : Math.sign(d) * unit,
      amount: d,
      sku: now?.sku ?? null,
      taxed,
      tax,
    };
  }

  /** Payments of a paid order's open invoices, up to what its documents stand for. */
  private pay(order: Order, entry: LedgerOrder): PaymentEntry[] {
    const o = this.options;
    const account = paymentAccountFor(order.payment_method, o.accounts) ?? '';
    const date =
      o.invoiceDate === 'exported'
        ? dayInZone(o.now.getTime(), o.store.timezone)
        : dayInZone(order.updated_at, o.store.timezone);
    let owed = entry.total - entry.paid;
    const out: PaymentEntry[] = [];
    for (const open of entry.open) {
      if (owed <= 0) break;
      const amount = Math.min(open[1], owed);
      if (amount <= 0) continue;
      out.push({
        number: open[0],
        order,
        contact: entry.contact,
        date,
        amount,
        method: order.payment_method,
        account,
      });
      open[1] -= amount;
      owed -= amount;
      entry.paid += amount;
    }
    entry.open = entry.open.filter(([, left]) => left > 0);
    return out;
  }
}

function negate(l: DocumentLine): DocumentLine {
  return { ...l, unitAmount: -l.unitAmount, amount: -l.amount, tax: -l.tax };
}

/**
 * What a change did, for the changes file. Lines swapped at the same total give a credit note and
 * a new invoice of the same amount: neither program's import can allocate a credit note to an
 * invoice, so the action says which invoice to allocate it to (one click in either program; left
 * alone, both stay open and the customer's balance is right but two documents wait to be matched).
 */
function changeAction(documents: readonly AccountingDocument[]): string {
  if (documents.length === 0) return 'none: amounts unchanged, not exported again';
  const text = documents
    .map((d) => `${d.type === 'invoice' ? 'invoice' : 'credit note'} ${d.number}`)
    .join(' + ');
  const credit = documents.find((d) => d.type === 'credit_note');
  const invoice = documents.find((d) => d.type === 'invoice');
  return credit && invoice
    ? `${text} (same total: allocate credit note ${credit.number} to invoice ${invoice.number})`
    : text;
}

/** The tax the program computes for lines: each line's tax, plus the amount of a tax line (`line` mode). */
function taxOf(lines: readonly InvoiceLine[]): number {
  return lines.reduce((s, l) => s + l.tax + (l.kind === 'tax' ? l.amount : 0), 0);
}

/**
 * fitProgramTax for a document's lines of either sign: a credit's lines (negative) are fitted as
 * their opposites, so the penny moves from the largest credited line.
 */
function fitSigned(lines: readonly InvoiceLine[], want: number, policy: TaxPolicy): InvoiceLine[] {
  const inclusive = policy.mode === 'inclusive';
  const sum = lines.reduce((s, l) => s + l.amount, 0);
  if (sum >= 0) return fitProgramTax(lines, want, policy, inclusive);
  const flip = (l: InvoiceLine): InvoiceLine => ({
    ...l,
    unitAmount: -l.unitAmount,
    amount: -l.amount,
    tax: -l.tax,
  });
  return fitProgramTax(lines.map(flip), -want, policy, inclusive).map(flip);
}
