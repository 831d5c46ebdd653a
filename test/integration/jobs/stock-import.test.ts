import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyStockRun, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { runCli } from '../../helpers/run-cli.js';
import { idempotencyKey } from '../../../src/api/idempotency-key.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/snapshot.js';
import type { JobProgress } from '../../../src/jobs/job-events.js';

interface Item {
  itemId: string;
  sku: string;
  quantity: number;
}

/** Every tracked inventory item of a snapshot that has a SKU. */
function trackedItems(snapshot: StoreSnapshot): Item[] {
  const items: Item[] = [];
  for (const p of snapshot.products) {
    if (!p.inventory_enabled) continue;
    const all = [p.inventory, ...p.variants.map((v) => v.inventory)];
    for (const i of all) if (i?.sku) items.push({ itemId: i.item_id, sku: i.sku, quantity: i.quantity });
  }
  return items;
}

function csv(rows: (string | number)[][]): string {
  return `${rows.map((r) => r.join(',')).join('\n')}\n`;
}

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(options: { strict?: boolean } = {}) {
  const snapshot = generateStore({ products: 30, customers: 0, orders: 0, seed: 7 });
  sandbox = await startSandbox({ seed: snapshot, ...(options.strict ? { strict: true } : {}) });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-'));
  const items = trackedItems(snapshot).slice(0, 50);
  expect(items.length).toBe(50);
  return { snapshot, client, dir, items, sandbox };
}

function writes(s: RunningSandbox) {
  return s.requestLog().filter((e) => e.method !== 'GET');
}

