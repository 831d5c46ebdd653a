import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A clock a minute ahead: both plans are past the 5 s threshold, as after a wait at the prompt. */
const later = () => Date.now() + 60_000;

it('two imports planned on the same store, applied one after the other (default check, no get-one): the second refuses what the first changed or created, and reads the catalog in pages, not per product', async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  const s = sandbox;
  const client = new MerchantClient({ baseUrl: s.url, token: s.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-overlap-plans-'));
  const plan = async (name: string, sheet: string) => {
    const file = join(dir, `${name}.csv`);
    writeFileSync(file, sheet);
    return planProductImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
  };
  // Both planned from the same store: A edits products 1-2 and creates NEW-1; B edits 2-3 and creates NEW-1 too.
  const a = await plan(
    'a',
    'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nNEW-0001,From A,10.00\n',
  );
  const b = await plan(
    'b',
    'reference_id,name,price\nERP-0000002,,70.00\nERP-0000003,,5.00\nNEW-0001,From B,11.00\n',
  );

  const first = await applyProductRun(a.run, { client, writeCheck: { now: later } });
  expect(first).toMatchObject({ status: 'completed', updated: 2, created: 1, failed: 0 });
  s.clearRequestLog();
  const second = await applyProductRun(b.run, { client, writeCheck: { now: later } });

  // B wrote only product 3: A's price on product 2 and A's NEW-0001 stand, nothing created twice.
  expect(second).toMatchObject({ status: 'completed', updated: 1, created: 0, failed: 2 });
  expect(second.failedOperations.map((f) => f.code)).toEqual(['drifted', 'drifted']);
  expect(s.store.getProduct('prod_00000002').price).toBe(6300);
  expect(s.store.getProduct('prod_00000003').price).toBe(500);
  const news = s.store.toSnapshot().products.filter((p) => p.reference_id === 'NEW-0001');
  expect(news.map((p) => p.name)).toEqual(['From A']);
  const writes = s.requestLog().filter((e) => e.method !== 'GET');
  expect(writes.map((e) => `${e.method} ${e.path}`)).toEqual(['PATCH /api/v2/products/prod_00000003']);
  // The default check read the catalog listing, not one product at a time.
  const gets = s.requestLog().filter((e) => e.method === 'GET');
  expect(gets.filter((e) => /^\/api\/v2\/products\/[^?]/.test(e.path))).toEqual([]);
  expect(gets.filter((e) => /^\/api\/v2\/products(\?|$)/.test(e.path)).length).toBeGreaterThan(0);
  await client.close();
});
