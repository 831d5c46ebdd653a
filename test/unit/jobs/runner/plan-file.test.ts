import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../../src/apply/run-directory.js';
import { applyStockRun } from '../../../../src/jobs/stock/stock-import.js';
import { DamagedPlanError } from '../../../../src/jobs/runner/plan-file.js';

let root: string;
beforeEach(() => {
  root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-plan-file-')), 'runs');
});
afterEach(() => {
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

const stockPlan = () => ({
  kind: 'stock',
  version: 1,
  store: { id: 'st_1', name: 'Shop', currency: 'MYR' },
  input: { original: 'stock.csv', copy: 'input-stock.csv' },
  batchSize: 100,
  liveItems: 1,
  plan: {
    kind: 'stock',
    options: { preserveSales: false },
    rows: 1,
    changes: [
      {
        itemId: 'inv_1',
        sku: 'A',
        name: 'A',
        productId: 'p_1',
        variantId: null,
        sheet: 'stock.csv',
        rowNumber: 2,
        before: 1,
        after: 2,
        mode: 'quantity',
        value: 2,
        expectedUpdatedAt: '2026-01-01T00:00:00Z',
      },
    ],
    unchanged: 0,
    skipped: [],
    issues: [],
  },
});

/**
 * A client of the run's store (the store check's GET /me is answered) that fails the test if
 * anything else is asked of it: a damaged plan sends nothing and reads nothing more.
 */
const noClient = new Proxy({} as MerchantClient, {
  get: (_t, name) => {
    if (name === 'me') return () => Promise.resolve({ id: 'st_1', name: 'Shop', currency: 'MYR' });
    if (name === 'then') return undefined;
    throw new Error(`the client was used (${String(name)})`);
  },
});

async function applyDamaged(plan: unknown): Promise<DamagedPlanError> {
  const run = RunDirectory.create(root, {
    kind: 'stock',
    input: 'stock.csv',
    target: 'test',
    storeId: 'st_1',
  });
  run.writePlan(plan);
  const error = await applyStockRun(run, { client: noClient }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DamagedPlanError);
  expect(fs.existsSync(run.file('journal'))).toBe(false);
  return error as DamagedPlanError;
}

describe('plan.json is validated on read', () => {
  it('a plan with a missing field is a damaged plan naming the field (exit 2), not a TypeError', async () => {
    const plan = stockPlan();
    delete (plan.plan as Partial<typeof plan.plan>).changes;
    const e = await applyDamaged(plan);
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('damaged plan, plan again');
    expect(e.problem).toBe('plan.changes is missing');
  });

  it('a plan of another kind is refused as foreign', async () => {
    const e = await applyDamaged({ ...stockPlan(), kind: 'customers' });
    expect(e.problem).toBe('its kind is "customers", not a plan of this kind');
  });

  it('an unknown format version is refused', async () => {
    const e = await applyDamaged({ ...stockPlan(), version: 2 });
    expect(e.problem).toContain('format version is 2');
  });

  it('a field of the wrong type is named with its path', async () => {
    const plan = stockPlan();
    (plan.plan.changes[0] as Record<string, unknown>)['after'] = '2';
    const e = await applyDamaged(plan);
    expect(e.problem).toMatch(/^plan\.changes\.0\.after: /);
  });

  it('every field apply reads is checked: a stock change without its sku (the backup keeps it)', async () => {
    const plan = stockPlan();
    delete (plan.plan.changes[0] as Partial<(typeof plan.plan.changes)[0]>).sku;
    const e = await applyDamaged(plan);
    expect(e.problem).toBe('plan.changes.0.sku is missing');
  });

  it('a sku that is not text (or null) is damaged, and so is a report field of the wrong type', async () => {
    const plan = stockPlan();
    (plan.plan.changes[0] as Record<string, unknown>)['sku'] = 42;
    expect((await applyDamaged(plan)).problem).toMatch(/^plan\.changes\.0\.sku: /);
    const skipped = stockPlan();
    (skipped.plan as Record<string, unknown>)['skipped'] = [{ sheet: 'stock.csv', rowNumber: 3 }];
    expect((await applyDamaged(skipped)).problem).toBe('plan.skipped.0.reason is missing');
  });

  it('a file that is not a JSON object is damaged', async () => {
    const e = await applyDamaged([1, 2]);
    expect(e.problem).toBe('not a JSON object');
  });
});
