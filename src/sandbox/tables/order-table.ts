import { FulfillmentStatus, Order, OrderStatus, PaymentStatus } from '../../schema/index.js';
import { parseLimit } from '../pagination.js';
import { fromZodError, invalidParam, notFound } from '../sandbox-error.js';
import { recomputeOrderMoney } from '../order-money.js';
import type { Store } from '../../schema/index.js';
import { EntryTable } from './entry-table.js';
import type { Entry } from './list-json.js';
import { enumFilter, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/** Orders: list with status filters, and the admin upsert (the API itself never writes orders). */
export class OrderTable {
  readonly table: EntryTable<Order>;

  constructor(private readonly ctx: StoreContext) {
    this.table = new EntryTable(ctx);
  }

  load(orders: readonly Order[], seqs: readonly number[] | undefined): void {
    orders.forEach((o, i) => {
      this.ctx.clock.observe(Date.parse(o.updated_at));
      this.table.load(o, seqs?.[i]);
    });
  }

  /** GET /api/v2/orders: `limit`, `cursor`, `order_status`, `payment_status`, `fulfillment_status`. */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const os = enumFilter(query, 'order_status', OrderStatus);
    const ps = enumFilter(query, 'payment_status', PaymentStatus);
    const fs = enumFilter(query, 'fulfillment_status', FulfillmentStatus);
    const filter =
      os === undefined && ps === undefined && fs === undefined
        ? undefined
        : (e: Entry<Order>) =>
            (os === undefined || e.value.order_status === os) &&
            (ps === undefined || e.value.payment_status === ps) &&
            (fs === undefined || e.value.fulfillment_status === fs);
    return this.table.pageJson(query.get('cursor'), limit, filter);
  }

  /**
   * Admin: adds or updates orders (an Order or an array). An existing id is merged with the
   * given fields (so `{id, order_status}` is enough); a new one must be a whole Order.
   * `updated_at` always advances; `created_at` of an existing order never changes.
   */
  upsert(body: unknown): Order[] {
    const list = Array.isArray(body) ? (body as unknown[]) : [body];
    const parsed: Order[] = list.map((raw, i) => {
      const id = (raw as { id?: unknown } | null)?.id;
      const existing = typeof id === 'string' ? this.table.get(id) : undefined;
      const merged: unknown = existing === undefined ? raw : { ...existing.value, ...(raw as object) };
      const r = Order.safeParse(merged);
      if (!r.success) {
        const err = fromZodError(r.error, merged);
        if (!Array.isArray(body)) throw err;
        throw invalidParam(err.param === undefined ? String(i) : `${i}.${err.param}`, err.message, err.code);
      }
      if (existing !== undefined) r.data.created_at = existing.value.created_at;
      return r.data;
    });
    const out: Order[] = [];
    for (const o of parsed) {
      const now = this.ctx.clock.tick();
      const existing = this.table.get(o.id);
      o.updated_at = now;
      if (existing !== undefined) this.table.replace(existing, o);
      else this.table.add(o);
      out.push(o);
    }
    this.ctx.changed();
    return out;
  }

  /**
   * Admin: a refund after the sale. `{}` refunds the whole order (payment_status `refunded`, the
   * amounts as they were: what was sold and given back). `{line_items: [{id, quantity}]}` refunds
   * part of it: each line loses that quantity (a line at 0 leaves the order), the money is worked
   * out again (recomputeOrderMoney) and the order stays `paid`. Only a paid order can be refunded.
   */
  refund(id: string, body: unknown, store: Pick<Store, 'tax' | 'service_charge'>): Order {
    const existing = this.table.get(id);
    if (existing === undefined) throw notFound(`no order with id ${id}`);
    const order = existing.value;
    if (order.payment_status !== 'paid') {
      throw invalidParam(
        'payment_status',
        `order ${id} is ${order.payment_status}, not paid: nothing to refund`,
      );
    }
    const lines = (body as { line_items?: unknown } | undefined)?.line_items;
    let next: Order;
    if (lines === undefined) {
      next = { ...order, payment_status: 'refunded' };
    } else {
      if (!Array.isArray(lines) || lines.length === 0) {
        throw invalidParam('line_items', 'line_items must be a non-empty array of {id, quantity}');
      }
      const items = order.line_items.map((l) => ({ ...l }));
      lines.forEach((raw, i) => {
        const entry = raw as { id?: unknown; quantity?: unknown } | null;
        const line = items.find((l) => l.id === entry?.id);
        if (!line) throw invalidParam(`line_items.${i}.id`, `order ${id} has no line ${String(entry?.id)}`);
        const q = entry?.quantity;
        if (typeof q !== 'number' || !Number.isInteger(q) || q < 1 || q > line.quantity) {
          throw invalidParam(
            `line_items.${i}.quantity`,
            `quantity must be a whole number from 1 to ${line.quantity}`,
          );
        }
        line.quantity -= q;
        line.quantity_float = line.quantity;
        line.total_amount = line.price * line.quantity;
      });
      const left = items.filter((l) => l.quantity > 0);
      if (left.length === 0)
        throw invalidParam('line_items', 'that is every line: refund the whole order with {}');
      next = recomputeOrderMoney({ ...order, line_items: left }, store);
    }
    return this.replaceWith(existing, next);
  }

  /** Admin: cancels an order (`cancelled`; a paid order is `refunded`, any other `voided`). */
  cancel(id: string): Order {
    const existing = this.table.get(id);
    if (existing === undefined) throw notFound(`no order with id ${id}`);
    const order = existing.value;
    return this.replaceWith(existing, {
      ...order,
      order_status: 'cancelled',
      payment_status: order.payment_status === 'paid' ? 'refunded' : 'voided',
    });
  }

  private replaceWith(existing: Entry<Order>, order: Order): Order {
    const next = { ...order, updated_at: this.ctx.clock.tick() };
    this.table.replace(existing, next);
    this.ctx.changed();
    return next;
  }
}
