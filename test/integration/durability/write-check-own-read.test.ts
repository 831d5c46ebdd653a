import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { undiciRequestLike, type FetchLike } from '../../../src/api/transport.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applySavedRun, type ApplySavedRunOptions } from '../../../src/jobs/apply-saved-run.js';
import { planCustomerImport } from '../../../src/jobs/customers/customer-import.js';
import { planProductImport } from '../../../src/jobs/products/product-import.js';
import type { ProductApplySummary } from '../../../src/jobs/products/product-job.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { twoCustomersStore } from '../../helpers/sample-sandboxes.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * The write-time check takes the run's own complete read of the catalog (the plan's live read in
 * `import … --apply`, the drift check's in `mbulk apply RUN`) as its first listing, aged from when
 * that read started: a slow listing is neither read a second time nor replaced by one GET per write.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const STORE = join(ROOT, 'samples', 'store.json');
/**
 * Each listing page takes this long, and a listing read slower than SLOW.listingMaxReadMs counts
 * as slow (a big store's: 1 s by default, scaled down so the file does not sleep for half a minute).
 * The windows are SLOW.listingRefreshMs long, as a read of about 2 s would give (10 x its time).
 */
const SLOW_PAGE_MS = 60;
const SLOW = { listingMaxReadMs: 40, listingRefreshMs: 20_000 };

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const isListing = (path: string) => /^\/api\/v2\/products(\?|$)/.test(path);
const isGetOne = (path: string) => /^\/api\/v2\/products\/[^?/]+$/.test(path.split('?')[0] ?? '');

/** A client whose listing pages (of the catalog, of the customers) are slow: a big store's. */
function slowClient(s: RunningSandbox): MerchantClient {
  const fetch: FetchLike = async (url, init) => {
    const { pathname, search } = new URL(url);
    if (init.method === 'GET' && (isListing(pathname + search) || pathname === '/api/v2/customers'))
      await new Promise((r) => setTimeout(r, SLOW_PAGE_MS));
    return undiciRequestLike(url, init);
  };
  return new MerchantClient({ baseUrl: s.url, token: s.token, fetch });
}

/** A clock `offset` ms ahead (changed by the test): the plan is past the 5 s threshold without sleeping. */
function clock(offset: number) {
  const c = { offset, now: () => Date.now() + c.offset };
  return c;
}

/** A sandbox of the sample store (20 products: one page) and a plan of three updates and a create. */
async function planned() {
  sandbox = await startSandbox({ seed: STORE });
  const s = sandbox;
  const client = slowClient(s);
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-own-read-'));
  const file = join(dir, 'catalog.csv');
  // Three updates and a create.
  writeFileSync(
    file,
    'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nERP-0000003,,5.00\nNEW-0001,Brand new,10.00\n',
  );
  const plan = await planProductImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
  expect(plan.file.plan.summary).toMatchObject({ create: 1, update: 3, invalid: 0 });
  s.clearRequestLog();
  return { s, client, plan };
}

/** What `import products --apply` calls once it has planned (cli/import-flow.ts), or `mbulk apply RUN` (not justPlanned). */
async function apply(
  run: RunDirectory,
  client: MerchantClient,
  options: Partial<ApplySavedRunOptions>,
): Promise<ProductApplySummary> {
  const outcome = await applySavedRun(run, {
    client,
    target: 'test',
    lock: false,
    concurrency: 1,
    ...options,
  });
  if (outcome.applied !== true) throw new Error(`not applied: ${outcome.message}`);
  return outcome.detail as ProductApplySummary;
}

const patched = (s: RunningSandbox) =>
  s
    .requestLog()
    .filter((e) => e.method === 'PATCH')
    .map((e) => e.path.replace('/api/v2/products/', ''));

