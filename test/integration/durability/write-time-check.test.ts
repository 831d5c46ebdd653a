import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { applyCustomerRun, planCustomerImport } from '../../../src/jobs/customers/customer-import.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { twoCustomersStore } from '../../helpers/sample-sandboxes.js';
import { runCli } from '../../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const STORE = join(ROOT, 'samples', 'store.json');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A clock a minute ahead: the plan is older than the 5 s threshold without sleeping. */
const later = () => Date.now() + 60_000;

function readCsv(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

async function productsSetup(options: { strict?: boolean; latencyMs?: number } = {}) {
  sandbox = await startSandbox({ seed: STORE, ...options });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-write-check-'));
  const file = join(dir, 'catalog.csv');
  writeFileSync(
    file,
    'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nERP-0000003,,5.00\nNEW-0001,Brand new,10.00\n',
  );
  const planned = await planProductImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
  expect(planned.file.plan.summary).toMatchObject({ create: 1, update: 3, invalid: 0 });
  return { s: sandbox, client, dir, file, planned };
}

const patchesOf = (s: RunningSandbox, id: string) =>
  s.requestLog().filter((e) => e.method === 'PATCH' && e.path.startsWith(`/api/v2/products/${id}`));

describe('write-time check: products', () => {
  it('a product changed after planning is not PATCHed (row failed as drifted), the others are; a create whose reference_id appeared meanwhile is not created twice', async () => {
    const { s, client, planned } = await productsSetup();
    // Someone edits product 2 and creates NEW-0001 in the admin after planning.
    s.store.updateProduct('prod_00000002', { name: 'Edited in the admin' });
    const theirs = s.store.createProduct({ reference_id: 'NEW-0001', name: 'Theirs', price: 999 });
    s.clearRequestLog();

    const warnings: string[] = [];
    const applied = await applyProductRun(planned.run, {
      client,
      writeCheck: { now: later },
      onWarning: (m) => warnings.push(m),
    });

    expect(applied).toMatchObject({ status: 'completed', updated: 2, created: 0, failed: 2, requests: 2 });
    expect(patchesOf(s, 'prod_00000002')).toEqual([]);
    expect(patchesOf(s, 'prod_00000001')).toHaveLength(1);
    expect(patchesOf(s, 'prod_00000003')).toHaveLength(1);
    expect(s.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
    // Their edit is kept; ours landed elsewhere.
    expect(s.store.getProduct('prod_00000002')).toMatchObject({ name: 'Edited in the admin', price: 6290 });
    expect(s.store.getProduct('prod_00000001').price).toBe(1200);
    expect(s.store.getProduct('prod_00000003').price).toBe(500);
    const news = s.store.toSnapshot().products.filter((p) => p.reference_id === 'NEW-0001');
    expect(news.map((p) => p.id)).toEqual([theirs.id]);

    const failed = new Map(applied.failedOperations.map((f) => [f.key, f]));
    expect([...failed.values()].map((f) => f.code)).toEqual(['drifted', 'drifted']);
    expect(applied.failedOperations.find((f) => f.message.includes('prod_00000002'))?.message).toMatch(
      /changed in the store after planning \(updated_at 2025-01-18T14:19:23\.983Z → /,
    );
    expect(
      applied.failedOperations.find((f) => f.label.includes('NEW-0001') || f.message.includes('NEW-0001'))
        ?.message,
    ).toContain(`now has reference_id NEW-0001 (product ${theirs.id}); not created twice`);
    const results = readCsv(planned.run.file('results'));
    const byRef = new Map(results.map((r) => [r['reference_id'] ?? r['key'], r]));
    expect(results.filter((r) => r['outcome'] === 'failed')).toHaveLength(2);
    expect(JSON.stringify([...byRef.values()].filter((r) => r['outcome'] === 'failed'))).toContain('drifted');
    // The drifted product is not in the backup (a rollback must not undo their edit).
    const backup = JSON.parse(readFileSync(planned.run.file('backup'), 'utf8')) as {
      entities: { id: string }[];
    };
    expect(backup.entities.map((e) => e.id)).not.toContain('prod_00000002');
    expect(warnings).toEqual([]);
  });

  it('a fresh plan (younger than the threshold) is not re-read: no GET of a single product', async () => {
    const { s, client, planned } = await productsSetup();
    s.clearRequestLog();
    const applied = await applyProductRun(planned.run, { client, writeCheck: { afterMs: 600_000 } });
    expect(applied).toMatchObject({ status: 'completed', updated: 3, created: 1, failed: 0 });
    // The apply asks which store the token belongs to (GET /api/v2/me: a client of another store
    // is refused), and re-reads no product.
    expect(s.requestLog().filter((e) => e.method === 'GET' && e.path !== '/api/v2/me')).toEqual([]);
  });

  it('strict sandbox (no get-one): one warning, then the writes are checked against the catalog listing instead of one GET each', async () => {
    const { s, client, planned } = await productsSetup({ strict: true });
    s.clearRequestLog();
    const warnings: string[] = [];
    const applied = await applyProductRun(planned.run, {
      client,
      concurrency: 1,
      writeCheck: { strict: true },
      onWarning: (m) => warnings.push(m),
    });
    expect(applied).toMatchObject({ status: 'completed', updated: 3, created: 1, failed: 0 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('GET /api/v2/products/{id} answered 404 for an entity that exists');
    // One get-one tried (404), then none: the catalog listing checks the rest (and the create).
    const gets = s
      .requestLog()
      .filter((e) => e.method === 'GET' && /^\/api\/v2\/products\/[^?]/.test(e.path));
    expect(gets).toHaveLength(1);
  });

  it('CLI: `import products --apply --yes --strict-check` refuses a product edited while the run writes; exit 1 naming drifted', async () => {
    sandbox = await startSandbox({ seed: STORE, latencyMs: 150 });
    const s = sandbox;
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-write-check-cli-'));
    writeFileSync(
      join(dir, 'catalog.csv'),
      'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nERP-0000003,,5.00\nERP-0000005,,16.00\nERP-0000006,,54.00\n',
    );
    const env = {
      MERCHANT_API_URL: s.url,
      MERCHANT_API_TOKEN: s.token,
      MBULK_LOCK_DIR: mkdtempSync(join(tmpdir(), 'mbulk-locks-')),
    };
    const run = runCli(
      [
        'import',
        'products',
        'catalog.csv',
        '--apply',
        '--yes',
        '--strict-check',
        '--concurrency',
        '1',
        '--json',
      ],
      env,
      dir,
    );
    // Once the first PATCH is in, someone edits the last product.
    const deadline = Date.now() + 30_000;
    while (!s.requestLog().some((e) => e.method === 'PATCH')) {
      if (Date.now() > deadline) throw new Error('no PATCH seen');
      await new Promise((r) => setTimeout(r, 10));
    }
    s.store.updateProduct('prod_00000006', { name: 'Edited meanwhile' });
    const done = await run;
    expect(done.code, done.stderr).toBe(1);
    expect(patchesOf(s, 'prod_00000006')).toEqual([]);
    expect(s.store.getProduct('prod_00000006')).toMatchObject({ name: 'Edited meanwhile', price: 5390 });
    for (const id of ['prod_00000001', 'prod_00000002', 'prod_00000003', 'prod_00000005'])
      expect(patchesOf(s, id)).toHaveLength(1);
    const out = done.json<{ failedRows: { code: string; message: string }[] }>();
    expect(out.failedRows).toHaveLength(1);
    expect(out.failedRows[0]).toMatchObject({ code: 'drifted' });
    expect(out.failedRows[0]?.message).toContain('prod_00000006');
  });
});

describe('write-time check: customers', () => {
  it('a customer changed after planning is not PATCHed, a create whose phone appeared meanwhile is not sent; the rest applies', async () => {
    sandbox = await startSandbox({ seed: twoCustomersStore() });
    const s = sandbox;
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-write-check-cus-'));
    const file = join(dir, 'customers.csv');
    writeFileSync(
      file,
      'id,name,phone\ncus_1,Aida Rahman,60121111111\ncus_2,Badrul Hisham,60122222222\n,Chong Wei,60123333333\n',
    );
    const planned = await planCustomerImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    expect(planned.file.plan.counts).toMatchObject({ create: 1, update: 2, invalid: 0 });
    s.store.updateCustomer('cus_2', { email: 'badrul@example.com' });
    const theirs = s.store.createCustomer({ name: 'Chong W.', phone: '60123333333' });
    s.clearRequestLog();

    const applied = await applyCustomerRun(planned.run, { client, writeCheck: { now: later } });

    expect(applied).toMatchObject({ status: 'completed', updated: 1, created: 0, failed: 2, requests: 1 });
    const writes = s.requestLog().filter((e) => e.method !== 'GET');
    expect(writes.map((e) => `${e.method} ${e.path}`)).toEqual(['PATCH /api/v2/customers/cus_1']);
    expect(s.store.getCustomer('cus_1').name).toBe('Aida Rahman');
    expect(s.store.getCustomer('cus_2')).toMatchObject({ name: 'Badrul', email: 'badrul@example.com' });
    const withPhone = s.store.toSnapshot().customers.filter((c) => c.phone === '60123333333');
    expect(withPhone.map((c) => c.id)).toEqual([theirs.id]);
    expect(applied.failedRows.map((r) => [r.row, r.code])).toEqual([
      [3, 'drifted'],
      [4, 'drifted'],
    ]);
    expect(applied.failedRows[0]?.message).toContain('(customer cus_2) changed in the store after planning');
    expect(applied.failedRows[1]?.message).toContain(
      `customer ${theirs.id} (Chong W.) now has phone 60123333333`,
    );
    const results = readCsv(planned.run.file('results'));
    expect(results.map((r) => r['outcome'])).toEqual(['updated', 'failed', 'failed']);
  });
});
