import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { reconcileProductPatch } from '../../../src/jobs/products/product-reconcile.js';
import { FaultInjector, type FaultDecision } from '../../../src/sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

const SAMPLES = join(resolve(import.meta.dirname, '../../..'), 'samples');
const PRODUCT = 'prod_00000003'; // ERP-0000003, three variants
const NEW_SKU = 'NLB-NEW-XL';
const DROP_RATE = 0.1;

const running: { sandbox: RunningSandbox; client: MerchantClient }[] = [];
afterEach(async () => {
  for (const { sandbox, client } of running.splice(0)) {
    await client.close();
    await sandbox.close();
  }
});

async function start(options: { strict: boolean; faultSeed?: number }) {
  const sandbox = await startSandbox({
    seed: join(SAMPLES, 'store.json'),
    strict: options.strict,
    ...(options.faultSeed !== undefined ? { dropRate: DROP_RATE, faultSeed: options.faultSeed } : {}),
  });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  running.push({ sandbox, client });
  return { sandbox, client };
}

/** A sheet adding one variant to PRODUCT (its three live variants are kept: the PATCH lists them by id). */
function sheet(): { file: string; runsRoot: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-lost-answer-'));
  const file = join(dir, 'add-variant.csv');
  writeFileSync(
    file,
    // With its stock: the product tracks stock, and a new variant without a quantity is refused.
    `reference_id,variant_sku,variant_name,variant_price,variant_inventory_quantity\nERP-0000003,${NEW_SKU},Extra Large,9.90,4\n`,
  );
  return { file, runsRoot: join(dir, '.mbulk', 'runs') };
}

/** Index (among /api/v2 requests) of the PATCH, measured on a fault-free sandbox. */
async function patchIndex(strict: boolean): Promise<number> {
  const { sandbox, client } = await start({ strict });
  const { file, runsRoot } = sheet();
  const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
  await applyProductRun(planned.run, { client });
  const log = sandbox.requestLog().filter((e) => e.path.startsWith('/api/v2'));
  const i = log.findIndex((e) => e.method === 'PATCH');
  expect(i).toBeGreaterThan(0);
  return i;
}

/** A fault seed whose decision `index` is `kind` and every other one of the first index+40 is none. */
function seedFor(index: number, kind: FaultDecision['kind']): number {
  for (let seed = 1; seed < 200_000; seed++) {
    const f = new FaultInjector({ dropRate: DROP_RATE, faultSeed: seed });
    let ok = true;
    for (let i = 0; ok && i < index + 40; i++) ok = f.decide().kind === (i === index ? kind : 'none');
    if (ok) return seed;
  }
  throw new Error('no fault seed found');
}

describe('a product PATCH that adds a variant, whose answer is lost', () => {
  for (const strict of [false, true]) {
    it(`dropped after acting${strict ? ' (strict: no GET /products/{id})' : ''}: reconciled as applied; a resume adds nothing`, async () => {
      const seed = seedFor(await patchIndex(strict), 'drop_after');
      const { sandbox, client } = await start({ strict, faultSeed: seed });
      const { file, runsRoot } = sheet();
      const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
      expect(planned.file.plan.summary).toMatchObject({ update: 1, total: 1 });

      const first = await applyProductRun(planned.run, { client });
      const resumed = await applyProductRun(RunDirectory.load(planned.run.dir), { client });

      const variants = sandbox.store.getProduct(PRODUCT).variants;
      expect(variants.filter((v) => v.sku === NEW_SKU)).toHaveLength(1);
      expect(variants).toHaveLength(4);
      const patches = sandbox.requestLog().filter((e) => e.method === 'PATCH');
      expect(patches.map((e) => e.outcome)).toEqual(['dropped_after']);
      expect(first).toMatchObject({ updated: 1, failed: 0, unknown: 0 });
      expect(resumed).toMatchObject({ updated: 1, failed: 0, requests: 0 });
      // The reconcile re-read the product: GET by id, or (strict: that route answers 404) the listing.
      const log = sandbox.requestLog();
      const after = log
        .slice(log.findIndex((e) => e.method === 'PATCH') + 1)
        .map((e) => [e.method, e.path, e.status]);
      expect(after[0]).toEqual(['GET', `/api/v2/products/${PRODUCT}`, strict ? 404 : 200]);
      if (strict) expect(after[1]?.[1]).toMatch(/^\/api\/v2\/products\?/);
    });
  }

  it('dropped before acting: reconciled as not applied, and the resume sends it once', async () => {
    const seed = seedFor(await patchIndex(false), 'drop_before');
    const { sandbox, client } = await start({ strict: false, faultSeed: seed });
    const { file, runsRoot } = sheet();
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    const first = await applyProductRun(planned.run, { client });
    expect(first).toMatchObject({ updated: 0, failed: 1 });
    expect(sandbox.store.getProduct(PRODUCT).variants).toHaveLength(3);
    const resumed = await applyProductRun(RunDirectory.load(planned.run.dir), { client });
    expect(resumed).toMatchObject({ updated: 1, failed: 0, requests: 1 });
    const variants = sandbox.store.getProduct(PRODUCT).variants;
    expect(variants.filter((v) => v.sku === NEW_SKU)).toHaveLength(1);
    expect(variants).toHaveLength(4);
    expect(
      sandbox
        .requestLog()
        .filter((e) => e.method === 'PATCH')
        .map((e) => e.outcome),
    ).toEqual(['dropped_before', 'applied']);
  });
});

describe('reconcileProductPatch', () => {
  it('throws (left unknown) when the product changed but the planned new variant is not there', async () => {
    const { sandbox, client } = await start({ strict: false });
    const live = sandbox.store.getProduct(PRODUCT);
    const target = {
      key: `update:${PRODUCT}`,
      label: 'ERP-0000003',
      productId: PRODUCT,
      expectedUpdatedAt: '2000-01-01T00:00:00.000Z',
      body: {
        price: live.price,
        variants: [
          ...live.variants.map((v) => ({ id: v.id, name: v.name, price: v.price })),
          { name: 'Ghost', sku: 'GHOST-1', price: 100 },
        ],
      },
    };
    await expect(reconcileProductPatch(client, target)).rejects.toThrow(
      /new variant "GHOST-1".*not be resent/,
    );
    // Same body, but a scalar field differs from the live value: not the planned change either.
    const priced = { ...target, body: { price: live.price + 1 } };
    await expect(reconcileProductPatch(client, priced)).rejects.toThrow(/price/);
    // Unchanged since planning: not applied.
    expect(await reconcileProductPatch(client, { ...target, expectedUpdatedAt: live.updated_at })).toBe(
      'not_applied',
    );
  });
});
