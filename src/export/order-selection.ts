import { FULFILLMENT_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES, type Order } from '../schema/order.js';

/**
 * Which orders an export takes, by status: each dimension is a set of allowed values (absent = any).
 * `mbulk export orders --status completed,confirmed --payment-status paid`.
 */
export interface OrderSelection {
  order_status?: readonly string[];
  payment_status?: readonly string[];
  fulfillment_status?: readonly string[];
}

export type SelectionDimension = keyof OrderSelection;

export const SELECTION_VALUES: Record<SelectionDimension, readonly string[]> = {
  order_status: ORDER_STATUSES,
  payment_status: PAYMENT_STATUSES,
  fulfillment_status: FULFILLMENT_STATUSES,
};

/**
 * `--revenue`: what a sale that brought money in is. An order counts as revenue when its
 * `payment_status` is `paid` (so refunded, voided, pending, confirming and partially paid orders
 * are out) and its `order_status` is neither `cancelled` nor `draft`.
 */
export const REVENUE_DEFINITION =
  'payment_status = paid, and order_status is not cancelled or draft (refunded, voided, pending, confirming, partial, cancelled and draft orders are left out)';

export const REVENUE_SELECTION: Required<Pick<OrderSelection, 'order_status' | 'payment_status'>> = {
  order_status: ORDER_STATUSES.filter((s) => s !== 'cancelled' && s !== 'draft'),
  payment_status: ['paid'],
};

/** True when the order counts as revenue (REVENUE_DEFINITION). */
export function isRevenue(order: Pick<Order, 'order_status' | 'payment_status'>): boolean {
  // One rule: the same selection `--revenue` reads.
  return (
    REVENUE_SELECTION.payment_status.includes(order.payment_status) &&
    REVENUE_SELECTION.order_status.includes(order.order_status)
  );
}

/**
 * A comma-separated list of statuses (`completed,confirmed`), lower-cased and de-duplicated.
 * Throws a RangeError naming the option and the allowed values for an unknown value or an empty list.
 */
export function parseStatusList(option: string, text: string, allowed: readonly string[]): string[] {
  const values = [
    ...new Set(
      text
        .split(',')
        .map((v) => v.trim().toLowerCase())
        .filter((v) => v !== ''),
    ),
  ];
  if (values.length === 0)
    throw new RangeError(`--${option} needs at least one value (${allowed.join(', ')})`);
  const bad = values.filter((v) => !allowed.includes(v));
  if (bad.length > 0) {
    throw new RangeError(
      `--${option} must be among ${allowed.join(', ')} (got ${bad.map((b) => `"${b}"`).join(', ')})`,
    );
  }
  return values;
}

/** The intersection of two selections (a dimension absent from one is taken from the other). */
export function intersectSelections(a: OrderSelection, b: OrderSelection): OrderSelection {
  const out: OrderSelection = {};
  for (const dim of Object.keys(SELECTION_VALUES) as SelectionDimension[]) {
    const x = a[dim];
    const y = b[dim];
    if (x && y) out[dim] = x.filter((v) => y.includes(v));
    else if (x ?? y) out[dim] = (x ?? y) as readonly string[];
  }
  return out;
}

/** True when some dimension allows no value at all (nothing could be exported). */
export function isEmptySelection(selection: OrderSelection): boolean {
  return Object.values(selection).some((values: readonly string[] | undefined) => values?.length === 0);
}

/** True when the order is in the selection (checked client-side on every order read). */
export function matchesSelection(order: Order, selection: OrderSelection): boolean {
  for (const dim of Object.keys(SELECTION_VALUES) as SelectionDimension[]) {
    const allowed = selection[dim];
    if (allowed && !allowed.includes(order[dim])) return false;
  }
  return true;
}

/** The query of one list read. */
export type OrderListQuery = Partial<Record<SelectionDimension, string>>;

/**
 * The list reads that cover a selection with the fewest requests we can know of in advance:
 * single-valued dimensions are sent to the API as filters; the first multi-valued dimension is
 * read once per value (each read returns only matching orders, so together they read no more
 * than one unfiltered read would); other multi-valued dimensions are filtered client-side
 * (`matchesSelection`). Orders that appear in two reads (changed status mid-export) are dropped by
 * the export's de-duplication.
 */
export function selectionReads(selection: OrderSelection): OrderListQuery[] {
  const base: OrderListQuery = {};
  let fanOut: { dim: SelectionDimension; values: readonly string[] } | undefined;
  for (const dim of Object.keys(SELECTION_VALUES) as SelectionDimension[]) {
    const values = selection[dim];
    if (!values || values.length === SELECTION_VALUES[dim].length) continue;
    if (values.length === 1) base[dim] = values[0] as string;
    else fanOut ??= { dim, values };
  }
  if (!fanOut) return [base];
  const { dim, values } = fanOut;
  return values.map((v) => ({ ...base, [dim]: v }));
}

/**
 * The list reads of an order export. An accounting feed reads every order: it keeps a ledger of
 * what it invoiced, and an invoiced order that left the selection (refunded, cancelled) must still
 * be read to be credited; the selection is then applied to each order as it is read.
 */
export function orderExportReads(
  selection: OrderSelection,
  options: { profile?: string | undefined; incremental?: boolean | undefined },
): OrderListQuery[] {
  return options.profile !== undefined && options.incremental ? [{}] : selectionReads(selection);
}

/** `order_status=completed,confirmed&payment_status=paid`: a stable text of the selection (state keys, messages). */
export function selectionText(selection: OrderSelection): string {
  return (Object.keys(SELECTION_VALUES) as SelectionDimension[])
    .filter((dim) => selection[dim] !== undefined)
    .map((dim) => `${dim}=${[...(selection[dim] as readonly string[])].sort().join(',')}`)
    .join('&');
}

/**
 * The revenue basis of an export (`--basis`): `paid` (cash basis, the default) counts the orders
 * REVENUE_DEFINITION names; `accrual` counts confirmed and completed orders whatever their payment,
 * unless refunded.
 */
export type RevenueBasis = 'paid' | 'accrual';
export const REVENUE_BASES: readonly RevenueBasis[] = ['paid', 'accrual'];
export const ACCRUAL_DEFINITION =
  'order_status = confirmed or completed and not refunded, whatever else the payment status (draft, pending and cancelled orders, and refunded ones, are left out)';

/** True when the order counts as revenue on this basis. */
export function isInBasis(
  order: Pick<Order, 'order_status' | 'payment_status'>,
  basis: RevenueBasis,
): boolean {
  if (basis === 'paid') return isRevenue(order);
  // A refund reverses a sale on either basis (issue 39): a refunded order is credited.
  return (
    (order.order_status === 'confirmed' || order.order_status === 'completed') &&
    order.payment_status !== 'refunded'
  );
}

/** What a basis counts, in words. */
export function basisDefinition(basis: RevenueBasis): string {
  return basis === 'paid' ? `paid (cash basis): ${REVENUE_DEFINITION}` : `accrual: ${ACCRUAL_DEFINITION}`;
}
