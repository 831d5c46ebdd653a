import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { undiciRequestLike, type FetchLike } from '../../../src/api/transport.js';
import { checkProductDrift, planProductImport } from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

const SAMPLES = join(resolve(import.meta.dirname, '../../..'), 'samples');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * A client whose transport makes prod_00000005 (ERP-0000005, VISIBLE) flip to HIDDEN exactly
 * between a HIDDEN-filtered read and a VISIBLE-filtered read, so a status-partitioned read misses it
 * in both partitions. An unfiltered listing is unaffected.
 */
async function racingSetup() {
  const s = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  sandbox = s;
  let hiddenRead!: () => void;
  const hiddenDone = new Promise<void>((r) => (hiddenRead = r));
  let flipped = false;
  const fetch: FetchLike = async (url, init) => {
    const status = new URL(url).searchParams.get('status');
    if (init.method === 'GET' && status === 'HIDDEN') {
      const response = await undiciRequestLike(url, init);
      hiddenRead();
      return response;
    }
    if (init.method === 'GET' && status === 'VISIBLE') {
      await hiddenDone;
      if (!flipped) {
        flipped = true;
        s.store.updateProduct('prod_00000005', { status: 'HIDDEN' });
      }
    }
    return undiciRequestLike(url, init);
  };
  const client = new MerchantClient({ baseUrl: s.url, token: s.token, fetch });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-live-read-'));
  return { s, client, dir, runsRoot: join(dir, '.mbulk', 'runs') };
}

describe('the product import reads the live catalog in one unfiltered listing', () => {
  it('a product whose status changes during the read is planned as an update, never a create', async () => {
    const { s, client, dir, runsRoot } = await racingSetup();
    const file = join(dir, 'price.csv');
    writeFileSync(file, 'reference_id,name,price\nERP-0000005,Cinnamon Roll,19.90\n');
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.summary).toMatchObject({ create: 0, update: 1 });
    expect(planned.file.plan.entries[0]).toMatchObject({ action: 'update', productId: 'prod_00000005' });
    const reads = s.requestLog().filter((e) => e.method === 'GET' && e.path.startsWith('/api/v2/products'));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((e) => !e.path.includes('status='))).toBe(true);
  });

  it('the drift check does not report a product as deleted when its status changes during the read', async () => {
    const { client, dir, runsRoot } = await racingSetup();
    const file = join(dir, 'price.csv');
    writeFileSync(file, 'reference_id,name,price\nERP-0000005,Cinnamon Roll,19.90\n');
    // Planned with a plain client (no race), then checked through the racing one.
    const plain = new MerchantClient({ baseUrl: sandbox!.url, token: sandbox!.token });
    const planned = await planProductImport({ client: plain, file, runsRoot, target: 'test' });
    const drifted = await checkProductDrift(planned.run, client);
    expect(drifted.filter((d) => d.id === 'prod_00000005' && d.change !== 'changed')).toEqual([]);
  });
});
