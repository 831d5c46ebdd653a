import type { CustomerColumns, CustomerField, DesiredCustomer } from '../mapping/customer-sheet.js';
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
  /** Phones (and lower-cased emails) that more than one live customer has: every id, in list order. */
  readonly sharedPhones = new Map<string, string[]>();
  readonly sharedEmails = new Map<string, string[]>();

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
    if (c.phone) share(this.byPhone, this.sharedPhones, c.phone, live);
    if (c.email) share(this.byEmail, this.sharedEmails, c.email.toLowerCase(), live);
  }
}

function share(
  first: Map<string, LiveCustomer>,
  shared: Map<string, string[]>,
  key: string,
  live: LiveCustomer,
): void {
  const earlier = first.get(key);
  if (earlier === undefined) first.set(key, live);
  else if (earlier.id !== live.id) {
    const ids = shared.get(key) ?? [earlier.id];
    ids.push(live.id);
    shared.set(key, ids);
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
  /** The matched live customer's fields when planning (update, noop): the backup's before-state. */
  before?: { name: string; phone: string; email: string | null };
}

export interface CustomerPlan {
  kind: 'customers';
  entries: CustomerPlanEntry[];
  issues: RowIssue[];
  counts: Record<CustomerAction | 'invalid', number>;
}

/** A column a row can be matched on. */
export type CustomerMatchKey = 'id' | 'phone' | 'email';
/** The default match order: id, else phone, else email. */
export const DEFAULT_CUSTOMER_MATCH: readonly CustomerMatchKey[] = ['id', 'phone', 'email'];

/**
 * Parses `--match`: one key or a comma list (`id,email`), in the order they are tried. Returns an
 * error message for anything else.
 */
export function parseCustomerMatch(text: string): CustomerMatchKey[] | string {
  const keys = text
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => k !== '');
  const bad = keys.filter((k) => k !== 'id' && k !== 'phone' && k !== 'email');
  if (keys.length === 0 || bad.length > 0) {
    return `--match takes id, phone or email, or a comma list of them (e.g. id,email), not "${text}"`;
  }
  return [...new Set(keys as CustomerMatchKey[])];
}

export interface CustomerPlanOptions {
  /** The sheet's columns: issues then name the cell (column letter and header) they are about. */
  columns?: CustomerColumns;
  /**
   * The keys rows are matched on, in order (default id, phone, email). A key column that is
   * listed must agree with the matched customer (a row matched by phone whose email differs from
   * the customer's non-empty email is a conflict); a column that is not listed is plain data.
   */
  match?: readonly CustomerMatchKey[];
}

/**
 * Diffs desired customers against the live index: match by id, else normalised phone, else email
 * (case-insensitive), or by the keys `options.match` lists; create / update (field-level) / noop.
 * Two rows for one customer are an error on the later row. A phone or email that several live
 * customers share matches none of them (ambiguous: give the id). A row matched by phone or email
 * whose other key column names someone else (another email, another phone) is a conflict, not an
 * update: it names the customer it collided with. Pure.
 */
