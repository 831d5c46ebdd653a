import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, harness, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.sandbox.close();
});

describe('Shopify customer export', () => {
  it("an address's phone is not the customer's: counted per column, refused saying why (--phone-from own), taken with --phone-from address", async () => {
    const file = join(FIXTURES, 'shopify-customers.csv');
    const plan = await h.cli('import', 'customers', file, '--json');
    expect(plan.json<{ phonesFromAddress: unknown }>().phonesFromAddress).toEqual([
      { header: 'Default Address Phone', letter: 'M', customers: 1, from: 'own' },
    ]);
    const text = await h.cli('import', 'customers', file);
    expect(text.stderr).toContain(
      "Phones from an address: 1 customer without a Phone of their own have one in Default Address Phone (column M), often a recipient's: not taken (--phone-from own, the default); --phone-from address takes them",
    );
    expect(text.stdout).toMatch(/Columns not imported: .*Default Address Phone/);
    const own = await h.cli('import', 'customers', file, '--apply', '--yes', '--json');
    const budiRow = own
      .json<{ failedRows: { row: number; message: string }[] }>()
      .failedRows.find((r) => r.row === 3);
    expect(budiRow?.message).toContain(
      "its Default Address Phone (column M) has a phone, but that is the address's, often a shipping or gift recipient's, so it is not taken as the customer's own: import with --phone-from address to take it",
    );
    expect(h.sandbox.store.toSnapshot().customers.some((c) => c.email === 'budi@example.com')).toBe(false);
    const taken = await h.cli('import', 'customers', file, '--phone-from', 'address');
    expect(taken.stdout).toContain(
      'Phones from an address: 1 customer without a Phone of their own get the phone of Default Address Phone (column M) (--phone-from address)',
    );
  });

  it('name from first and last name, phone from Phone else (--phone-from address) Default Address Phone, normalised; re-import writes nothing', async () => {
    const file = join(FIXTURES, 'shopify-customers.csv');
    const plan = await h.cli('import', 'customers', file);
    expect(plan.stdout).toMatch(/^Format: Shopify customer export$/m);
    expect(plan.stdout).toMatch(/Columns not imported: Customer ID, Accepts Email Marketing,/);

    const applied = await h.cli(
      'import',
      'customers',
      file,
      '--apply',
      '--yes',
      '--json',
      '--phone-from',
      'address',
    );
    expect(applied.code).toBe(1); // Chen Wei has no phone: the API needs one to create a customer
    const customers = h.sandbox.store.toSnapshot().customers;
    const ayu = customers.find((c) => c.email === 'ayu.lestari@example.com');
    expect(ayu).toMatchObject({ name: 'Ayu Lestari', phone: '60123456789' });
    const budi = customers.find((c) => c.email === 'budi@example.com');
    expect(budi).toMatchObject({ name: 'Budi', phone: '60129876543' });
    expect(customers.some((c) => c.email === 'chen.wei@example.com')).toBe(false);
    // Why each is left out, in words the user can act on: no phone is final for the API, and a
    // phone Excel turned into 9.19961E+11 names Excel.
    const failedRows = applied.json<{ failedRows: { row: number; message: string }[] }>().failedRows;
    expect(failedRows.find((r) => r.row === 4)?.message).toContain(
      'the Merchant API creates no customer without a phone number, so this one cannot be imported until one is added',
    );
    expect(failedRows.find((r) => r.row === 5)?.message).toBe(
      'Excel turned this into 9.19961E+11: format the column as text and export again (the digits are lost in this file)',
    );
    expect(customers.some((c) => c.email === 'ravi.kumar@example.com')).toBe(false);
    const runId = applied.json<{ runId: string }>().runId;
    const failed = readFileSync(join(h.dir, '.mbulk/runs', runId, 'failed.csv'), 'utf8').replace(
      /^\uFEFF/,
      '',
    );
    expect(failed.split(/\r?\n/)[0]).toMatch(/^Customer ID,First Name,Last Name,Email,/);
    expect(failed).toMatch(/Chen,Wei/);

    h.sandbox.clearRequestLog();
    const again = await h.cli(
      'import',
      'customers',
      file,
      '--apply',
      '--yes',
      '--json',
      '--phone-from',
      'address',
    );
    expect(again.code).toBe(1);
    expect(h.writes()).toEqual([]);
  });
});
