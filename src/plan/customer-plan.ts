import type { DesiredCustomer } from '../mapping/customer-sheet.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { Customer, CustomerCreate, CustomerUpdate } from '../schema/customer.js';

/** What the customer plan needs of a live customer. */
export interface LiveCustomer {
  id: string;
  name: string;
  phone: string;
  email: string | null;
  updatedAt: string;
}

export class LiveCustomerIndex {
  readonly byId = new Map<string, LiveCustomer>();
  readonly byPhone = new Map<string, LiveCustomer>();
  readonly byEmail = new Map<string, LiveCustomer>();

  static fromCustomers(customers: Iterable<Customer>): LiveCustomerIndex {
    const index = new LiveCustomerIndex();
    for (const c of customers) index.add(c);
    return index;
  }

  get size(): number {
    return this.byId.size;
  }

  add(c: Customer): void {
    const live: LiveCustomer = {
      id: c.id,
      name: c.name,
      phone: c.phone,
      email: c.email,
      updatedAt: c.updated_at,
    };
    this.byId.set(c.id, live);
    if (c.phone && !this.byPhone.has(c.phone)) this.byPhone.set(c.phone, live);
    if (c.email) {
      const e = c.email.toLowerCase();
      if (!this.byEmail.has(e)) this.byEmail.set(e, live);
    }
  }
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export type CustomerAction = 'create' | 'update' | 'noop' | 'skip';

/** One planned customer operation. Plain JSON: saved in plan.json. */
export interface CustomerPlanEntry {
  action: CustomerAction;
  sheet: string;
  rowNumber: number;
  /** Stable identity of the operation (idempotency keys, journal). */
  key: string;
  customerId?: string;
  matchedBy?: 'id' | 'phone' | 'email';
  create?: CustomerCreate;
  update?: CustomerUpdate;
  changes: FieldChange[];
  expectedUpdatedAt?: string;
}

export interface CustomerPlan {
  kind: 'customers';
  entries: CustomerPlanEntry[];
  issues: RowIssue[];
  counts: Record<CustomerAction | 'invalid', number>;
}

function rowIssue(d: DesiredCustomer, code: string, message: string, value?: string): RowIssue {
  const i: RowIssue = { severity: 'error', code, message, sheet: d.sheet, rowNumber: d.rowNumber };
  if (value !== undefined) i.value = value;
  return i;
}

/**
 * Diffs desired customers against the live index: match by id, else normalised phone, else email
 * (case-insensitive); create / update (field-level) / noop. Two rows for one customer are an error
 * on the later row. Pure.
 */
export function planCustomers(desired: Iterable<DesiredCustomer>, live: LiveCustomerIndex): CustomerPlan {
  const entries: CustomerPlanEntry[] = [];
  const issues: RowIssue[] = [];
  const seenPhone = new Map<string, number>();
  const seenEmail = new Map<string, number>();
  const seenCustomer = new Map<string, number>();
  const counts: CustomerPlan['counts'] = { create: 0, update: 0, noop: 0, skip: 0, invalid: 0 };

  for (const d of desired) {
    const base = { sheet: d.sheet, rowNumber: d.rowNumber };
    if (d.command === 'skip') {
      entries.push({ ...base, action: 'skip', key: `skip:${d.sheet}:${d.rowNumber}`, changes: [] });
      counts.skip++;
      continue;
    }
    const email = d.email ? d.email.toLowerCase() : undefined;
    const dupPhone = d.phone !== undefined ? seenPhone.get(d.phone) : undefined;
    const dupEmail = email !== undefined ? seenEmail.get(email) : undefined;
    if (dupPhone !== undefined || dupEmail !== undefined) {
      const what = dupPhone !== undefined ? `phone ${d.phone}` : `email ${d.email}`;
      issues.push(
        rowIssue(
          d,
          'duplicate_customer',
          `${what} is already on row ${dupPhone ?? dupEmail}; keep one row per customer`,
        ),
      );
      counts.invalid++;
      continue;
    }

    let match: LiveCustomer | undefined;
    let matchedBy: CustomerPlanEntry['matchedBy'];
    if (d.id !== undefined) {
      match = live.byId.get(d.id);
      matchedBy = 'id';
      if (!match) {
        issues.push(
          rowIssue(
            d,
            'unknown_customer_id',
            `no customer has id "${d.id}"; leave id blank to create one`,
            d.id,
          ),
        );
        counts.invalid++;
        continue;
      }
    } else if (d.phone !== undefined && live.byPhone.has(d.phone)) {
      match = live.byPhone.get(d.phone);
      matchedBy = 'phone';
    } else if (email !== undefined && live.byEmail.has(email)) {
      match = live.byEmail.get(email);
      matchedBy = 'email';
    }
    if (match) {
      const earlier = seenCustomer.get(match.id);
      if (earlier !== undefined) {
        issues.push(
          rowIssue(
            d,
            'duplicate_customer',
            `this row matches the same customer (${match.id}) as row ${earlier}; keep one row`,
          ),
        );
        counts.invalid++;
        continue;
      }
      seenCustomer.set(match.id, d.rowNumber);
    }
    if (d.phone !== undefined) seenPhone.set(d.phone, d.rowNumber);
    if (email !== undefined) seenEmail.set(email, d.rowNumber);

    if (!match) {
      if (d.command === 'update') {
        issues.push(
          rowIssue(d, 'customer_not_found', 'command is update but no live customer matches this row'),
        );
        counts.invalid++;
        continue;
      }
      if (d.name === undefined || d.phone === undefined) {
        const missing = [d.name === undefined ? 'name' : '', d.phone === undefined ? 'phone' : ''].filter(
          Boolean,
        );
        issues.push(rowIssue(d, 'missing_required', `a new customer needs ${missing.join(' and ')}`));
        counts.invalid++;
        continue;
      }
      const create: CustomerCreate = { name: d.name, phone: d.phone };
      if (d.email) create.email = d.email;
      entries.push({
        ...base,
        action: 'create',
        key: `create:phone:${d.phone}`,
        create,
        changes: Object.entries(create).map(([field, after]) => ({ field, before: null, after })),
      });
      counts.create++;
      continue;
    }
    if (d.command === 'create') {
      issues.push(
        rowIssue(
          d,
          'customer_exists',
          `command is create but customer ${match.id} already matches by ${matchedBy}`,
        ),
      );
      counts.invalid++;
      continue;
    }
    const update: CustomerUpdate = {};
    const changes: FieldChange[] = [];
    if (d.name !== undefined && d.name !== match.name) {
      update.name = d.name;
      changes.push({ field: 'name', before: match.name, after: d.name });
    }
    if (d.phone !== undefined && d.phone !== match.phone) {
      update.phone = d.phone;
      changes.push({ field: 'phone', before: match.phone, after: d.phone });
    }
    if (d.email !== undefined && d.email !== match.email) {
      update.email = d.email;
      changes.push({ field: 'email', before: match.email, after: d.email });
    }
    const entry: CustomerPlanEntry = {
      ...base,
      action: changes.length > 0 ? 'update' : 'noop',
      key: `update:${match.id}`,
      customerId: match.id,
      changes,
      expectedUpdatedAt: match.updatedAt,
    };
    if (matchedBy) entry.matchedBy = matchedBy;
    if (changes.length > 0) entry.update = update;
    entries.push(entry);
    counts[entry.action]++;
  }
  return { kind: 'customers', entries, issues, counts };
}
