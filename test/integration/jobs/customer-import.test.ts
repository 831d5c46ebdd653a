import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { main } from '../../../src/cli/main.js';
import {
  applyCustomerRun,
  checkCustomerDrift,
  planCustomerImport,
  type CustomerPlanFile,
} from '../../../src/jobs/customers/customer-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Customer } from '../../../src/schema/customer.js';
import { StoreSnapshot } from '../../../src/schema/snapshot.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const SAMPLES = new URL('../../../samples/', import.meta.url);
const sampleStore = (): StoreSnapshot =>
  StoreSnapshot.parse(JSON.parse(readFileSync(new URL('store.json', SAMPLES), 'utf8')));

function customer(id: string, name: string, phone: string, email: string | null = null): Customer {
  const t = '2026-01-01T00:00:00.000Z';
  return { id, object: 'customer', name, phone, email, address: null, created_at: t, updated_at: t };
}

/** The sample store with another country and only the given customers (no products or orders). */
function storeWith(country: string, customers: Customer[]): StoreSnapshot {
  const s = sampleStore();
  return { ...s, me: { ...s.me, country }, products: [], orders: [], customers };
}

function csv(rows: string[][]): string {
  return `${rows.map((r) => r.map((c) => (/[",]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n')}\n`;
}

function readCsv(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(seed: StoreSnapshot) {
  sandbox = await startSandbox({ seed });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-customers-'));
  return { client, dir, s: sandbox, runsRoot: join(dir, 'runs') };
}

function writes(s: RunningSandbox) {
  return s.requestLog().filter((e) => e.method !== 'GET');
}

describe('customer import against the sandbox', () => {
  it('applies samples/customers.csv to the sample store, and a re-run writes nothing', async () => {
    const { client, s, runsRoot } = await setup(sampleStore());
    const file = new URL('customers.csv', SAMPLES).pathname;
    const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    const { plan } = planned.file;
    expect(plan.issues).toEqual([]);
    expect(plan.counts).toMatchObject({ create: 3, update: 6, noop: 3, invalid: 0 });
    const byRow = new Map(plan.entries.map((e) => [e.rowNumber, e]));
    // Matched by a local phone format, by email (phone blank), and by id (one with a new phone).
    expect(byRow.get(2)).toMatchObject({ action: 'update', customerId: 'cus_00000001', matchedBy: 'phone' });
    expect(byRow.get(2)?.changes).toEqual([
      { field: 'name', before: 'Ganesh a/l Pillai', after: 'Ganesh Pillai' },
    ]);
    expect(byRow.get(4)).toMatchObject({ customerId: 'cus_00000005', matchedBy: 'id' }); // new phone: by id
    expect(byRow.get(4)?.update).toEqual({ phone: '601123456789' });
    expect(byRow.get(5)).toMatchObject({ customerId: 'cus_00000002', matchedBy: 'email' });
    expect(byRow.get(6)).toMatchObject({ customerId: 'cus_0000000b', matchedBy: 'id' });
    expect(byRow.get(9)).toMatchObject({ action: 'noop', customerId: 'cus_0000000u' }); // 0065 … from MY
    expect(byRow.get(10)).toMatchObject({ action: 'noop', customerId: 'cus_0000000g' }); // blank email kept
    expect(writes(s)).toEqual([]);

    const applied = await applyCustomerRun(planned.run, { client });
    expect(applied).toMatchObject({ status: 'completed', created: 3, updated: 6, failed: 0, requests: 9 });
    const w = writes(s);
    expect(w.filter((e) => e.method === 'POST')).toHaveLength(3);
    expect(w.filter((e) => e.method === 'PATCH')).toHaveLength(6);
    expect(w.every((e) => e.status === 200 || e.status === 201)).toBe(true);
    expect(w.filter((e) => e.method === 'POST').every((e) => e.idempotency_key?.startsWith('mb1_'))).toBe(
      true,
    );
    expect(s.store.getCustomer('cus_00000001').name).toBe('Ganesh Pillai');
    expect(s.store.getCustomer('cus_00000004').email).toBe('deepa.pillai@example.com');
    expect(s.store.getCustomer('cus_00000005').phone).toBe('601123456789');
    expect(s.store.getCustomer('cus_0000000j').email).toBe('priya.jones@example.co.uk');

    const results = readCsv(planned.run.file('results'));
    expect(results.map((r) => r['outcome'])).toEqual([
      'updated',
      'updated',
      'updated',
      'updated',
      'updated',
      'unchanged',
      'updated',
      'unchanged',
      'unchanged',
      'created',
      'created',
      'created',
    ]);
    const amir = results[9] as Record<string, string>;
    expect(amir['key']).toBe('60134567890');
    expect(s.store.getCustomer(amir['entity_id'] ?? '')).toMatchObject({
      name: 'Amir Hamzah',
      phone: '60134567890',
      email: 'amir.hamzah@example.com',
    });
    expect(readCsv(planned.run.file('failed'))).toEqual([]);
    const backup = JSON.parse(readFileSync(planned.run.file('backup'), 'utf8')) as {
      entities: { type: string; id: string; before: Record<string, unknown> | null }[];
    };
    expect(backup.entities.find((e) => e.id === 'cus_00000001')?.before).toMatchObject({
      name: 'Ganesh a/l Pillai',
      phone: '60190961188',
    });

    s.clearRequestLog();
    const again = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    expect(again.file.plan.counts).toMatchObject({ create: 0, update: 0, noop: 12, invalid: 0 });
    const second = await applyCustomerRun(again.run, { client });
    expect(second.requests).toBe(0);
    expect(writes(s)).toEqual([]);
  });

  it('reads every phone format of a Malaysian store, and reports unreadable ones with their cells', async () => {
    const { client, dir, runsRoot } = await setup(
      storeWith('MY', [
        customer('cus_a', 'A', '60123456789'),
        customer('cus_b', 'B', '442079460958'),
        customer('cus_c', 'C', '442079460959'),
        customer('cus_d', 'D', '60198765432'),
        customer('cus_e', 'E', '60198765431'),
      ]),
    );
    const file = join(dir, 'phones.csv');
    writeFileSync(
      file,
      csv([
        ['name', 'phone'],
        ['A1', '012-345 6789'], // national, MY
        ['B1', '+44 20 7946 0958'], // international with +
        ['C1', '0044 20 7946 0959'], // MY international prefix
        ['D1', '60198765432'], // digits with the country code (the API's own format)
        ['E1', '198765431'], // national that lost its leading zero (a spreadsheet number)
        ['F', '12'], // impossible
        ['G', '+60 12-345 6780 ext. 5'], // extension
        ['H', 'call me'],
      ]),
    );
    const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    const { plan } = planned.file;
    expect(plan.entries.map((e) => [e.customerId, e.matchedBy, e.update])).toEqual([
      ['cus_a', 'phone', { name: 'A1' }],
      ['cus_b', 'phone', { name: 'B1' }],
      ['cus_c', 'phone', { name: 'C1' }],
      ['cus_d', 'phone', { name: 'D1' }],
      ['cus_e', 'phone', { name: 'E1' }],
    ]);
    expect(plan.issues.map((i) => [i.rowNumber, i.code, i.column, i.header, i.value])).toEqual([
      [7, 'phone_invalid', 'B', 'phone', '12'],
      [8, 'phone_invalid', 'B', 'phone', '+60 12-345 6780 ext. 5'],
      [9, 'phone_invalid', 'B', 'phone', 'call me'],
    ]);
    expect(plan.issues[0]?.message).toContain('"12"');
    expect(plan.issues[0]?.message).toContain('MY');
  });

  it.each([
    ['MY', '012-345 6789', '60123456789'],
    ['GB', '020 7946 0958', '442079460958'],
    ['US', '(201) 555-0123', '12015550123'],
    ['SG', '6123 4567', '6561234567'],
    ['ID', '0812-3456-789', '628123456789'],
    ['AU', '0412 345 678', '61412345678'],
    ['DE', '030 1234567', '49301234567'],
  ])(
    'a %s store reads the national number %s as %s, creates, then matches it',
    async (country, input, digits) => {
      const { client, dir, s, runsRoot } = await setup(
        storeWith(country, [customer('cus_other', 'Other', '60111111111')]),
      );
      const file = join(dir, 'c.csv');
      writeFileSync(
        file,
        csv([
          ['name', 'phone'],
          ['Local Person', input],
        ]),
      );
      const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
      expect(planned.file.plan.entries[0]?.create).toEqual({ name: 'Local Person', phone: digits });
      const applied = await applyCustomerRun(planned.run, { client });
      expect(applied.created).toBe(1);
      const [created] = writes(s);
      expect(created).toMatchObject({ method: 'POST', path: '/api/v2/customers', outcome: 'applied' });

      // The same sheet again: the national number now matches the created customer; nothing is written.
      s.clearRequestLog();
      const again = await planCustomerImport({ client, file, runsRoot, target: 'test' });
      expect(again.file.plan.entries[0]).toMatchObject({ action: 'noop', matchedBy: 'phone' });
      await applyCustomerRun(again.run, { client });
      expect(writes(s)).toEqual([]);
    },
  );

  it('flags the later of two rows for one customer, with its cell, and writes only the first', async () => {
    const { client, dir, s, runsRoot } = await setup(
      storeWith('MY', [customer('cus_a', 'Aina', '60123456789', 'aina@example.com')]),
    );
    const file = join(dir, 'dups.csv');
    writeFileSync(
      file,
      csv([
        ['id', 'name', 'phone', 'email'],
        ['', 'Aina B', '012-345 6789', ''],
        ['', 'Aina C', '+60 12 345 6789', ''], // same phone, another format
        ['cus_a', 'Aina D', '', ''], // same customer by id
        ['', 'New One', '017-222 3333', 'new@example.com'],
        ['', 'New Two', '017-222 4444', 'NEW@example.com'], // same email, other case
      ]),
    );
    const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    const { plan } = planned.file;
    expect(plan.issues.map((i) => [i.rowNumber, i.code, i.column])).toEqual([
      [3, 'duplicate_customer', 'C'],
      [4, 'duplicate_customer', 'A'],
      [6, 'duplicate_customer', 'D'],
    ]);
    expect(plan.issues[0]?.message).toContain('row 2');
    const applied = await applyCustomerRun(planned.run, { client });
    expect(applied).toMatchObject({ created: 1, updated: 1 });
    expect(applied.failedRows.map((r) => [r.row, r.code])).toEqual([
      [3, 'duplicate_customer'],
      [4, 'duplicate_customer'],
      [6, 'duplicate_customer'],
    ]);
    expect(writes(s)).toHaveLength(2);
    expect(s.store.getCustomer('cus_a').name).toBe('Aina B');

    const results = readCsv(planned.run.file('results'));
    expect(results.map((r) => [r['row'], r['outcome'], r['error_code'], r['column']])).toEqual([
      ['2', 'updated', '', ''],
      ['3', 'invalid', 'duplicate_customer', 'C'],
      ['4', 'invalid', 'duplicate_customer', 'A'],
      ['5', 'created', '', ''],
      ['6', 'invalid', 'duplicate_customer', 'D'],
    ]);
    expect(results[0]?.['entity_id']).toBe('cus_a');
    // failed.csv: the input's own columns and values, plus mbulk_error: ready to fix and re-import.
    const failed = readCsv(planned.run.file('failed'));
    expect(failed.map((r) => [r['name'], r['phone'], r['email']])).toEqual([
      ['Aina C', '+60 12 345 6789', ''],
      ['Aina D', '', ''],
      ['New Two', '017-222 4444', 'NEW@example.com'],
    ]);
    expect(failed[0]?.['mbulk_error']).toMatch(/already on row 2/);
  });

  it('reads an XLSX sheet where the phone became a number without its leading zero', async () => {
    const { client, dir, s, runsRoot } = await setup(
      storeWith('MY', [customer('cus_a', 'Aina', '60123456789')]),
    );
    const file = join(dir, 'customers.xlsx');
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Notes').addRow(['not this one']);
    const ws = wb.addWorksheet('Customers');
    ws.addRow(['Name', 'Phone', 'Email']);
    ws.addRow(['Aina Binti', 123456789, 'aina@example.com']);
    ws.addRow(['Bad', 12, '']);
    await wb.xlsx.writeFile(file);
    const planned = await planCustomerImport({
      client,
      file,
      runsRoot,
      target: 'test',
      read: { sheet: 'Customers' },
    });
    expect(planned.file.plan.entries[0]).toMatchObject({ customerId: 'cus_a', matchedBy: 'phone' });
    expect(planned.file.plan.issues.map((i) => [i.sheet, i.rowNumber, i.column, i.value])).toEqual([
      ['Customers', 3, 'B', '12'],
    ]);
    const applied = await applyCustomerRun(planned.run, { client });
    expect(applied.updated).toBe(1);
    expect(s.store.getCustomer('cus_a')).toMatchObject({ name: 'Aina Binti', email: 'aina@example.com' });
    const results = readCsv(planned.run.file('results'));
    expect(results.map((r) => [r['sheet'], r['row'], r['outcome']])).toEqual([
      ['Customers', '2', 'updated'],
      ['Customers', '3', 'invalid'],
    ]);
    expect(readCsv(planned.run.file('failed')).map((r) => [r['Name'], r['Phone']])).toEqual([['Bad', '12']]);
  });

  it('creates each customer once over a connection that drops requests (keyed POSTs replayed, resumed)', async () => {
    sandbox = await startSandbox({ seed: storeWith('MY', []), dropRate: 0.3, faultSeed: 11 });
    const s = sandbox;
    const client = new MerchantClient({
      baseUrl: s.url,
      token: s.token,
      maxRetries: 1,
      retryDelay: { initialDelayMs: 1, maxDelayMs: 5 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-customers-'));
    const file = join(dir, 'new.csv');
    const rows = Array.from({ length: 20 }, (_, n) => [`Person ${n}`, `012-345 ${String(6700 + n)}`]);
    writeFileSync(file, csv([['name', 'phone'], ...rows]));
    const planned = await planCustomerImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    expect(planned.file.plan.counts.create).toBe(20);
    let applied = await applyCustomerRun(planned.run, { client });
    // Resume until every create is settled: outcomes left unknown are replayed with the same key.
    for (let i = 0; i < 10 && applied.failed > 0; i++)
      applied = await applyCustomerRun(planned.run, { client });
    expect(applied.failed).toBe(0);
    expect(s.requestLog().some((e) => e.outcome === 'dropped_after' && e.method === 'POST')).toBe(true);
    expect(s.requestLog().some((e) => e.outcome === 'replayed')).toBe(true);
    const phones = s.store.toSnapshot().customers.map((c) => c.phone);
    expect(phones).toHaveLength(20);
    expect(new Set(phones).size).toBe(20);
    expect(readCsv(planned.run.file('results')).every((r) => r['outcome'] === 'created')).toBe(true);
  });

  it('never clears an email from a blank cell unless --blank clear', async () => {
    const { client, dir, s, runsRoot } = await setup(
      storeWith('MY', [customer('cus_a', 'Aina', '60123456789', 'aina@example.com')]),
    );
    const file = join(dir, 'blank.csv');
    writeFileSync(
      file,
      csv([
        ['name', 'phone', 'email'],
        ['Aina', '012-345 6789', ''],
      ]),
    );
    const keep = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    expect(keep.file.plan.entries[0]?.action).toBe('noop');
    await applyCustomerRun(keep.run, { client });
    expect(writes(s)).toEqual([]);
    expect(s.store.getCustomer('cus_a').email).toBe('aina@example.com');

    const clear = await planCustomerImport({ client, file, runsRoot, target: 'test', blank: 'clear' });
    expect(clear.file.plan.entries[0]?.changes).toEqual([
      { field: 'email', before: 'aina@example.com', after: null },
    ]);
    await applyCustomerRun(clear.run, { client });
    expect(writes(s).map((e) => [e.method, e.path])).toEqual([['PATCH', '/api/v2/customers/cus_a']]);
    expect(s.store.getCustomer('cus_a').email).toBeNull();
  });

  it('reports a write the API rejects as a failed row, and detects drift before applying', async () => {
    const { client, dir, runsRoot, s } = await setup(
      storeWith('MY', [customer('cus_a', 'Aina', '60123456789'), customer('cus_b', 'Ben', '60198765432')]),
    );
    const file = join(dir, 'c.csv');
    writeFileSync(
      file,
      csv([
        ['name', 'phone'],
        ['Aina B', '012-345 6789'],
        ['Ben B', '019-876 5432'],
      ]),
    );
    const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    expect(await checkCustomerDrift(planned.run, client)).toEqual([]);
    s.store.updateCustomer('cus_b', { name: 'Ben (edited in the shop)' });
    const drift = await checkCustomerDrift(planned.run, client);
    expect(drift.map((d) => [d.id, d.reason])).toEqual([
      ['cus_b', expect.stringMatching(/changed since planning/)],
    ]);
    expect(drift[0]?.fields).toEqual([
      { field: 'name', planned: 'Ben B', live: 'Ben (edited in the shop)', atPlanning: 'Ben' },
    ]);

    // The customer of row 2 disappears before applying (simulated by pointing the plan elsewhere).
    const plan = planned.run.readPlan() as CustomerPlanFile;
    const entry = plan.plan.entries[0];
    if (entry) entry.customerId = 'cus_gone';
    planned.run.writePlan(plan);
    const applied = await applyCustomerRun(planned.run, { client });
    expect(applied).toMatchObject({ updated: 1, failed: 1 });
    expect(applied.failedRows).toMatchObject([{ row: 2, code: 'resource_missing' }]);
    const results = readCsv(planned.run.file('results'));
    expect(results.map((r) => [r['outcome'], r['error_code']])).toEqual([
      ['failed', 'resource_missing'],
      ['updated', ''],
    ]);
    expect(results[0]?.['request_id']).toMatch(/\S/);
    expect(readCsv(planned.run.file('failed')).map((r) => r['name'])).toEqual(['Aina B']);
  });
});

describe('mbulk import customers', () => {
  it('plans, prints changes field by field, exits 1 with an invalid row; --json prints one document', async () => {
    const { dir, s } = await setup(
      storeWith('MY', [customer('cus_a', 'Aina', '60123456789', 'aina@example.com')]),
    );
    const file = join(dir, 'c.csv');
    writeFileSync(
      file,
      csv([
        ['name', 'phone', 'email'],
        ['Aina Binti', '012-345 6789', ''],
        ['Broken', '12', 'x@example.com'],
        ['Chen', '017-222 3333', 'chen@example.com'],
      ]),
    );
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const run = async (argv: string[]) => {
      const stdout = capture();
      const stderr = capture();
      const code = await main(argv, { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };

    const dry = await run(['import', 'customers', 'c.csv']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('update 1');
    expect(dry.stdout).toContain('name: Aina → Aina Binti (renaming matched customer)');
    expect(dry.stdout).toContain('create Chen');
    expect(dry.stdout).toMatch(/row 3, column B \(phone\): "12" is not a valid phone number/);
    expect(writes(s)).toEqual([]);

    const applied = await run(['import', 'customers', 'c.csv', '--apply', '--yes', '--json']);
    expect(applied.code).toBe(1);
    const doc = JSON.parse(applied.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      ok: false,
      applied: true,
      status: 'completed',
      created: 1,
      updated: 1,
      failed: 0,
      writeRequests: 2,
      counts: { rows: 3, create: 1, update: 1, unchanged: 0, invalid: 1 },
      failedRows: [{ row: 3, code: 'phone_invalid' }],
    });
    expect(typeof doc['runId']).toBe('string');
    expect(s.store.getCustomer('cus_a').name).toBe('Aina Binti');
    expect(applied.stdout + applied.stderr).not.toContain(s.token);

    const bad = await run(['import', 'customers', 'c.csv', '--blank', 'erase']);
    expect(bad.code).toBe(2);

    // A sheet with nothing to match customers by is unusable: exit 2, nothing planned.
    writeFileSync(join(dir, 'names.csv'), 'name,city\nAina,Ipoh\n');
    const unusable = await run(['import', 'customers', 'names.csv']);
    expect(unusable.code).toBe(2);
    expect(unusable.stderr).toMatch(/id, phone or email column/);
  });

  it("refuses a row whose phone is Olivia Nguyen's but whose email is not: Olivia is unchanged after --apply", async () => {
    const { dir, s } = await setup(sampleStore());
    const olivia = s.store.getCustomer('cus_00000002');
    expect(olivia).toMatchObject({ name: 'Olivia Nguyen', phone: '12063895078' });
    expect(olivia.email).toBeTruthy();
    writeFileSync(
      join(dir, 'farah.csv'),
      'id,name,phone,email\n,Farah,+1 (206) 389-5078,farah@example.com\n',
    );
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const run = async (argv: string[]) => {
      const stdout = capture();
      const stderr = capture();
      const code = await main(argv, { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };

    const dry = await run(['import', 'customers', 'farah.csv']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toMatch(
      /row 2, column D \(email\): conflict: phone 12063895078 belongs to Olivia Nguyen \(cus_00000002\)/,
    );
    expect(dry.stdout).not.toContain('→ Farah');

    const applied = await run(['import', 'customers', 'farah.csv', '--apply', '--yes', '--json']);
    expect(applied.code).toBe(1);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      writeRequests: 0,
      failedRows: [{ row: 2, code: 'customer_conflict' }],
    });
    expect(writes(s)).toEqual([]);
    expect(s.store.getCustomer('cus_00000002')).toEqual(olivia);

    // Naming her id says the row is about her: the rename is applied, and the plan says it is one.
    writeFileSync(join(dir, 'olivia.csv'), 'id,name\ncus_00000002,Olivia N. Tran\n');
    const renamed = await run(['import', 'customers', 'olivia.csv', '--apply', '--yes']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain('name: Olivia Nguyen → Olivia N. Tran (renaming matched customer)');
    expect(s.store.getCustomer('cus_00000002').name).toBe('Olivia N. Tran');

    // --match email: the phone is data, so the row matches nobody; a create on Olivia's phone is refused.
    const byEmail = await run(['import', 'customers', 'farah.csv', '--match', 'email']);
    expect(byEmail.code).toBe(1);
    expect(byEmail.stdout).toMatch(/phone 12063895078 belongs to customer Olivia N. Tran \(cus_00000002\)/);
    const bad = await run(['import', 'customers', 'farah.csv', '--match', 'name']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--match takes id, phone or email/);
  });
});
