import { describe, expect, it } from 'vitest';
import {
  mapCustomerRow,
  resolveCustomerColumns,
  type DesiredCustomer,
} from '../../../src/mapping/customer-sheet.js';
import type { RowIssue } from '../../../src/mapping/row-issue.js';
import { LiveCustomerIndex, parseCustomerMatch, planCustomers } from '../../../src/plan/customer-plan.js';
import type { Customer } from '../../../src/schema/customer.js';
import { columnLetter, type CellValue } from '../../../src/sheets/sheet-row.js';

function customer(id: string, name: string, phone: string, email: string | null): Customer {
  const t = '2026-10-01T00:00:00.000Z';
  return { id, object: 'customer', name, phone, email, address: null, created_at: t, updated_at: t };
}

function mapRows(
  names: string[],
  rows: CellValue[][],
  options: { country?: string; blank?: 'keep' | 'clear' } = {},
): { desired: DesiredCustomer[]; issues: RowIssue[] } {
  const cols = names.map((h, index) => ({
    header: h,
    key: h.toLowerCase(),
    letter: columnLetter(index),
    index,
  }));
  const { columns, issues } = resolveCustomerColumns('customers.csv', cols);
  const desired: DesiredCustomer[] = [];
  rows.forEach((cells, n) => {
    const record: Record<string, CellValue> = {};
    cols.forEach((c, i) => (record[c.key] = cells[i] ?? ''));
    const r = mapCustomerRow({ sheet: 'customers.csv', rowNumber: n + 2, cells: record }, columns, {
      country: options.country ?? 'MY',
      ...(options.blank ? { blank: options.blank } : {}),
    });
    issues.push(...r.issues);
    if (r.customer) desired.push(r.customer);
  });
  return { desired, issues };
}

describe('customer rows', () => {
  it.each([
    ['MY', '012-345 6789', '60123456789'],
    ['MY', '+60 12-345 6789', '60123456789'],
    ['GB', '+44 20 7946 0958', '442079460958'],
    ['GB', '020 7946 0958', '442079460958'],
    ['US', '(201) 555-0123', '12015550123'],
    ['SG', '6123 4567', '6561234567'],
    ['ID', '0812-3456-789', '628123456789'],
    ['DE', '030 1234567', '49301234567'],
    ['AU', '0412 345 678', '61412345678'],
  ])('normalises a %s number %s to %s', (country, input, expected) => {
    const { desired, issues } = mapRows(['name', 'phone'], [['A', input]], { country });
    expect(issues).toEqual([]);
    expect(desired[0]?.phone).toBe(expected);
  });

  it('reads back a name an export protected against formula injection', () => {
    const { desired } = mapRows(
      ['name', 'phone'],
      [
        ["'-Aina", '0123456789'],
        ["'=cmd", '0198765432'],
      ],
    );
    expect(desired.map((d) => d.name)).toEqual(['-Aina', '=cmd']);
  });

  it('reports an impossible phone and a bad email with their cells and values', () => {
    const { desired, issues } = mapRows(['name', 'phone', 'email'], [['A', '12', 'not-an-email']]);
    expect(desired).toEqual([]);
    expect(issues.map((i) => [i.column, i.header, i.value])).toEqual([
      ['B', 'phone', '12'],
      ['C', 'email', 'not-an-email'],
    ]);
  });
});

