import { UsageError } from '../errors/usage-error.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { paymentAccountFor, type AccountKind, type AccountMap } from './accounting-accounts.js';
import type { Ledger, LedgerOrder } from './accounting-ledger.js';
import {
  addDays,
  dayInZone,
  PROFILE_PROGRAM,
  type AccountingProfile,
  type InvoiceDateRule,
} from './accounting-profile.js';
import type { TaxPolicy } from './accounting-tax.js';
import { invoiceLines, type InvoiceLineKind } from './invoice-lines.js';
import { isInBasis, type RevenueBasis } from './order-selection.js';

/**
 * Summary journals (`--profile xero-journal|quickbooks-journal`): one balanced journal per store per
 * day, week or month instead of an invoice per order, as connectors post a marketplace's sales.
 *
 * Each order in the basis stands for a set of postings (debit positive, credit negative, minor
 * units): a credit per kind of line at its net amount, split by the rate the store's tax covers it
 * at (its rate, or none: inferTaxedBase) — sales, shipping, service charge, tips, discounts (a
 * debit), adjustments and differences —, the store's tax as a credit to the `tax` account, and a debit of
 * the order's total to the clearing account of its payment method (`payment.METHOD=`, else
 * `payment=`) when it is paid, else to `receivable` (accrual basis). Each order's postings add up
 * to zero, so every journal balances to the minor unit.
 *
 * A feed's ledger keeps what each order stands for; an order seen again posts only the difference,
 * on the day of the change (a refund or cancellation of an earlier day reverses the lines it
 * concerns on the day it happens, as lines of their own; a payment of an accrued sale moves the
 * total from receivable to clearing). An order leaving the basis reverses in full.
 */
export type JournalPeriod = 'day' | 'week' | 'month';
export const JOURNAL_PERIODS: readonly JournalPeriod[] = ['day', 'week', 'month'];

/** One summed line of a journal: what it is, on which account, at which rate. */
export interface JournalLine {
  /** `sale`: orders first posted in the period; `change`: refunds and changes of orders posted before. */
  event: 'sale' | 'change';
  /** `Sales`, `Tax`, `Payments: card`…: with the rate, the line's description. */
  label: string;
  account: string;
  /** The store's rate the line is at (sales and tax), 0 for a line outside the tax, null where it does not apply. */
  rate: number | null;
  /** Debit positive, credit negative, minor units. */
  amount: number;
  /** The tax the program adds to the line at its rate (Xero's manual journals: xeroJournalTax), debit positive. */
  tax?: number;
}

/** A period's journal. */
export interface Journal {
  /** `2026-11-23`, `2026-W48` (week starting Monday 2026-11-23: `week of 2026-11-23`), `2026-11`. */
  period: string;
  /** The journal's date: the last day of the period that has a posting. */
  date: string;
  /** Orders that posted in it. */
  orders: number;
  lines: JournalLine[];
}

const LABEL: Record<InvoiceLineKind, string> = {
  item: 'Sales',
  answers: 'Sales',
  discount: 'Discounts',
  service: 'Shipping',
  service_charge: 'Service charge',
  tip: 'Tips',
  adjustment: 'Adjustments',
  difference: 'Adjustments',
  tax: 'Tax',
  rounding: 'Rounding',
};
const KIND_ACCOUNT: Record<InvoiceLineKind, AccountKind> = {
  item: 'sales',
  answers: 'sales',
  discount: 'discount',
  service: 'shipping',
  service_charge: 'service-charge',
  tip: 'tips',
  adjustment: 'adjustment',
  difference: 'adjustment',
  tax: 'tax',
  rounding: 'rounding',
};

/**
 * Accounts of a journal when `--accounts` leaves a kind out. Xero: its default chart's codes (200
 * Sales, 260 Other Revenue for tips, 820 the sales-tax/VAT/GST liability, 860 Rounding); QuickBooks
 * Online: account names (its journal import matches accounts by name; the ones missing are created
 * first in the chart of accounts). Any other kind takes the sales account; `receivable` has none.
 */
export const JOURNAL_DEFAULT_ACCOUNTS: Record<AccountingProfile, Partial<Record<AccountKind, string>>> = {
  xero: { sales: '200', tips: '260', tax: '820', rounding: '860' },
  quickbooks: {
    sales: 'Sales',
    shipping: 'Shipping Income',
    'service-charge': 'Service Charge Income',
    tips: 'Tips',
    discount: 'Discounts',
    adjustment: 'Sales Adjustments',
    rounding: 'Rounding',
    tax: 'Sales Tax Collected',
  },
};

