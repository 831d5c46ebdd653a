import { mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { readJournal, stateOf } from '../../../src/apply/journal.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyProductRun, type ProductPlanFile } from '../../../src/jobs/products/product-import.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('runs resume', () => {
  it('refuses (exit 3, naming them) entities changed between an interrupt and the resume; --replan keeps the change', async () => {
    sandbox = await startSandbox({ seed: resolve('samples/store.json') });
    const s = sandbox;
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-resume-drift-'));
    const planned = await runCli(['import', 'products', resolve('samples/catalog.csv'), '--json'], env, dir);
    expect(planned.code, planned.stderr).toBe(0);
    const { runId } = planned.json<{ runId: string }>();
    const run = RunDirectory.load(join(dir, '.mbulk/runs', runId));
    const file = run.readPlan() as ProductPlanFile;
    expect(file.plan.entries.filter((e) => e.action === 'update').length).toBeGreaterThanOrEqual(2);

    // Interrupted after its first write.
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const stop = new AbortController();
    const first = await applyProductRun(run, {
      client,
      concurrency: 1,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'apply' && p.done >= 1) stop.abort();
      },
    });
    await client.close();
    expect(first.status).toBe('interrupted');

    // Meanwhile someone edits a product the run has not written yet.
    const journal = readJournal(run.file('journal'));
    const pending = file.plan.entries.find(
      (e) =>
        e.action === 'update' && e.productId !== null && stateOf(journal, e.key).status === 'not_started',
    );
    expect(pending).toBeTruthy();
    const id = pending?.productId as string;
    s.store.updateProduct(id, { description: 'edited meanwhile' });
    const writesBefore = s.requestLog().filter((e) => e.method !== 'GET').length;

    const refused = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.json<{ drifted: { id: string }[] }>().drifted.map((d) => d.id)).toContain(id);
    expect(refused.stdout + refused.stderr).toContain('--replan');
    expect(s.requestLog().filter((e) => e.method !== 'GET')).toHaveLength(writesBefore);
    expect(s.store.getProduct(id).description).toBe('edited meanwhile');

    const replanned = await runCli(['runs', 'resume', runId, '--yes', '--replan', '--json'], env, dir);
    expect(replanned.code, replanned.stderr).toBe(0);
    expect(s.store.getProduct(id).description).toBe('edited meanwhile');
  });
});

describe('a damaged journal', () => {
  for (const damage of ['truncated', 'zero-filled'] as const) {
    it(`${damage}: resume refuses (exit 2); --reconcile converges by re-reading the store, no delta applied twice`, async () => {
      const snapshot = generateStore({ products: 10, customers: 0, orders: 0, seed: 7 });
      const items = snapshot.products
        .filter((p) => p.inventory_enabled)
        .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
        .filter((i) => i?.sku)
        .slice(0, 6)
        .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
      // Strict: one PATCH per item, deltas not idempotent.
      sandbox = await startSandbox({ seed: snapshot, strict: true });
      const s = sandbox;
      const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
      const dir = mkdtempSync(join(tmpdir(), 'mbulk-damaged-journal-'));
      const file = join(dir, 'deltas.csv');
      writeFileSync(file, `sku,delta_quantity\n${items.map((i, n) => `${i.sku},${n + 1}`).join('\n')}\n`);
      const applied = await runCli(['import', 'stock', file, '--apply', '--yes', '--json'], env, dir);
      expect(applied.code, applied.stderr).toBe(0);
      const { runId } = applied.json<{ runId: string }>();
      const patches = () => s.requestLog().filter((e) => e.method === 'PATCH' && e.outcome === 'applied');
      expect(patches()).toHaveLength(6);

      const journal = join(dir, '.mbulk/runs', runId, 'journal.ndjson');
      const size = statSync(journal).size;
      if (damage === 'truncated') truncateSync(journal, Math.floor(size / 2));
      else writeFileSync(journal, Buffer.alloc(size));
      expect(readFileSync(journal).length).toBeGreaterThan(0);

      const refused = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('damaged');
      expect(refused.stderr).toContain(`mbulk runs resume ${runId} --reconcile`);
      expect(patches()).toHaveLength(6);

      const listReads = () =>
        s.requestLog().filter((e) => e.method === 'GET' && /^\/api\/v2\/products(\?|$)/.test(e.path)).length;
      const readsBefore = listReads();
      const reconciled = await runCli(
        ['runs', 'resume', runId, '--yes', '--reconcile', '--concurrency', '8', '--json'],
        env,
        dir,
      );
      expect(reconciled.code, reconciled.stderr).toBe(0);
      expect(patches()).toHaveLength(6);
      // Strict mode has no get-one: the unknown outcomes settled together share one catalog read
      // (one page here; two when the six arrive in two windows), not one read per delta, whether
      // the journal was truncated or zero-filled.
      expect(listReads() - readsBefore).toBeLessThanOrEqual(2); // 12 before batching
      items.forEach((item, n) => {
        expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + n + 1);
      });
    });
  }
});
