import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/snapshot.js';
import { runCli } from '../../helpers/run-cli.js';

const SAMPLE = resolve('samples/store.json');

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: SAMPLE });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-apply-cli-'));
  env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
});
afterEach(async () => {
  await sandbox.close();
});

const writes = () => sandbox.requestLog().filter((e) => e.method !== 'GET');

describe('mbulk apply RUN', () => {
  it('applies a saved product plan, refuses it after the live product changed, and --replan applies a fresh plan', async () => {
    const planned = await runCli(['import', 'products', resolve('samples/catalog.csv'), '--json'], env, dir);
    expect(planned.code).toBe(0);
    const { runId } = planned.json<{ runId: string }>();
    expect(writes()).toEqual([]);

    // Someone edits a product the plan updates.
    const plan = JSON.parse(readFileSync(join(dir, '.mbulk/runs', runId, 'plan.json'), 'utf8')) as {
      plan: { entries: { action: string; productId: string | null }[] };
    };
    const touched = plan.plan.entries.find((e) => e.action === 'update')?.productId;
    expect(touched).toBeTruthy();
    sandbox.store.updateProduct(touched as string, { description: 'edited meanwhile' });

    const refused = await runCli(['apply', runId, '--yes', '--json'], env, dir);
    expect(refused.code).toBe(3);
    expect(refused.json<{ drifted: { id: string }[] }>().drifted.map((d) => d.id)).toContain(touched);
    expect(writes()).toEqual([]);

    // A never-started run is not "resumed" past the drift check either.
    const resumed = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(resumed.json<{ refused: string }>().refused).toBe('drift');
    expect(writes()).toEqual([]);

    const replanned = await runCli(['apply', runId, '--yes', '--replan', '--json'], env, dir);
    expect(replanned.code).toBe(0);
    expect(sandbox.store.getProduct(touched as string)?.description).toBe('edited meanwhile');
    expect(writes().length).toBeGreaterThan(0);

    // The first plan itself stays unapplied and still drifted.
    const again = await runCli(['apply', runId, '--yes'], env, dir);
    expect(again.code).toBe(3);
  });

  it('a drift refusal names each drifted field: the planned value, the live one, the one seen when planning', async () => {
    const sheet = join(dir, 'prices.csv');
    writeFileSync(sheet, 'sku,price\nKBT,9.20\n');
    const planned = await runCli(['import', 'products', sheet, '--json'], env, dir);
    expect(planned.code, planned.stderr).toBe(0);
    const { runId, reportHtml } = planned.json<{ runId: string; reportHtml: string }>();
    const product = sandbox.store.getProduct('prod_00000004');
    expect([product.sku, product.price]).toEqual(['KBT', 850]);
    // Between plan and apply, someone sets another price in the store.
    sandbox.store.updateProduct(product.id, { price: 990 });

    const refused = await runCli(['apply', runId, '--yes', '--json'], env, dir);
    expect(refused.code).toBe(3);
    // People read it on stderr (stdout holds the JSON document).
    expect(refused.stderr).toContain(`product ${product.id} (KBT): changed in the store after planning`);
    expect(refused.stderr).toContain('price: planned 9.20 · live 9.90 (8.50 when planned)');
    expect(refused.json<{ drifted: { fields?: unknown[] }[] }>().drifted[0]?.fields).toEqual([
      { field: 'price', planned: '9.20', live: '9.90', atPlanning: '8.50' },
    ]);
    expect(writes()).toEqual([]);
    // The run's review page says so too, first, with the way out instead of the apply command.
    const refusedPage = readFileSync(reportHtml, 'utf8');
    expect(refusedPage).toContain('The live store changed since planning (1 entity');
    expect(refusedPage).toContain('planned 9.20');
    expect(refusedPage).toContain('live 9.90');
    expect(refusedPage).toContain(`mbulk apply ${runId} --replan`);
    // No plain apply command left on the page (it would be refused again).
    expect(
      refusedPage
        .split(`mbulk apply ${runId}`)
        .slice(1)
        .every((rest) => rest.startsWith(' --replan')),
    ).toBe(true);
  });

  it('needs --yes without a terminal, and resume repeats nothing of an applied stock run', async () => {
    const snapshot = JSON.parse(readFileSync(SAMPLE, 'utf8')) as StoreSnapshot;
    const item = snapshot.products
      .filter((p) => p.inventory_enabled)
      .flatMap((p) => p.variants)
      .find((v) => v.inventory?.sku)?.inventory;
    expect(item).toBeTruthy();
    const file = join(dir, 'stock.csv');
    writeFileSync(file, `sku,quantity\n${item?.sku},${(item?.quantity ?? 0) + 5}\n`);
    const planned = await runCli(['import', 'stock', file, '--json'], env, dir);
    const { runId } = planned.json<{ runId: string }>();

    const unconfirmed = await runCli(['apply', runId], env, dir);
    expect(unconfirmed.code).toBe(3);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(writes()).toEqual([]);

    expect((await runCli(['apply', runId.slice(0, 18), '--yes'], env, dir)).code).toBe(0);
    expect(writes()).toHaveLength(1);
    expect(sandbox.store.getInventoryItem(item?.item_id as string)?.quantity).toBe((item?.quantity ?? 0) + 5);

    // An applied run is not resumed blindly: refused (exit 2), and --reconcile re-reads the store.
    const resumed = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`mbulk runs resume ${runId} --reconcile`);
    expect(writes()).toHaveLength(1);
    const reconciled = await runCli(['runs', 'resume', runId, '--yes', '--reconcile', '--json'], env, dir);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(writes()).toHaveLength(1);

    const list = await runCli(['runs', 'list', '--json'], env, dir);
    expect(list.json<{ runs: { id: string; status: string }[] }>().runs).toEqual([
      expect.objectContaining({ id: runId, status: 'applied' }),
    ]);
  });

  it('import --apply asks for the store once: the store lock, the plan and the apply share the answer', async () => {
    const snapshot = JSON.parse(readFileSync(SAMPLE, 'utf8')) as StoreSnapshot;
    const item = snapshot.products
      .filter((p) => p.inventory_enabled)
      .flatMap((p) => p.variants)
      .find((v) => v.inventory?.sku)?.inventory;
    const file = join(dir, 'stock.csv');
    writeFileSync(file, `sku,quantity\n${item?.sku},${(item?.quantity ?? 0) + 2}\n`);
    const applied = await runCli(['import', 'stock', file, '--apply', '--yes', '--json'], env, dir);
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes()).toHaveLength(1);
    expect(sandbox.requestLog().filter((e) => e.path === '/api/v2/me')).toHaveLength(1);
  });

  it('refuses to apply or resume a run against another service than the one it was planned on', async () => {
    const planned = await runCli(['import', 'products', resolve('samples/catalog.csv'), '--json'], env, dir);
    const { runId } = planned.json<{ runId: string }>();
    // A second sandbox holds a store with the same id.
    const other = await startSandbox({ seed: SAMPLE });
    try {
      const otherEnv = { MERCHANT_API_URL: other.url, MERCHANT_API_TOKEN: other.token };
      for (const argv of [
        ['apply', runId, '--yes'],
        ['runs', 'resume', runId, '--yes'],
      ]) {
        const r = await runCli(argv, otherEnv, dir);
        expect(r.code).toBe(3);
        expect(r.stderr).toContain(sandbox.url);
      }
      expect(other.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('--replan plans a drifted stock run again from its own copy of the sheet', async () => {
    const snapshot = JSON.parse(readFileSync(SAMPLE, 'utf8')) as StoreSnapshot;
    const item = snapshot.products
      .filter((p) => p.inventory_enabled)
      .flatMap((p) => p.variants)
      .find((v) => v.inventory?.sku)?.inventory;
    const file = join(dir, 'stock.csv');
    writeFileSync(file, `sku,quantity\n${item?.sku},${(item?.quantity ?? 0) + 5}\n`);
    const { runId } = (await runCli(['import', 'stock', file, '--json'], env, dir)).json<{ runId: string }>();
    sandbox.store.updateInventoryItem(item?.item_id as string, { quantity: 100 });
    const refused = await runCli(['apply', runId, '--yes'], env, dir);
    expect(refused.code).toBe(3);
    const q = item?.quantity ?? 0;
    expect(refused.stdout).toContain(`quantity: planned ${q + 5} · live 100 (${q} when planned)`);
    const replanned = await runCli(['apply', runId, '--yes', '--replan'], env, dir);
    expect(replanned.code, replanned.stderr).toBe(0);
    expect(sandbox.store.getInventoryItem(item?.item_id as string)?.quantity).toBe((item?.quantity ?? 0) + 5);
  });

  it('names an unknown run and exits 2', async () => {
    const r = await runCli(['apply', 'no-such-run', '--yes'], env, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-run/);
  });
});
