import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyStockRun, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

it('a delta sheet killed with SIGKILL after its first batch, then resumed, adds each delta exactly once', async () => {
  const snapshot = generateStore({ products: 10, customers: 0, orders: 0, seed: 3 });
  const items = snapshot.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .filter((i) => i?.sku)
    .slice(0, 6)
    .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
  expect(items).toHaveLength(6);
  sandbox = await startSandbox({ seed: snapshot, latencyMs: 400 });
  const s = sandbox;
  const client = new MerchantClient({ baseUrl: s.url, token: s.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-kill-'));
  const file = join(dir, 'deltas.csv');
  writeFileSync(file, `sku,delta_quantity\n${items.map((i, n) => `${i.sku},${n + 1}`).join('\n')}\n`);
  const planned = await planStockImport({
    client,
    file,
    runsRoot: join(dir, 'runs'),
    target: 'test',
    batchSize: 2,
  });
  expect(planned.file.plan.changes).toHaveLength(6);
  s.clearRequestLog();

  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve('test/fixtures/stock/apply-child.ts'), planned.run.dir, s.url, s.token],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  // Kill it as soon as the first batch has been applied.
  const started = Date.now();
  while (!s.requestLog().some((e) => e.path.includes('batch_update') && e.outcome === 'applied')) {
    if (Date.now() - started > 60_000) throw new Error('the child never applied a batch');
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  await exited;
  const appliedBeforeKill = s.requestLog().filter((e) => e.outcome === 'applied').length;
  expect(appliedBeforeKill).toBeGreaterThanOrEqual(1);
  expect(appliedBeforeKill).toBeLessThan(3);

  const resumed = await applyStockRun(RunDirectory.load(planned.run.dir), { client });
  expect(resumed).toMatchObject({ applied: 6, failed: 0 });
  items.forEach((item, n) => {
    expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + n + 1);
  });
  // Three batches took effect, each once; a batch replayed after the kill is answered from memory.
  const applied = s.requestLog().filter((e) => e.path.includes('batch_update') && e.outcome === 'applied');
  expect(applied).toHaveLength(3);
  await client.close();
});