export function journalAccountFor(
  kind: AccountKind,
  map: AccountMap,
  profile: AccountingProfile,
): string | undefined {
  const defaults = JOURNAL_DEFAULT_ACCOUNTS[profile];
  if (kind === 'receivable') return map.lines.receivable;
  return map.lines[kind] ?? defaults[kind] ?? map.lines.sales ?? defaults.sales;
}

export interface JournalBookOptions {
  profile: AccountingProfile;
  store: Pick<Store, 'tax' | 'currency' | 'timezone'>;
  /** A `line` mode policy: net lines, the tax a line of its own. */
  policy: TaxPolicy;
  accounts: AccountMap;
  basis: RevenueBasis;
  period: JournalPeriod;
  /** Which day an order's first postings are on (`created`, `paid`: when seen paid, `exported`). */
  postingDate: InvoiceDateRule;
  now: Date;
  ledger?: Ledger;
}

const SEP = '\u0000';

/** Postings (key → debit-positive amount) and the journals they fall into. */
export class JournalBook {
  private readonly ledger: Ledger;
  private readonly periods = new Map<
    string,
    { date: string; orders: Set<string>; lines: Map<string, number> }
  >();

  constructor(private readonly options: JournalBookOptions) {
    this.ledger = options.ledger ?? { orders: {}, contacts: {} };
  }

  /**
   * Posts an order (what it stands for now, less what it stood for when last posted). Returns the
   * day posted on, or null when nothing changed. A UsageError (exit 2) when a posting needs an
   * account `--accounts` does not give (a payment method's clearing account, `receivable`).
   */
  add(order: Order): string | null {
    const o = this.options;
    const previous = this.ledger.orders[order.id];
    const inBasis = isInBasis(order, o.basis);
    if (previous === undefined && !inBasis) return null;
    const target = inBasis ? this.postings(order) : new Map<string, number>();
    const standing = previous?.lines ?? {};
    const deltas = new Map<string, number>();
    for (const key of new Set([...Object.keys(standing), ...target.keys()])) {
      const d = (target.get(key) ?? 0) - (standing[key] ?? 0);
      if (d !== 0) deltas.set(key, d);
    }
    const total = inBasis ? int(order.total_amount) : 0;
    const entry: LedgerOrder = {
      number: order.number,
      docs: (previous?.docs ?? 0) + (deltas.size > 0 || previous === undefined ? 1 : 0),
      lines: Object.fromEntries(target),
      total,
      paid: inBasis && order.payment_status === 'paid' ? total : 0,
      open: [],
      status: `${order.order_status}/${order.payment_status}`,
      contact: '',
    };
    if (o.ledger) this.ledger.orders[order.id] = entry;
    if (deltas.size === 0) return null;
    const date = previous === undefined ? this.firstDate(order) : this.changeDate(order);
    const event = previous === undefined ? 'sale' : 'change';
    const period = periodOf(date, o.period);
    let bucket = this.periods.get(period);
    if (!bucket) this.periods.set(period, (bucket = { date, orders: new Set(), lines: new Map() }));
    if (date > bucket.date) bucket.date = date;
    bucket.orders.add(order.id);
    for (const [key, d] of deltas) {
      const k = `${event}${SEP}${key}`;
      bucket.lines.set(k, (bucket.lines.get(k) ?? 0) + d);
    }
    return date;
  }

  /** The journals, by period; lines that sum to zero left out. */
  journals(): Journal[] {
    return [...this.periods.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([period, b]) => ({
        period,
        date: b.date,
        orders: b.orders.size,
        lines: [...b.lines.entries()]
          .filter(([, amount]) => amount !== 0)
          .map(([k, amount]) => {
            const [event, label, account, rate] = k.split(SEP) as [
              JournalLine['event'],
              string,
              string,
              string,
            ];
            return { event, label, account, rate: rate === '' ? null : Number(rate), amount };
          })
          .sort(lineOrder),
      }))
      .filter((j) => j.lines.length > 0);
  }