describe("write-time check: the run's own read of the catalog is its first listing", () => {
  it('import products --apply, listing slow, plan past 5 s: no GET /products/{id} and no second listing', async () => {
    const { s, client, plan } = await planned();
    const applied = await apply(plan.run, client, {
      justPlanned: true,
      writeCheck: { ...SLOW, now: clock(6_000).now },
    });
    expect(applied).toMatchObject({ status: 'completed', updated: 3, created: 1, failed: 0 });
    const paths = s.requestLog().map((e) => `${e.method} ${e.path}`);
    expect(paths.filter((p) => p.startsWith('GET') && !p.endsWith('/api/v2/me'))).toEqual([]);
    expect(paths.filter((p) => !p.startsWith('GET'))).toHaveLength(4);
  });

  it("import products --apply --strict-check, listing slow: one GET /products/{id} per update, whatever the plan's age", async () => {
    const { s, client, plan } = await planned();
    const applied = await apply(plan.run, client, {
      justPlanned: true,
      writeCheck: { ...SLOW, strict: true },
    });
    expect(applied).toMatchObject({ status: 'completed', updated: 3, created: 1, failed: 0 });
    const gets = s.requestLog().filter((e) => e.method === 'GET' && isGetOne(e.path));
    expect(gets.map((e) => e.path).sort()).toEqual(
      ['prod_00000001', 'prod_00000002', 'prod_00000003'].map((id) => `/api/v2/products/${id}`),
    );
  });

  it('import products --apply: a product edited and a reference_id created while the run waits at the prompt past the window are refused as drifted (the listing is read again)', async () => {
    const { s, client, plan } = await planned();
    const c = clock(0);
    let theirs = '';
    const applied = await apply(plan.run, client, {
      justPlanned: true,
      writeCheck: { ...SLOW, now: c.now },
      // A long wait at the confirmation prompt, someone editing the store meanwhile.
      confirm: () => {
        s.store.updateProduct('prod_00000002', { name: 'Edited in the admin' });
        theirs = s.store.createProduct({ reference_id: 'NEW-0001', name: 'Theirs', price: 999 }).id;
        c.offset = 10 * 60_000;
        return true;
      },
    });
    expect(applied).toMatchObject({ status: 'completed', updated: 2, created: 0, failed: 2 });
    expect(patched(s).sort()).toEqual(['prod_00000001', 'prod_00000003']);
    expect(s.store.getProduct('prod_00000002')).toMatchObject({ name: 'Edited in the admin', price: 6290 });
    expect(
      s.store
        .toSnapshot()
        .products.filter((p) => p.reference_id === 'NEW-0001')
        .map((p) => p.id),
    ).toEqual([theirs]);
    expect(applied.failedOperations.map((f) => f.code)).toEqual(['drifted', 'drifted']);
    expect(applied.failedOperations.map((f) => f.message).join('\n')).toContain(
      `now has reference_id NEW-0001 (product ${theirs}); not created twice`,
    );
    // The listing was read again (both statuses), never one product at a time.
    expect(s.requestLog().filter((e) => e.method === 'GET' && isGetOne(e.path))).toEqual([]);
    expect(s.requestLog().filter((e) => e.method === 'GET' && isListing(e.path)).length).toBeGreaterThan(0);
  });

  it("mbulk apply RUN: the drift check's read is the first listing (no other read); a change made after it, past the window, is refused as drifted", async () => {
    const { s, client, plan } = await planned();
    // Applied later by another process: the run as loaded from its directory.
    const applied = await apply(RunDirectory.load(plan.run.dir), client, {
      writeCheck: { ...SLOW, now: clock(6_000).now },
    });
    expect(applied).toMatchObject({ status: 'completed', updated: 3, created: 1, failed: 0 });
    const gets = s.requestLog().filter((e) => e.method === 'GET' && e.path !== '/api/v2/me');
    // The drift check's one plain read (one page), nothing after it.
    expect(gets.map((e) => e.path.split('?')[0])).toEqual(['/api/v2/products']);

    await sandbox?.close();
    const second = await planned();
    const c = clock(6_000);
    const result = await apply(RunDirectory.load(second.plan.run.dir), second.client, {
      writeCheck: { ...SLOW, now: c.now },
      // After the drift check, before the first write: an edit, then a long wait.
      confirm: () => {
        second.s.store.updateProduct('prod_00000003', { name: 'Edited after the check' });
        c.offset = 10 * 60_000;
        return true;
      },
    });
    expect(result).toMatchObject({ status: 'completed', updated: 2, failed: 1 });
    expect(result.failedOperations[0]).toMatchObject({ code: 'drifted' });
    expect(result.failedOperations[0]?.message).toContain('prod_00000003');
    expect(second.s.store.getProduct('prod_00000003').name).toBe('Edited after the check');
  });

  it('CLI: import products --apply --yes --strict-check sends one GET /products/{id} per update', async () => {
    sandbox = await startSandbox({ seed: STORE });
    const s = sandbox;
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-own-read-cli-'));
    writeFileSync(
      join(dir, 'catalog.csv'),
      'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nERP-0000003,,5.00\n',
    );
    const env = {
      MERCHANT_API_URL: s.url,
      MERCHANT_API_TOKEN: s.token,
      MBULK_LOCK_DIR: mkdtempSync(join(tmpdir(), 'mbulk-locks-')),
    };
    const done = await runCli(
      ['import', 'products', 'catalog.csv', '--apply', '--yes', '--strict-check', '--json'],
      env,
      dir,
    );
    expect(done.code, done.stderr).toBe(0);
    const log = s.requestLog();
    const patches = log.filter((e) => e.method === 'PATCH').map((e) => e.path);
    expect(patches).toHaveLength(3);
    expect(
      log
        .filter((e) => e.method === 'GET' && isGetOne(e.path))
        .map((e) => e.path)
        .sort(),
    ).toEqual([...patches].sort());
    // Each GET just before its PATCH.
    for (const path of patches) {
      const i = log.findIndex((e) => e.method === 'PATCH' && e.path === path);
      expect(log.slice(0, i).some((e) => e.method === 'GET' && e.path === path)).toBe(true);
    }
  });
});

describe("write-time check: the plan's own read of the customers is the first listing", () => {
  it('import customers --apply, listing slow, plan past 5 s: no GET /customers/{id} and no second listing', async () => {
    sandbox = await startSandbox({ seed: twoCustomersStore() });
    const s = sandbox;
    const client = slowClient(s);
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-own-read-cus-'));
    const file = join(dir, 'customers.csv');
    writeFileSync(
      file,
      'id,name,phone\ncus_1,Aida Rahman,60121111111\ncus_2,Badrul Hisham,60122222222\n,Chong Wei,60123333333\n',
    );
    const plan = await planCustomerImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    expect(plan.file.plan.counts).toMatchObject({ create: 1, update: 2, invalid: 0 });
    s.clearRequestLog();
    const outcome = await applySavedRun(plan.run, {
      client,
      target: 'test',
      lock: false,
      justPlanned: true,
      writeCheck: { ...SLOW, now: clock(6_000).now },
    });
    expect(outcome).toMatchObject({ applied: true, ok: true });
    const gets = s.requestLog().filter((e) => e.method === 'GET' && e.path !== '/api/v2/me');
    expect(gets).toEqual([]);
    expect(s.requestLog().filter((e) => e.method !== 'GET')).toHaveLength(3);
  });
});
