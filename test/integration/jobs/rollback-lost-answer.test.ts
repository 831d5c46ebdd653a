import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { applyRollbackRun, planRollback } from '../../../src/jobs/rollback/rollback-run.js';
import { FaultInjector } from '../../../src/sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

const SAMPLES = resolve(import.meta.dirname, '../../../samples');
const PRODUCT = 'prod_00000003';
const DROP_RATE = 0.1;

const running: { sandbox: RunningSandbox; client: MerchantClient }[] = [];
afterEach(async () => {
  for (const { sandbox, client } of running.splice(0)) {
    await client.close();
    await sandbox.close();
  }
});

/**
 * A replace run that deleted two of PRODUCT's three variants, then its rollback (the restore PATCH
 * recreates them: entries without id). Returns the rollback's planned run before it is applied.
 */
async function replaceRunThenPlanRollback(faultSeed?: number) {
  const sandbox = await startSandbox({
    seed: join(SAMPLES, 'store.json'),
    ...(faultSeed !== undefined ? { dropRate: DROP_RATE, faultSeed } : {}),
  });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  running.push({ sandbox, client });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-rollback-lost-'));
  const file = join(dir, 'one.csv');
  writeFileSync(file, 'reference_id,variant_sku,variant_price\nERP-0000003,NLB-SGL-STD,5.00\n');
  const runsRoot = join(dir, '.mbulk', 'runs');
  const planned = await planProductImport({
    client,
    file,
    runsRoot,
    target: 'test',
    replace: { variants: true },
    allowDeletes: true,
  });
  await applyProductRun(planned.run, { client });
  expect(sandbox.store.getProduct(PRODUCT).variants).toHaveLength(1);
  const rb = await planRollback(planned.run, { client });
  return { sandbox, client, rb };
}

describe('a rollback product PATCH that recreates variants, whose answer is lost', () => {
  it('is reconciled as applied and never resent: a resume leaves exactly the three variants', async () => {
    // Measure, fault-free, which /api/v2 request the restore PATCH is.
    const dry = await replaceRunThenPlanRollback();
    await applyRollbackRun(dry.rb.run, { client: dry.client });
    const log = dry.sandbox.requestLog().filter((e) => e.path.startsWith('/api/v2'));
    const index = log.findIndex(
      (e, i) => e.method === 'PATCH' && i > log.findIndex((x) => x.method === 'PATCH'),
    );
    expect(index).toBeGreaterThan(0);
    let seed = 1;
    for (; seed < 200_000; seed++) {
      const f = new FaultInjector({ dropRate: DROP_RATE, faultSeed: seed });
      let ok = true;
      for (let i = 0; ok && i < index + 40; i++)
        ok = f.decide().kind === (i === index ? 'drop_after' : 'none');
      if (ok) break;
    }

    const { sandbox, client, rb } = await replaceRunThenPlanRollback(seed);
    const first = await applyRollbackRun(rb.run, { client });
    const recreated = sandbox.store.getProduct(PRODUCT).variants.map((v) => v.id);
    const resumed = await applyRollbackRun(RunDirectory.load(rb.run.dir), { client });
    const variants = sandbox.store.getProduct(PRODUCT).variants;
    // A replay would delete the recreated variants (absent from its list) and create them again.
    expect(variants.map((v) => v.id)).toEqual(recreated);
    expect(variants.map((v) => v.sku)).toEqual(['NLB-SGL-STD', 'NLB-BX4-STD', 'NLB-BX6-STD']);
    const patches = sandbox.requestLog().filter((e) => e.method === 'PATCH');
    expect(patches.map((e) => e.outcome)).toEqual(['applied', 'dropped_after']);
    expect(first).toMatchObject({ restored: 1, failed: 0 });
    expect(resumed).toMatchObject({ restored: 1, failed: 0, requests: 0 });
  });
});
