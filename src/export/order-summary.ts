import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { zoneOffsetMs } from '../sheets/sheet-writer.js';
import type { ExportCell } from './order-columns.js';
import { basisDefinition, isInBasis, type RevenueBasis } from './order-selection.js';

/**
 * The `summary` sheet (XLSX, first in the workbook) and `<name>-summary.csv`: one table, one row
 * per figure, every figure a sum or count over the rows of the `orders` sheet of the same export:
 *
 * - `total`: all orders, their lines and `total_amount`;
 * - `revenue`: the orders that count as revenue on the export's basis (`paid`, the cash basis, by
 *   default; `accrual`), the basis stated in `note`;
 * - `checks`: check rows and orders whose amounts do not add up (see the `checks` sheet);
 * - `status`: per `order_status` × `payment_status`;
 * - `day`: per day of `created_at` in the store's time zone;
 * - `payment_method`: per payment method;
 * - `tax_day`, `tax_month`: the revenue orders' taxable amount and tax, per tax rate and per day or
 *   month of `created_at` (store zone). Taxable amount = `total_before_tax`, less `tax_amount` when
 *   the store's prices include tax. The API states one tax amount per order and no rate: an order
 *   with tax is at the store's rate, one without at 0%.
 *
 * Money is summed in integer minor units (exact); a `total_amount` that is not an integer (left blank
 * in `orders`) is left out of the sums and counted in `checks`.
 */
export const SUMMARY_SHEET = 'summary';

export interface SummaryRow {
  section: 'total' | 'status' | 'day' | 'payment_method' | 'revenue' | 'checks' | 'tax_day' | 'tax_month';
  order_status: string | null;
  payment_status: string | null;
  day: string | null;
  /** `YYYY-MM` (tax_month). */
  month: string | null;
  payment_method: string | null;
  /** Percent (tax rows). */
  tax_rate: number | null;
  orders: number;
  lines: number | null;
  /** Tax rows: the amount the tax is on. */
  taxable_amount: number | null;
  /** Tax rows: the tax. */
  tax_amount: number | null;
  total_amount: number | null;
  note: string | null;
}

interface Tally {
  orders: number;
  lines: number;
  total: number;
}

interface TaxTally extends Tally {
  taxable: number;
  tax: number;
}

const tally = (): Tally => ({ orders: 0, lines: 0, total: 0 });
const int = (n: number): number => (Number.isSafeInteger(n) ? n : 0);

/** Accumulates the summary while orders stream (memory: one entry per status pair, day, month and method). */
export class OrderSummary {
  private readonly all = tally();
  private readonly revenue = tally();
  private readonly byStatus = new Map<string, Tally & { order_status: string; payment_status: string }>();
  private readonly byDay = new Map<string, Tally>();
  private readonly byMethod = new Map<string, Tally>();
  private readonly taxByDay = new Map<string, TaxTally & { period: string; rate: number }>();
  private readonly taxByMonth = new Map<string, TaxTally & { period: string; rate: number }>();
  private checkRows = 0;
  private ordersWithChecks = 0;

  constructor(
    private readonly store: Pick<Store, 'timezone' | 'tax'>,
    private readonly basis: RevenueBasis = 'paid',
  ) {}

  add(order: Order, checks: number): void {
    const amount = int(order.total_amount);
    const lines = order.line_items.length;
    const bump = (t: Tally): void => {
      t.orders++;
      t.lines += lines;
      t.total += amount;
    };
    bump(this.all);
    const day = this.dayOf(order.created_at);
    if (isInBasis(order, this.basis)) {
      bump(this.revenue);
      const tax = int(order.tax_amount);
      const taxable = int(order.total_before_tax) - (this.store.tax.inclusive ? tax : 0);
      const rate = tax === 0 ? 0 : this.store.tax.percent;
      for (const [map, period] of [
        [this.taxByDay, day],
        [this.taxByMonth, day.slice(0, 7)],
      ] as const) {
        const k = `${period}\u0000${String(rate).padStart(8, '0')}`;
        let t = map.get(k);
        if (!t) map.set(k, (t = { ...tally(), taxable: 0, tax: 0, period, rate }));
        bump(t);
        t.taxable += taxable;
        t.tax += tax;
      }
    }
    const statusKey = `${order.order_status}\u0000${order.payment_status}`;
    let s = this.byStatus.get(statusKey);
    if (!s) {
      s = { ...tally(), order_status: order.order_status, payment_status: order.payment_status };
      this.byStatus.set(statusKey, s);
    }
    bump(s);
    let d = this.byDay.get(day);
    if (!d) this.byDay.set(day, (d = tally()));
    bump(d);
    const method = order.payment_method;
    let m = this.byMethod.get(method);
    if (!m) this.byMethod.set(method, (m = tally()));
    bump(m);
    this.checkRows += checks;
    if (checks > 0) this.ordersWithChecks++;
  }

  /** `YYYY-MM-DD` of an instant in the store's zone ('' when it does not parse). */
  private dayOf(iso: string): string {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return '';
    return new Date(ms + zoneOffsetMs(ms, this.store.timezone)).toISOString().slice(0, 10);
  }

  /** The rows, in sheet order: total, revenue, checks, then the breakdowns (sorted). */
  rows(): SummaryRow[] {
    const row = (section: SummaryRow['section'], t: Tally, extra: Partial<SummaryRow> = {}): SummaryRow => ({
      section,
      order_status: null,
      payment_status: null,
      day: null,
      month: null,
      payment_method: null,
      tax_rate: null,
      orders: t.orders,
      lines: t.lines,
      taxable_amount: null,
      tax_amount: null,
      total_amount: t.total,
      note: null,
      ...extra,
    });
    const out: SummaryRow[] = [
      row('total', this.all, { note: 'all orders in this export' }),
      row('revenue', this.revenue, { note: `revenue, ${basisDefinition(this.basis)}` }),
      {
        ...row('checks', { orders: this.ordersWithChecks, lines: 0, total: 0 }),
        lines: null,
        total_amount: null,
        note: `${this.checkRows} check rows: orders whose own amounts do not add up (see checks)`,
      },
    ];
    const sorted = <V>(m: Map<string, V>): [string, V][] =>
      [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, s] of sorted(this.byStatus)) {
      out.push(row('status', s, { order_status: s.order_status, payment_status: s.payment_status }));
    }
    for (const [day, t] of sorted(this.byDay)) out.push(row('day', t, { day: day === '' ? null : day }));
    for (const [method, t] of sorted(this.byMethod))
      out.push(row('payment_method', t, { payment_method: method }));
    const taxRow = (section: 'tax_day' | 'tax_month', t: TaxTally & { period: string; rate: number }) =>
      row(section, t, {
        ...(section === 'tax_day' ? { day: t.period === '' ? null : t.period } : { month: t.period || null }),
        tax_rate: t.rate,
        taxable_amount: t.taxable,
        tax_amount: t.tax,
      });
    for (const [, t] of sorted(this.taxByDay)) out.push(taxRow('tax_day', t));
    for (const [, t] of sorted(this.taxByMonth)) out.push(taxRow('tax_month', t));
    return out;
  }

  /** Check rows counted. */
  get checks(): number {
    return this.checkRows;
  }
}

/** A summary row as the sheet writer takes it. */
export function summarySheetRow(row: SummaryRow): Record<string, ExportCell> {
  return { ...row };
}
