import { CustomerCreate, CustomerUpdate, type Customer } from '../../schema/index.js';
import { parseLimit } from '../pagination.js';
import { notFound } from '../sandbox-error.js';
import { EntryTable } from './entry-table.js';
import type { Entry } from './list-json.js';
import { dateFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/** Customers: list (`updated_after`), get, create, update. */
export class CustomerTable {
  readonly table: EntryTable<Customer>;

  constructor(private readonly ctx: StoreContext) {
    this.table = new EntryTable(ctx);
  }

  load(customers: readonly Customer[], seqs: readonly number[] | undefined): void {
    customers.forEach((c, i) => {
      this.ctx.clock.observe(Date.parse(c.updated_at));
      this.table.load(c, seqs?.[i]);
    });
  }

  private entry(id: string): Entry<Customer> {
    const c = this.table.get(id);
    if (c === undefined) throw notFound(`no customer with id ${id}`);
    return c;
  }

  /** GET /api/v2/customers: `limit`, `cursor`, `updated_after`. */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const after = dateFilter(query, 'updated_after');
    return this.table.pageJson(
      query.get('cursor'),
      limit,
      after === undefined ? undefined : (e) => Date.parse(e.value.updated_at) > after,
    );
  }

  get(id: string): Customer {
    return this.entry(id).value;
  }

  create(body: unknown): Customer {
    const b = parseBody(CustomerCreate, body);
    const now = this.ctx.clock.tick();
    const value: Customer = {
      id: this.ctx.newId('cus', (x) => this.table.has(x)),
      object: 'customer',
      name: b.name,
      email: b.email ?? null,
      phone: b.phone,
      address: null,
      created_at: now,
      updated_at: now,
    };
    this.table.add(value);
    this.ctx.changed();
    return value;
  }

  update(id: string, body: unknown): Customer {
    const e = this.entry(id);
    const b = parseBody(CustomerUpdate, body);
    const value: Customer = { ...e.value, updated_at: this.ctx.clock.tick() };
    if (b.name !== undefined) value.name = b.name;
    if (b.phone !== undefined) value.phone = b.phone;
    if (b.email !== undefined) value.email = b.email;
    this.table.replace(e, value);
    this.ctx.changed();
    return value;
  }
}
