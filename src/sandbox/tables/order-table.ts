import { FulfillmentStatus, Order, OrderStatus, PaymentStatus } from '../../schema/index.js';
import { parseLimit } from '../pagination.js';
import { fromZodError, invalidParam } from '../sandbox-error.js';
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
}