export function planCustomers(
  desired: Iterable<DesiredCustomer>,
  live: LiveCustomerIndex,
  options: CustomerPlanOptions = {},
): CustomerPlan {
  const entries: CustomerPlanEntry[] = [];
  const issues: RowIssue[] = [];
  const seenPhone = new Map<string, number>();
  const seenEmail = new Map<string, number>();
  const seenCustomer = new Map<string, number>();
  const counts: CustomerPlan['counts'] = { create: 0, update: 0, noop: 0, skip: 0, invalid: 0 };
  const keys = options.match ?? DEFAULT_CUSTOMER_MATCH;
  const rowIssue = (
    d: DesiredCustomer,
    code: string,
    message: string,
    field?: CustomerField,
    value?: string,
  ): RowIssue => {
    const i: RowIssue = { severity: 'error', code, message, sheet: d.sheet, rowNumber: d.rowNumber };
    const col = field !== undefined ? options.columns?.[field] : undefined;
    if (col) {
      i.column = col.letter;
      i.header = col.header;
    }
    if (value !== undefined) i.value = value;
    return i;
  };

  for (const row of desired) {
    const d = preferLivePhone(row, live);
    const base = { sheet: d.sheet, rowNumber: d.rowNumber };
    if (d.command === 'skip') {
      entries.push({ ...base, action: 'skip', key: `skip:${d.sheet}:${d.rowNumber}`, changes: [] });
      counts.skip++;
      continue;
    }
    const invalid = (issue: RowIssue): void => {
      issues.push(issue);
      counts.invalid++;
    };
    const email = d.email ? d.email.toLowerCase() : undefined;
    const dupPhone = d.phone !== undefined ? seenPhone.get(d.phone) : undefined;
    const dupEmail = email !== undefined ? seenEmail.get(email) : undefined;
    if (dupPhone !== undefined || dupEmail !== undefined) {
      const what = dupPhone !== undefined ? `phone ${d.phone}` : `email ${d.email}`;
      invalid(
        rowIssue(
          d,
          'duplicate_customer',
          `${what} is already on row ${dupPhone ?? dupEmail}; keep one row per customer`,
          dupPhone !== undefined ? 'phone' : 'email',
        ),
      );
      continue;
    }

    let match: LiveCustomer | undefined;
    let matchedBy: CustomerPlanEntry['matchedBy'];
    let stop = false;
    for (const key of keys) {
      if (key === 'id') {
        if (d.id === undefined) continue;
        match = live.byId.get(d.id);
        matchedBy = 'id';
        if (!match) {
          invalid(
            rowIssue(
              d,
              'unknown_customer_id',
              `no customer has id "${d.id}"; leave id blank to create one`,
              'id',
              d.id,
            ),
          );
          stop = true;
        }
        break;
      }
      const value = key === 'phone' ? d.phone : email;
      const first = key === 'phone' ? live.byPhone : live.byEmail;
      if (value === undefined || !first.has(value)) continue;
      const shared = (key === 'phone' ? live.sharedPhones : live.sharedEmails).get(value);
      if (shared) {
        invalid(
          rowIssue(
            d,
            'ambiguous_customer',
            `${key} ${key === 'phone' ? d.phone : d.email} belongs to ${shared.length} live customers (${shared.join(', ')}); write the id of the one to update in the id column`,
            key,
          ),
        );
        stop = true;
        break;
      }
      match = first.get(value);
      matchedBy = key;
      break;
    }
    if (stop) continue;
    if (match && matchedBy !== 'id') {
      const conflict = keyConflict(d, match, matchedBy === 'phone' ? 'email' : 'phone', keys);
      if (conflict) {
        invalid(rowIssue(d, 'customer_conflict', conflict.message, conflict.field, conflict.value));
        continue;
      }
    }
    if (match) {
      const earlier = seenCustomer.get(match.id);
      if (earlier !== undefined) {
        invalid(
          rowIssue(
            d,
            'duplicate_customer',
            `this row matches the same customer (${match.id}) as row ${earlier}; keep one row`,
            matchedBy,
          ),
        );
        continue;
      }
      seenCustomer.set(match.id, d.rowNumber);
    }
    if (d.phone !== undefined) seenPhone.set(d.phone, d.rowNumber);
    if (email !== undefined) seenEmail.set(email, d.rowNumber);

    if (!match) {
      if (d.command === 'update') {
        invalid(rowIssue(d, 'customer_not_found', 'command is update but no live customer matches this row'));
        continue;
      }
      if (d.name === undefined || d.phone === undefined) {
        const missing = [d.name === undefined ? 'name' : '', d.phone === undefined ? 'phone' : ''].filter(
          Boolean,
        );
        const final =
          d.phone === undefined
            ? ': the Merchant API creates no customer without a phone number, so this one cannot be imported until one is added (failed.csv keeps the row to fix and import again); other platforms, Shopify among them, allow customers without one'
            : '';
        invalid(
          rowIssue(
            d,
            'missing_required',
            `a new customer needs ${missing.join(' and ')}${final}`,
            d.name === undefined ? 'name' : 'phone',
          ),
        );
        continue;
      }
      // Only possible when phone is not a match key (--match id / email): creating a second
      // customer with a live phone would make both unmatchable by phone.
      const owner = live.byPhone.get(d.phone);
      if (owner) {
        invalid(
          rowIssue(
            d,
            'phone_in_use',
            `phone ${d.phone} belongs to customer ${owner.name} (${owner.id}); no row matched it by ${keys.join(' or ')}, and creating a second customer with this phone is refused`,
            'phone',
            d.phone,
          ),
        );
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
      invalid(
        rowIssue(
          d,
          'customer_exists',
          `command is create but customer ${match.id} already matches by ${matchedBy}`,
          matchedBy,
        ),
      );
      continue;
    }
    if (d.phone !== undefined && d.phone !== match.phone) {
      // Moving a customer onto a phone another live customer has would make both unmatchable by phone.
      const owner = live.byPhone.get(d.phone);
      if (owner && owner.id !== match.id) {
        invalid(
          rowIssue(
            d,
            'phone_in_use',
            `phone ${d.phone} belongs to customer ${owner.id} (${owner.name}), not to ${match.id}; one phone per customer`,
            'phone',
          ),
        );
        continue;
      }
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
      before: { name: match.name, phone: match.phone, email: match.email },
    };
    if (matchedBy) entry.matchedBy = matchedBy;
    if (changes.length > 0) entry.update = update;
    entries.push(entry);
    counts[entry.action]++;
  }
  return { kind: 'customers', entries, issues, counts };
}

/**
 * The row was matched by one key (phone or email); `other` is the other one. When `other` is a
 * match key too and the row gives a value that differs from the customer's non-empty one, the row
 * describes another person who shares a phone (or an email) with this customer: updating would
 * overwrite them.
 */
function keyConflict(
  d: DesiredCustomer,
  match: LiveCustomer,
  other: 'phone' | 'email',
  keys: readonly CustomerMatchKey[],
): { field: 'phone' | 'email'; value: string; message: string } | undefined {
  if (!keys.includes(other)) return undefined;
  const by = other === 'email' ? `phone ${match.phone}` : `email ${match.email ?? ''}`;
  const who = `${match.name} (${match.id})`;
  const advice = "write the customer's id in the id column to update them anyway, or fix the row";
  if (other === 'email') {
    if (d.email == null || !match.email || d.email.toLowerCase() === match.email.toLowerCase())
      return undefined;
    return {
      field: 'email',
      value: d.email,
      message: `conflict: ${by} belongs to ${who}, whose email is ${match.email}, not ${d.email}; ${advice}`,
    };
  }
  if (d.phone === undefined || !match.phone || d.phone === match.phone) return undefined;
  return {
    field: 'phone',
    value: d.phone,
    message: `conflict: ${by} belongs to ${who}, whose phone is ${match.phone}, not ${d.phone}; ${advice}`,
  };
}

/**
 * Bare digits such as 6596956697 are both the API's format of a Singapore number and a valid
 * national number in some store countries. When the cell as written is exactly the phone of the
 * customer the row names (its id) or of a live customer, it is that phone: an export re-imported
 * round-trips whatever the store's country.
 */
function preferLivePhone(d: DesiredCustomer, live: LiveCustomerIndex): DesiredCustomer {
  const digits = d.phoneDigits;
  if (digits === undefined || digits === d.phone) return d;
  const named = d.id !== undefined ? live.byId.get(d.id) : undefined;
  if (named ? named.phone === digits : live.byPhone.has(digits)) return { ...d, phone: digits };
  return d;
}