describe('customer plan', () => {
  const live = () =>
    LiveCustomerIndex.fromCustomers([
      customer('c1', 'Aina', '60123456789', 'aina@example.com'),
      customer('c2', 'Ben', '60198765432', 'Ben@Example.com'),
    ]);

  it('matches by phone, then by email case-insensitively, and plans field-level updates', () => {
    const { desired } = mapRows(
      ['name', 'phone', 'email'],
      [
        ['Aina Binti', '012-345 6789', ''],
        ['Ben', '', 'ben@example.com'],
        ['Chen', '017-222 3333', 'chen@example.com'],
      ],
    );
    const plan = planCustomers(desired, live());
    expect(plan.issues).toEqual([]);
    expect(plan.entries.map((e) => [e.action, e.customerId, e.matchedBy])).toEqual([
      ['update', 'c1', 'phone'],
      ['update', 'c2', 'email'],
      ['create', undefined, undefined],
    ]);
    expect(plan.entries[0]?.update).toEqual({ name: 'Aina Binti' });
    expect(plan.entries[1]?.update).toEqual({ email: 'ben@example.com' });
    expect(plan.entries[2]?.create).toEqual({
      name: 'Chen',
      phone: '60172223333',
      email: 'chen@example.com',
    });
  });

  it('refuses a row matched by one key whose other key names someone else, naming the customer', () => {
    const { desired } = mapRows(
      ['name', 'phone', 'email'],
      [
        ['Farah', '012-345 6789', 'farah@example.com'], // Aina's phone, another email
        ['Ben', '019-999 9999', 'ben@example.com'], // Ben's email, another phone
        ['Aina', '012-345 6789', 'AINA@example.com'], // same person (email case differs): an update
      ],
    );
    const plan = planCustomers(desired, live());
    expect(plan.issues.map((i) => [i.rowNumber, i.code, i.value])).toEqual([
      [2, 'customer_conflict', 'farah@example.com'],
      [3, 'customer_conflict', '60199999999'],
    ]);
    expect(plan.issues[0]?.message).toContain('Aina (c1)');
    expect(plan.issues[0]?.message).toContain('aina@example.com');
    expect(plan.issues[1]?.message).toContain('Ben (c2)');
    expect(plan.counts).toMatchObject({ invalid: 2, update: 1, create: 0 });
    expect(plan.entries.map((e) => [e.rowNumber, e.action, e.customerId])).toEqual([[4, 'update', 'c1']]);
  });

  it('--match chooses the keys: a column left out is updated as data, a listed one must agree', () => {
    const rows = mapRows(
      ['id', 'name', 'phone', 'email'],
      [
        ['', 'Ben', '019-999 9999', 'Ben@Example.com'],
        ['c1', 'Aina', '012-345 6789', 'new@example.com'],
      ],
    ).desired;
    // Email only: Ben's new phone is data; the id column is not used, so row 3 matches nobody and
    // would create a second customer on Aina's phone: refused, naming her.
    const byEmail = planCustomers(rows, live(), { match: ['email'] });
    expect(byEmail.entries.map((e) => [e.action, e.customerId, e.matchedBy, e.update])).toEqual([
      ['update', 'c2', 'email', { phone: '60199999999' }],
    ]);
    expect(byEmail.issues.map((i) => [i.rowNumber, i.code, i.value])).toEqual([
      [3, 'phone_in_use', '60123456789'],
    ]);
    expect(byEmail.issues[0]?.message).toContain('Aina (c1)');
    // id, then email: the id wins and its new email is an update; Ben's new phone is data.
    const byIdEmail = planCustomers(rows, live(), { match: ['id', 'email'] });
    expect(byIdEmail.issues).toEqual([]);
    expect(byIdEmail.entries.map((e) => [e.customerId, e.matchedBy, e.update])).toEqual([
      ['c2', 'email', { phone: '60199999999' }],
      ['c1', 'id', { email: 'new@example.com' }],
    ]);
    // phone, then email: row 2's phone is nobody's, its email is Ben's, whose phone differs.
    const byPhoneEmail = planCustomers(rows, live(), { match: ['phone', 'email'] });
    expect(byPhoneEmail.issues.map((i) => [i.rowNumber, i.code])).toEqual([
      [2, 'customer_conflict'],
      [3, 'customer_conflict'],
    ]);
  });

  it('parses --match', () => {
    expect(parseCustomerMatch('id,email')).toEqual(['id', 'email']);
    expect(parseCustomerMatch(' Phone ')).toEqual(['phone']);
    expect(parseCustomerMatch('name')).toMatch(/--match takes id, phone or email/);
    expect(parseCustomerMatch('')).toMatch(/--match/);
  });

  it('plans nothing for an unchanged sheet', () => {
    const { desired } = mapRows(
      ['id', 'name', 'phone', 'email'],
      [['c1', 'Aina', '60123456789', 'aina@example.com']],
    );
    const plan = planCustomers(desired, live());
    expect(plan.counts).toMatchObject({ noop: 1, update: 0, create: 0 });
  });

  it('never clears an email from a blank cell unless asked', () => {
    const keep = planCustomers(mapRows(['phone', 'email'], [['0123456789', '']]).desired, live());
    expect(keep.entries[0]?.action).toBe('noop');
    const clear = planCustomers(
      mapRows(['phone', 'email'], [['0123456789', '']], { blank: 'clear' }).desired,
      live(),
    );
    expect(clear.entries[0]?.update).toEqual({ email: null });
  });

  it('flags the later of two rows for one customer', () => {
    const { desired } = mapRows(
      ['name', 'phone'],
      [
        ['X', '017-222 3333'],
        ['Y', '+60172223333'],
        ['Aina', '0123456789'],
        ['Aina again', '60123456789'],
      ],
    );
    const plan = planCustomers(desired, live());
    expect(plan.issues.map((i) => [i.rowNumber, i.code])).toEqual([
      [3, 'duplicate_customer'],
      [5, 'duplicate_customer'],
    ]);
    expect(plan.counts.create).toBe(1);
  });

  it('requires name and phone to create, and an existing id', () => {
    const { desired } = mapRows(
      ['id', 'name', 'phone', 'email'],
      [
        ['', '', '', 'new@example.com'],
        ['c404', 'Z', '', ''],
      ],
    );
    const plan = planCustomers(desired, live());
    expect(plan.issues.map((i) => i.code)).toEqual(['missing_required', 'unknown_customer_id']);
  });
});