  /** What an order stands for: key (label, account, rate) → debit-positive amount. */
  private postings(order: Order): Map<string, number> {
    const o = this.options;
    const out = new Map<string, number>();
    const post = (label: string, account: string, rate: number | null, amount: number): void => {
      if (amount === 0) return;
      const key = [label, account, rate === null ? '' : String(rate)].join(SEP);
      out.set(key, (out.get(key) ?? 0) + amount);
    };
    const p = o.policy.percent;
    for (const l of invoiceLines(order, o.store, o.policy)) {
      const account = this.account(KIND_ACCOUNT[l.kind], order);
      // Every line of the sale at the rate the store's tax covers it at (its rate, or none), so a
      // program that keeps tax by rate (Xero) sees shipping, service charge, discounts and tips as
      // the store taxed them; the difference and rounding lines take none.
      const rate =
        l.kind === 'tax'
          ? p
          : l.kind === 'difference' || l.kind === 'rounding'
            ? 0
            : l.covered === true
              ? p
              : 0;
      post(LABEL[l.kind], account, rate, -l.amount);
    }
    const total = int(order.total_amount);
    if (order.payment_status === 'paid') {
      const method = order.payment_method || 'unknown';
      const account = paymentAccountFor(method, o.accounts);
      if (account === undefined) {
        throw new UsageError(
          `--profile ${o.profile}-journal: order ${order.number} was paid by ${method}, which has no clearing account: add payment.${method}=ACCOUNT (or payment=ACCOUNT) to --accounts`,
          'accounts',
        );
      }
      post(`Payments: ${method}`, account, null, total);
    } else {
      post('Unpaid sales', this.account('receivable', order), null, total);
    }
    return out;
  }

  private account(kind: AccountKind, order: Order): string {
    const o = this.options;
    const account = journalAccountFor(kind, o.accounts, o.profile);
    if (account !== undefined) return account;
    throw new UsageError(
      `--profile ${o.profile}-journal: order ${order.number} is not paid: name the ${PROFILE_PROGRAM[o.profile]} account unpaid sales wait in with --accounts receivable=ACCOUNT (or use --basis paid)`,
      'accounts',
    );
  }

  private firstDate(order: Order): string {
    const o = this.options;
    if (o.postingDate === 'exported') return dayInZone(o.now.getTime(), o.store.timezone);
    if (o.postingDate === 'paid' && order.payment_status === 'paid')
      return dayInZone(order.updated_at, o.store.timezone);
    return dayInZone(order.created_at, o.store.timezone);
  }

  private changeDate(order: Order): string {
    const o = this.options;
    return o.postingDate === 'exported'
      ? dayInZone(o.now.getTime(), o.store.timezone)
      : dayInZone(order.updated_at, o.store.timezone);
  }
}

const int = (n: number): number => (Number.isSafeInteger(n) ? n : Math.round(n));

/** Sales first, then the other revenue lines, tax, rounding, payments, unpaid; a period's sales before its changes. */
export function lineOrder(a: JournalLine, b: JournalLine): number {
  const rank = (l: JournalLine): number => {
    const order = [
      'Sales',
      'Discounts',
      'Shipping',
      'Service charge',
      'Tips',
      'Adjustments',
      'Tax',
      'Rounding',
      'Tax rounding',
    ];
    const i = order.indexOf(l.label);
    return (l.event === 'change' ? 100 : 0) + (i === -1 ? (l.label.startsWith('Payments') ? 20 : 30) : i);
  };
  return (
    rank(a) - rank(b) ||
    (a.label < b.label ? -1 : a.label > b.label ? 1 : 0) ||
    (b.rate ?? -1) - (a.rate ?? -1) ||
    (a.account < b.account ? -1 : a.account > b.account ? 1 : 0)
  );
}

/** The period a day falls in: the day itself, the Monday its week starts on (`W` + that day), the month. */
export function periodOf(day: string, period: JournalPeriod): string {
  if (period === 'day') return day;
  if (period === 'month') return day.slice(0, 7);
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return `W${addDays(day, -((weekday + 6) % 7))}`;
}

/** A period as words: `2026-11-23`, `week of 2026-11-23`, `2026-11`. */
export function periodText(period: string): string {
  return period.startsWith('W') ? `week of ${period.slice(1)}` : period;
}

/** A journal line's description: `Sales at 20%`, `Sales, no tax`, `Tax 20%`, `Refunds and changes: Sales at 20%`. */
export function journalLineText(l: JournalLine): string {
  const rate =
    l.rate === null || l.label === 'Tax rounding'
      ? ''
      : l.label === 'Tax'
        ? ` ${l.rate}%`
        : l.rate === 0
          ? ', no tax'
          : ` at ${l.rate}%`;
  return `${l.event === 'change' ? 'Refunds and changes of earlier orders: ' : ''}${l.label}${rate}`;
}