describe('stock import against the sandbox', () => {
  it('writes only the 3 changed items of 50, in one batch, and nothing on a re-run', async () => {
    const { client, dir, items, sandbox: s } = await setup();
    const rows = items.map((i, n) => [i.sku, n < 3 ? i.quantity + 10 : i.quantity]);
    const file = join(dir, 'stock.csv');
    writeFileSync(file, csv([['sku', 'quantity'], ...rows]));
    const runsRoot = join(dir, 'runs');

    const planned = await planStockImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.changes.map((c) => c.sku)).toEqual(items.slice(0, 3).map((i) => i.sku));
    expect(planned.file.plan.unchanged).toBe(47);
    expect(writes(s)).toEqual([]);

    const applied = await applyStockRun(planned.run, { client });
    expect(applied).toMatchObject({ applied: 3, failed: 0, mode: 'batch' });
    const posts = writes(s);
    expect(posts.map((e) => [e.method, e.path, e.status])).toEqual([
      ['POST', '/api/v2/inventory_items/batch_update', 200],
    ]);
    for (const i of items.slice(0, 3)) {
      expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 10);
    }
    const results = Papa.parse<Record<string, string>>(
      readFileSync(planned.run.file('results'), 'utf8').replace(/^\uFEFF/, ''),
      {
        header: true,
        skipEmptyLines: true,
      },
    ).data;
    expect(results).toHaveLength(50);
    expect(results.filter((r) => r['outcome'] === 'updated')).toHaveLength(3);
    expect(results.filter((r) => r['outcome'] === 'unchanged')).toHaveLength(47);

    s.clearRequestLog();
    const again = await planStockImport({ client, file, runsRoot, target: 'test' });
    expect(again.file.plan.changes).toEqual([]);
    await applyStockRun(again.run, { client });
    expect(writes(s)).toEqual([]);
  });

  it('falls back to one PATCH per item when the batch route answers 404 (strict)', async () => {
    const { client, dir, items, sandbox: s } = await setup({ strict: true });
    const file = join(dir, 'stock.csv');
    writeFileSync(
      file,
      csv([['sku', 'quantity'], ...items.map((i, n) => [i.sku, n < 3 ? i.quantity + 1 : i.quantity])]),
    );
    const planned = await planStockImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    const applied = await applyStockRun(planned.run, { client });
    expect(applied).toMatchObject({ applied: 3, failed: 0, mode: 'per-item' });
    const patches = writes(s).filter((e) => e.method === 'PATCH');
    expect(patches).toHaveLength(3);
    expect(RunDirectory.load(planned.run.dir).meta.options['inventoryMode']).toBe('per-item');
  });

  it('settles per-item deltas whose answer was lost by re-reading the item, applying each exactly once', async () => {
    const snapshot = generateStore({ products: 30, customers: 0, orders: 0, seed: 7 });
    sandbox = await startSandbox({ seed: snapshot, strict: true, dropRate: 0.3, faultSeed: 11 });
    const s = sandbox;
    const client = new MerchantClient({
      baseUrl: s.url,
      token: s.token,
      retryDelay: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const items = trackedItems(snapshot).slice(0, 8);
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-delta-'));
    const file = join(dir, 'deltas.csv');
    writeFileSync(file, csv([['sku', 'delta_quantity'], ...items.map((i, n) => [i.sku, n + 1])]));
    const planned = await planStockImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    let summary = await applyStockRun(planned.run, { client });
    for (let i = 0; i < 5 && summary.failed > 0; i++) summary = await applyStockRun(planned.run, { client });
    expect(summary).toMatchObject({ mode: 'per-item', applied: 8, failed: 0 });
    expect(s.requestLog().some((e) => e.outcome === 'dropped_after' && e.method === 'PATCH')).toBe(true);
    items.forEach((item, n) => {
      expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + n + 1);
    });
  });

  it('an interrupted run reports changes it never tried as not yet applied, not as failed rows', async () => {
    const snapshot = generateStore({ products: 30, customers: 0, orders: 0, seed: 7 });
    sandbox = await startSandbox({ seed: snapshot, latencyMs: 150 });
    const s = sandbox;
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const items = trackedItems(snapshot).slice(0, 6);
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-stop-'));
    const file = join(dir, 'stock.csv');
    writeFileSync(file, csv([['sku', 'quantity'], ...items.map((i) => [i.sku, i.quantity + 3])]));
    const planned = await planStockImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: 'test',
      batchSize: 1,
    });
    const stop = new AbortController();
    const watcher = setInterval(() => {
      if (s.requestLog().some((e) => e.outcome === 'applied')) stop.abort();
    }, 10);
    const first = await applyStockRun(planned.run, { client, concurrency: 1, signal: stop.signal });
    clearInterval(watcher);
    expect(first.status).toBe('interrupted');
    expect(first.notRun).toBeGreaterThan(0);
    expect(first.failedRows).toEqual([]);
    const results = Papa.parse<Record<string, string>>(
      readFileSync(planned.run.file('results'), 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(results.filter((r) => r['outcome'] === 'skipped' && r['error_code'] === 'not_run')).toHaveLength(
      first.notRun,
    );
    expect(results.filter((r) => r['outcome'] === 'failed')).toEqual([]);
    const resumed = await applyStockRun(RunDirectory.load(planned.run.dir), { client });
    expect(resumed).toMatchObject({ status: 'completed', applied: 6, notRun: 0, failed: 0 });
  });

  it('keeps a sale made between planning and applying with --preserve-sales', async () => {
    const { client, dir, items, sandbox: s } = await setup();
    const target = items[0] as Item;
    const file = join(dir, 'stock.csv');
    writeFileSync(
      file,
      csv([
        ['sku', 'quantity'],
        [target.sku, target.quantity + 20],
      ]),
    );
    const planned = await planStockImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: 'test',
      preserveSales: true,
    });
    // A sale of 2 happens meanwhile.
    s.store.updateInventoryItem(target.itemId, { delta_quantity: -2 });
    await applyStockRun(planned.run, { client });
    expect(s.store.getInventoryItem(target.itemId)?.quantity).toBe(target.quantity + 18);
  });

  it('reports row errors with their cells and exits with failed rows listed', async () => {
    const { client, dir, items } = await setup();
    const a = items[0] as Item;
    const file = join(dir, 'stock.csv');
    writeFileSync(
      file,
      csv([
        ['sku', 'quantity'],
        ['NO-SUCH-SKU', 1],
        [a.sku, -4],
        [a.sku, 3],
      ]),
    );
    const planned = await planStockImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    expect(planned.file.plan.issues.map((i) => [i.rowNumber, i.code, i.column])).toEqual([
      [2, 'unknown_sku', 'A'],
      [3, 'invalid_quantity', 'B'],
      [4, 'duplicate_sku', 'A'],
    ]);
    const applied = await applyStockRun(planned.run, { client });
    expect(applied.failedRows.map((r) => r.row)).toEqual([2, 3, 4]);
    const failed = readFileSync(planned.run.file('failed'), 'utf8');
    expect(failed).toContain('NO-SUCH-SKU');
    expect(failed.split('\r\n').filter(Boolean)).toHaveLength(4);
  });

  it('a delta batch started more than 24 h ago (its key forgotten) is settled by reading, never resent', async () => {
    const { client, dir, items, sandbox: s } = await setup();
    const file = join(dir, 'deltas.csv');
    const two = items.slice(0, 2);
    writeFileSync(file, csv([['sku', 'delta_quantity'], ...two.map((i) => [i.sku, 5])]));
    const runsRoot = join(dir, 'runs');
    const planned = await planStockImport({ client, file, runsRoot, target: 'test' });
    const body = two.map((i) => ({ item_id: i.itemId, delta_quantity: 5 }));
    // The interrupted session: its batch reached the store, its answer never reached the journal,
    // and by now the service no longer remembers the key (sent here without one).
    const res = await fetch(`${s.url}/api/v2/inventory_items/batch_update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const started = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    writeFileSync(
      planned.run.file('journal'),
      `${JSON.stringify({
        t: started,
        op: 'stock-batch',
        phase: 'start',
        key: 'stock-batch:0',
        attempt: 1,
        idempotencyKey: idempotencyKey(planned.run.id, 'stock-batch:0', body),
      })}\n`,
    );
    s.clearRequestLog();
    const resumed = await applyStockRun(RunDirectory.load(planned.run.dir), { client });
    expect(resumed).toMatchObject({ applied: 2, failed: 0 });
    expect(writes(s)).toEqual([]);
    for (const i of two) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 5);
  });

  it('a delta batch whose journal records were lost, in a session more than 24 h ago, is settled by reading, never resent', async () => {
    // A run directory restored from a snapshot taken mid-run (or a journal a file system lost the
    // end of): batch 0's records are there, batch 1 reached the store but left no record at all.
    // Its key may be forgotten by now, so only re-reading (the batch of deltas says reReadExpired)
    // keeps it from being applied twice; a batch of absolute quantities would be sent again.
    const { client, dir, items, sandbox: s } = await setup();
    const file = join(dir, 'deltas.csv');
    const two = items.slice(0, 2);
    writeFileSync(file, csv([['sku', 'delta_quantity'], ...two.map((i) => [i.sku, 5])]));
    const planned = await planStockImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: 'test',
      batchSize: 1,
    });
    const [first, second] = two as [Item, Item];
    const send = (item: Item) =>
      fetch(`${s.url}/api/v2/inventory_items/batch_update`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ item_id: item.itemId, delta_quantity: 5 }]),
      });
    // The earlier session, 25 h ago: both batches reached the store; only batch 0 was journaled.
    expect((await send(first)).status).toBe(200);
    expect((await send(second)).status).toBe(200);
    const t = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    const key = (n: number, item: Item) =>
      idempotencyKey(planned.run.id, `stock-batch:${n}`, [{ item_id: item.itemId, delta_quantity: 5 }]);
    const record = (phase: string, extra: Record<string, unknown>) =>
      JSON.stringify({ t, op: 'stock-batch', phase, key: 'stock-batch:0', ...extra });
    writeFileSync(
      planned.run.file('journal'),
      `${record('start', { attempt: 1, idempotencyKey: key(0, first) })}\n${record('done', {
        result: { applied: { [first.itemId]: first.quantity + 5 }, failed: {} },
      })}\n`,
    );
    planned.run.setStatus('interrupted');
    s.clearRequestLog();
    const resumed = await applyStockRun(RunDirectory.load(planned.run.dir), { client });
    expect(resumed).toMatchObject({ applied: 2, failed: 0 });
    // The store was read, nothing written: each delta is in the store once.
    expect(writes(s)).toEqual([]);
    for (const i of two) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 5);
  });

  it('refuses a plan that changes more than --max-changes', async () => {
    const { client, dir, items, sandbox: s } = await setup();
    const file = join(dir, 'stock.csv');
    writeFileSync(file, csv([['sku', 'quantity'], ...items.slice(0, 5).map((i) => [i.sku, i.quantity + 1])]));
    const planned = await planStockImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: s.url,
      maxChanges: '4',
    });
    expect(planned.refusal).toMatch(/5 items/);
    // The refused plan stays refused: neither the library nor `mbulk apply RUN` writes it.
    s.clearRequestLog();
    await expect(applyStockRun(planned.run, { client })).rejects.toMatchObject({ exitCode: 3 });
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const r = await runCli(
      ['apply', planned.run.id, '--yes', '--runs-dir', join(dir, 'runs'), '--json'],
      env,
      dir,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
    expect(writes(s)).toEqual([]);
  });

  it('report.md of a 1,000-change plan holds all 1,000 changes', async () => {
    const snapshot = generateStore({ products: 450, customers: 0, orders: 0, seed: 11 });
    sandbox = await startSandbox({ seed: snapshot });
    const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-'));
    const items = trackedItems(snapshot).slice(0, 1000);
    expect(items.length).toBe(1000);
    const file = join(dir, 'stock.csv');
    writeFileSync(file, csv([['sku', 'quantity'], ...items.map((i) => [i.sku, i.quantity + 1])]));
    const planned = await planStockImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    expect(planned.file.plan.changes).toHaveLength(1000);
    const md = readFileSync(planned.run.file('report'), 'utf8');
    expect(md).toContain('## Changes (1000)');
    const listed = new Set(md.match(/^row \d+: \S+/gm)?.map((l) => l.split(': ')[1]));
    expect(listed).toEqual(new Set(items.map((i) => i.sku)));
  });

  // The smaller version of bench/stock.bench.ts (issue 26): not timed, it checks the request count
  // the physical bound is made of, the re-run's 0 writes and what progress says. 4,000 rows of
  // 2,000 products (20 list pages) show each as well as 10,000 did, in less than half the time.
  it('4,000 rows, 1% changed: the list pages of the bound and ceil(changed / 100) writes; a re-run writes nothing', async () => {
    const snapshot = generateStore({ products: 2000, customers: 0, orders: 0, seed: 26 });
    sandbox = await startSandbox({ seed: snapshot });
    const s = sandbox;
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-stock-'));
    const items = trackedItems(snapshot).slice(0, 4000);
    expect(items.length).toBe(4000);
    const changed = items.filter((_, n) => n % 100 === 7).length;
    const file = join(dir, 'stock.csv');
    writeFileSync(
      file,
      csv([
        ['sku', 'quantity'],
        ...items.map((i, n) => [i.sku, n % 100 === 7 ? i.quantity + 1 : i.quantity]),
      ]),
    );
    const visible = snapshot.products.filter((p) => p.status === 'VISIBLE').length;
    const pagesOf = (n: number) => Math.max(1, Math.ceil(n / 100));
    const boundPages = pagesOf(visible) + pagesOf(snapshot.products.length - visible);
    const runsRoot = join(dir, 'runs');
    const pageGets = () =>
      s.requestLog().filter((e) => e.method === 'GET' && e.path.startsWith('/api/v2/products?')).length;

    const progress: JobProgress[] = [];
    const plan = () =>
      planStockImport({ client, file, runsRoot, target: 'test', onProgress: (p) => progress.push(p) });
    const planned = await plan();
    expect(planned.file.plan.changes).toHaveLength(changed);
    expect(pageGets()).toBe(boundPages);
    const fetches = progress.filter((p) => p.phase === 'fetch');
    expect(fetches.at(-1)).toMatchObject({ done: boundPages });
    expect(fetches.at(-1)?.message).toContain(`${snapshot.products.length} products`);
    // A first run has nothing to estimate the store's size from: no made-up total or ETA.
    expect(fetches.some((p) => p.total !== undefined || p.etaSeconds !== undefined)).toBe(false);

    const applied = await applyStockRun(planned.run, { client });
    expect(applied).toMatchObject({ applied: changed, failed: 0, requests: Math.ceil(changed / 100) });
    expect(writes(s).map((e) => e.path)).toEqual(
      Array(Math.ceil(changed / 100)).fill('/api/v2/inventory_items/batch_update'),
    );

    s.clearRequestLog();
    progress.length = 0;
    const again = await plan();
    expect(again.file.plan.changes).toEqual([]);
    expect(await applyStockRun(again.run, { client })).toMatchObject({ requests: 0 });
    expect(writes(s)).toEqual([]);
    expect(pageGets()).toBe(boundPages);
    // The re-run knows the store's size from the last run: pages left and an ETA while it reads.
    const mid = progress.filter((p) => p.phase === 'fetch' && p.etaSeconds !== undefined);
    expect(mid.length).toBeGreaterThan(0);
    expect(mid.every((p) => (p.total ?? 0) >= p.done && (p.etaSeconds ?? 0) > 0)).toBe(true);
    expect(mid.at(-1)?.message).toContain(`(${planned.file.liveItems} at the last run)`);
  });
});