describe('customer plan safety', () => {
  it('refuses to guess between live customers sharing a phone or an email', () => {
    const live = LiveCustomerIndex.fromCustomers([
      customer('c1', 'Aina', '60123456789', 'shared@example.com'),
      customer('c2', 'Aina too', '60123456789', null),
      customer('c3', 'Ben', '60198765432', 'Shared@example.com'),
    ]);
    const { desired } = mapRows(
      ['name', 'phone', 'email'],
      [
        ['A', '012-345 6789', ''],
        ['B', '', 'shared@example.com'],
      ],
    );
    const plan = planCustomers(desired, live, {
      columns: resolveCustomerColumns('customers.csv', [
        { header: 'name', key: 'name', letter: 'A', index: 0 },
        { header: 'phone', key: 'phone', letter: 'B', index: 1 },
        { header: 'email', key: 'email', letter: 'C', index: 2 },
      ]).columns,
    });
    expect(plan.entries).toEqual([]);
    expect(plan.issues.map((i) => [i.rowNumber, i.code, i.column])).toEqual([
      [2, 'ambiguous_customer', 'B'],
      [3, 'ambiguous_customer', 'C'],
    ]);
    expect(plan.issues[0]?.message).toContain('c1, c2');
  });

  it('does not move a customer onto the phone of another live customer', () => {
    const live = LiveCustomerIndex.fromCustomers([
      customer('c1', 'Aina', '60123456789', null),
      customer('c2', 'Ben', '60198765432', null),
    ]);
    const { desired } = mapRows(['id', 'phone'], [['c1', '019-876 5432']]);
    const plan = planCustomers(desired, live);
    expect(plan.issues.map((i) => i.code)).toEqual(['phone_in_use']);
    expect(plan.counts.invalid).toBe(1);
  });

  it('keeps the matched live fields as the before-state of updates and noops', () => {
    const live = LiveCustomerIndex.fromCustomers([customer('c1', 'Aina', '60123456789', 'a@example.com')]);
    const plan = planCustomers(mapRows(['name', 'phone'], [['Aina B', '0123456789']]).desired, live);
    expect(plan.entries[0]?.before).toEqual({ name: 'Aina', phone: '60123456789', email: 'a@example.com' });
  });
});
