import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { undiciRequestLike, type FetchLike } from '../../../src/api/transport.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import {
  applyProductRun,
  checkProductDrift,
  planProductImport,
} from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

const SAMPLES = join(resolve(import.meta.dirname, '../../..'), 'samples');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** ERP-0000005 is VISIBLE and ERP-0000007 HIDDEN when the read starts; each flips once, during it. */
const TO_HIDE = 'prod_00000005';
const TO_SHOW = 'prod_00000007';
const SHEET = 'reference_id,name,price\nERP-0000005,Cinnamon Roll,19.90\nERP-0000007,Kaya Toast,9.90\n';

/**
 * The sample store with ERP-0000007 hidden, and a client whose transport answers product listings
 * one at a time and flips both products' status (5: VISIBLE → HIDDEN, 7: HIDDEN → VISIBLE) right
 * after the first listing it answers. A read split by status then misses one of them whichever
 * partition it reads first (the second partition no longer holds it), and a read that leaves out
 * hidden products misses 7; one unfiltered listing sees both.
 */
async function racingSetup() {
  const s = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  sandbox = s;
  s.store.updateProduct(TO_SHOW, { status: 'HIDDEN' });
  let queue: Promise<unknown> = Promise.resolve();
  let listings = 0;
  const fetch: FetchLike = (url, init) => {
    const { pathname } = new URL(url);
    if (init.method !== 'GET' || pathname !== '/api/v2/products') return undiciRequestLike(url, init);
    const answered = queue.then(async () => {
      const response = await undiciRequestLike(url, init);
      await response.text().then((text) => Object.assign(response, { text: async () => text }));
      if (++listings === 1) {
        s.store.updateProduct(TO_HIDE, { status: 'HIDDEN' });
        s.store.updateProduct(TO_SHOW, { status: 'VISIBLE' });
      }
      return response;
    });
    queue = answered.catch(() => undefined);
    return answered;
  };
  const client = new MerchantClient({ baseUrl: s.url, token: s.token, fetch });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-live-read-'));
  const file = join(dir, 'price.csv');
  writeFileSync(file, SHEET);
  return { s, client, file, runsRoot: join(dir, '.mbulk', 'runs') };
}

describe('the product import reads the live catalog by status, missing no product that changes status', () => {
  it('a product whose status changes during the read is planned as an update, never a create', async () => {
    const { s, client, file, runsRoot } = await racingSetup();
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.summary).toMatchObject({ create: 0, update: 2 });
    expect(planned.file.plan.entries.map((e) => [e.action, e.productId])).toEqual([
      ['update', TO_HIDE],
      ['update', TO_SHOW],
    ]);
    const reads = s.requestLog().filter((e) => e.method === 'GET' && e.path.startsWith('/api/v2/products'));
    // The plan's read is the status partitions (VISIBLE, HIDDEN twice), never one unfiltered listing.
    expect(reads.filter((e) => e.path.includes('status=VISIBLE')).length).toBeGreaterThan(0);
    expect(reads.filter((e) => e.path.includes('status=HIDDEN')).length).toBeGreaterThan(1);
    expect(reads.filter((e) => !e.path.includes('status=')).map((e) => e.path)).toEqual([]);
  });

  it('the drift check does not report a product as deleted when its status changes during the read', async () => {
    const { s, client, file, runsRoot } = await racingSetup();
    // Planned with a plain client (no race), then checked through the racing one.
    const plain = new MerchantClient({ baseUrl: s.url, token: s.token });
    const planned = await planProductImport({ client: plain, file, runsRoot, target: 'test' });
    await plain.close();
    expect(planned.file.plan.entries.map((e) => e.productId)).toEqual([TO_HIDE, TO_SHOW]);
    const drifted = await checkProductDrift(planned.run, client);
    // Both statuses did change (the witness that the race happened); neither product is gone.
    expect(s.store.getProduct(TO_HIDE).status).toBe('HIDDEN');
    expect(s.store.getProduct(TO_SHOW).status).toBe('VISIBLE');
    expect(drifted.filter((d) => d.change !== 'changed').map((d) => `${d.id}: ${d.reason}`)).toEqual([]);
  });

  it("the apply's write-time check does not take a product whose status changes during its listing as deleted", async () => {
    const { s, client, file, runsRoot } = await racingSetup();
    const plain = new MerchantClient({ baseUrl: s.url, token: s.token });
    const planned = await planProductImport({ client: plain, file, runsRoot, target: 'test' });
    await plain.close();
    expect(planned.file.plan.entries.map((e) => [e.action, e.productId])).toEqual([
      ['update', TO_HIDE],
      ['update', TO_SHOW],
    ]);
    // Loaded from disk (no read handed over): the check lists the catalog itself, through the race.
    const applied = await applyProductRun(RunDirectory.load(planned.run.dir), {
      client,
      concurrency: 1,
      writeCheck: { afterMs: 0 },
    });
    expect(s.store.getProduct(TO_HIDE).status).toBe('HIDDEN');
    expect(s.store.getProduct(TO_SHOW).status).toBe('VISIBLE');
    // TO_SHOW changed since planning (its status): refused as changed, not said to be deleted. (TO_HIDE
    // was listed before its change, as the listing's first page had it: within the check's window.)
    expect(applied.failedOperations.map((f) => [f.key, f.code])).toEqual([[`update:${TO_SHOW}`, 'drifted']]);
    expect(applied.failedOperations[0]?.message).toContain('changed in the store after planning');
    expect(applied.failedOperations[0]?.message).not.toContain('no longer in the store');
  });
});
