import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { readBackup } from '../../../src/apply/backup.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { acquireStoreLock } from '../../../src/apply/store-lock.js';
import { main } from '../../../src/cli/main.js';
import { checkRollbackDrift } from '../../../src/jobs/rollback/rollback-drift.js';
import { applyCustomerRun, planCustomerImport } from '../../../src/jobs/customers/customer-import.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import {
  applyRollbackRun,
  planRollback,
  rollbackRun,
  RollbackError,
} from '../../../src/jobs/rollback/rollback-run.js';
import { applyStockRun, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { applyTemplateRun, planTemplateImport } from '../../../src/jobs/templates/template-import.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/snapshot.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const SAMPLES = resolve(import.meta.dirname, '../../../samples');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(seed: StoreSnapshot | string) {
  sandbox = await startSandbox({ seed });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-rollback-'));
  return { s: sandbox, client, dir, runsRoot: join(dir, '.mbulk', 'runs') };
}

function writes(s: RunningSandbox) {
  return s.requestLog().filter((e) => !['GET', 'HEAD'].includes(e.method) && !e.path.startsWith('/__'));
}

function readCsv(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

function trackedItems(snapshot: StoreSnapshot) {
  const items: { itemId: string; sku: string; quantity: number }[] = [];
  for (const p of snapshot.products) {
    if (!p.inventory_enabled) continue;
    for (const i of [p.inventory, ...p.variants.map((v) => v.inventory)]) {
      if (i?.sku) items.push({ itemId: i.item_id, sku: i.sku, quantity: i.quantity });
    }
  }
  return items;
}

function cli(s: RunningSandbox, dir: string) {
  const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token, MBULK_LOCK_DIR: join(dir, 'locks') };
  return async (argv: string[]) => {
    const stdout = capture();
    const stderr = capture();
    const code = await main(argv, { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };
}

/** A stock run that set 5 of 20 items to new quantities, applied. */
async function appliedStockRun() {
  const snapshot = generateStore({ products: 20, customers: 0, orders: 0, seed: 11 });
  const env = await setup(snapshot);
  const items = trackedItems(snapshot).slice(0, 20);
  const file = join(env.dir, 'stock.csv');
  writeFileSync(
    file,
    `sku,quantity\n${items.map((i, n) => `${i.sku},${n < 5 ? i.quantity + 7 + n : i.quantity}`).join('\n')}\n`,
  );
  const planned = await planStockImport({ client: env.client, file, runsRoot: env.runsRoot, target: 'test' });
  const applied = await applyStockRun(planned.run, { client: env.client });
  expect(applied.applied).toBe(5);
  for (const i of items.slice(0, 5))
    expect(env.s.store.getInventoryItem(i.itemId).quantity).not.toBe(i.quantity);
  return { ...env, items, source: planned.run };
}

describe('rollback of a stock run', () => {
  it('restores the quantities exactly, as a new resumable rollback run, and then has nothing left to do', async () => {
    const { s, client, items, source } = await appliedStockRun();
    s.clearRequestLog();

    const { planned, applied } = await rollbackRun(source, { client });
    expect(planned.run.meta.kind).toBe('rollback');
    expect(planned.run.dir).not.toBe(source.dir);
    expect(planned.file.counts['stock_items']).toBe(5);
    expect(planned.file.drifted).toEqual([]);
    expect(applied).toMatchObject({ status: 'completed', restored: 5, failed: 0, requests: 1 });
    for (const i of items) expect(s.store.getInventoryItem(i.itemId).quantity).toBe(i.quantity);
    // One absolute batch write of the 5 items.
    const w = writes(s);
    expect(w.map((e) => [e.method, e.path])).toEqual([['POST', '/api/v2/inventory_items/batch_update']]);

    // The rollback run is a run like any other: journal, results, report, its own backup.
    const run = RunDirectory.load(planned.run.dir);
    expect(run.meta.status).toBe('applied');
    expect(existsSync(run.file('journal'))).toBe(true);
    const results = readCsv(run.file('results'));
    expect(results.filter((r) => r['outcome'] === 'restored')).toHaveLength(5);
    const ownBackup = readBackup(run.file('backup'));
    expect(ownBackup.map((e) => e.type)).toEqual(Array(5).fill('inventory_item'));
    expect(readFileSync(run.file('report'), 'utf8')).toContain(`Rollback of run ${source.id}`);

    // Rolling back again: everything is already as before.
    s.clearRequestLog();
    const again = await planRollback(source, { client });
    expect(again.file.restores).toEqual([]);
    expect(again.file.leftAlone).toHaveLength(5);
    expect(writes(s)).toEqual([]);

    // A rollback saved its own backup: rolling IT back puts the imported quantities back.
    const redo = await rollbackRun(run, { client });
    expect(redo.applied.restored).toBe(5);
    for (const [n, i] of items.slice(0, 5).entries()) {
      expect(s.store.getInventoryItem(i.itemId).quantity).toBe(i.quantity + 7 + n);
    }
  });

  it('refuses (exit 3) when an item changed after the run wrote it, and restores it with --force', async () => {
    const { s, client, items, source, dir } = await appliedStockRun();
    const moved = items[2]!;
    await client.inventory.update(moved.itemId, { quantity: 999 });
    s.clearRequestLog();

    const refused = await planRollback(source, { client });
    expect(refused.refusal).toMatch(/changed after run/);
    expect(refused.file.drifted).toEqual([
      expect.objectContaining({
        type: 'inventory_item',
        id: moved.itemId,
        reason: expect.stringMatching(/999/),
      }),
    ]);
    await expect(applyRollbackRun(refused.run, { client })).rejects.toThrow(RollbackError);
    await expect(rollbackRun(source, { client })).rejects.toMatchObject({ exitCode: 3 });
    expect(writes(s)).toEqual([]);
    expect(s.store.getInventoryItem(moved.itemId).quantity).toBe(999);

    const run = cli(s, dir);
    const r = await run(['runs', 'rollback', source.id, '--apply', '--yes', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      refused: 'drift',
      drifted: [{ id: moved.itemId }],
    });
    expect(writes(s)).toEqual([]);

    const forced = await run(['runs', 'rollback', source.id, '--apply', '--yes', '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ ok: true, applied: true, restored: 5 });
    for (const i of items) expect(s.store.getInventoryItem(i.itemId).quantity).toBe(i.quantity);
  });

  it('CLI: dry run by default; an interrupted rollback is continued by naming it', async () => {
    const { s, client, items, source, dir, runsRoot } = await appliedStockRun();
    // An interrupted run has only its crash-safe backup.ndjson: that is enough.
    rmSync(source.file('backup'));
    s.clearRequestLog();
    const run = cli(s, dir);
    const dry = await run(['runs', 'rollback', source.id]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('restore 5 stock items');
    expect(dry.stdout).toMatch(new RegExp(`stock ${items[0]!.sku}: \\d+ → ${items[0]!.quantity}`));
    expect(dry.stdout).toContain('Dry run: nothing was written');
    expect(writes(s)).toEqual([]);

    // A planned rollback is applied later only through its drift check (applySavedRun's): what it
    // restores must be as it was when planned.
    const planned = await planRollback(source, { client, runsRoot });
    expect(await checkRollbackDrift(planned.run, client)).toEqual([]);
    const sold = items[1]!;
    const soldNow = s.store.getInventoryItem(sold.itemId).quantity;
    await client.inventory.update(sold.itemId, { quantity: soldNow - 1 });
    expect(await checkRollbackDrift(planned.run, client)).toEqual([
      expect.objectContaining({
        id: sold.itemId,
        reason: `quantity ${soldNow} → ${soldNow - 1} since planning`,
      }),
    ]);
    await client.inventory.update(sold.itemId, { quantity: soldNow });
    s.clearRequestLog();

    // A rollback stopped before its writes (signal fired) is resumable.
    const stopped = await applyRollbackRun(planned.run, { client, signal: AbortSignal.abort() });
    expect(stopped.status).toBe('interrupted');
    expect(writes(s)).toEqual([]);
    // What it never reached is "not reached", never "failed": in the summary, runs show, results.csv.
    expect([stopped.restored, stopped.failed, stopped.notReached]).toEqual([0, 0, 5]);
    const shown = await run(['runs', 'show', planned.run.id]);
    expect(shown.stdout).toContain('Outcome: not reached 5');
    expect(shown.stdout).not.toMatch(/failed [1-9]/);
    const outcomes = Papa.parse<Record<string, string>>(
      readFileSync(planned.run.file('results'), 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data.map((r) => r['outcome']);
    expect(outcomes).toEqual(['not_reached', 'not_reached', 'not_reached', 'not_reached', 'not_reached']);
    expect(readFileSync(planned.run.file('report'), 'utf8')).toContain('| not reached | 5 |');
    // Continuing it is a resume through applySavedRun, with every refusal of one: planned against
    // another target (the source's 'test'), the store's lock held by another writer.
    const elsewhere = await run(['runs', 'rollback', planned.run.id, '--apply', '--yes']);
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toContain(`run ${planned.run.id} was planned against test`);
    planned.run.update({ target: s.url });
    const held = acquireStoreLock(s.url, s.store.getMe(), {
      dir: join(dir, 'locks'),
      command: 'other writer',
    });
    const busy = await run(['runs', 'rollback', planned.run.id, '--apply', '--yes']);
    held.release();
    expect(busy.code).toBe(3);
    expect(busy.stderr).toContain('another mbulk is writing to store');
    expect(busy.stderr).toContain('other writer');
    expect(writes(s)).toEqual([]);
    const resumed = await run(['runs', 'rollback', planned.run.id, '--apply', '--yes', '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ok: true, resumed: true, restored: 5 });
    for (const i of items) expect(s.store.getInventoryItem(i.itemId).quantity).toBe(i.quantity);
  });
});

describe('rollback of a customers run', () => {
  it('restores updated fields, reports created customers as not reversible, and refuses on drift', async () => {
    const { s, client, dir, runsRoot } = await setup(join(SAMPLES, 'store.json'));
    const c1 = s.store.getCustomer('cus_00000001');
    const c2 = s.store.getCustomer('cus_00000002');
    const file = join(dir, 'c.csv');
    writeFileSync(
      file,
      `id,name,email\ncus_00000001,Renamed One,one@example.com\ncus_00000002,Renamed Two,\n`,
    );
    writeFileSync(join(dir, 'new.csv'), 'name,phone\nBrand New,60123456789\n');
    const planned = await planCustomerImport({ client, file, runsRoot, target: 'test' });
    expect((await applyCustomerRun(planned.run, { client })).updated).toBe(2);
    const created = await planCustomerImport({
      client,
      file: join(dir, 'new.csv'),
      runsRoot,
      target: 'test',
    });
    expect((await applyCustomerRun(created.run, { client })).created).toBe(1);
    expect(s.store.getCustomer('cus_00000001').name).toBe('Renamed One');

    // Someone edits customer 2 after the run: refused.
    await client.customers.update('cus_00000002', { name: 'Edited Later' });
    const refused = await planRollback(planned.run, { client });
    expect(refused.file.drifted.map((d) => d.id)).toEqual(['cus_00000002']);
    expect(refused.refusal).toBeDefined();

    // Forced: both restored to their saved fields.
    const { applied } = await rollbackRun(planned.run, { client, force: true });
    expect(applied).toMatchObject({ restored: 2, failed: 0 });
    for (const before of [c1, c2]) {
      const now = s.store.getCustomer(before.id);
      expect({ name: now.name, phone: now.phone, email: now.email }).toEqual({
        name: before.name,
        phone: before.phone,
        email: before.email,
      });
    }

    // The created customer cannot be deleted: reported, nothing written.
    s.clearRequestLog();
    const ofCreate = await planRollback(created.run, { client });
    expect(ofCreate.file.restores).toEqual([]);
    expect(ofCreate.file.notReversible).toEqual([
      expect.objectContaining({
        type: 'customer',
        label: 'Brand New',
        reason: expect.stringMatching(/cannot be deleted/),
      }),
    ]);
    expect(ofCreate.file.notReversible[0]!.id).toMatch(/^cus_/);
    expect(writes(s)).toEqual([]);
  });
});

describe('rollback of a products run', () => {
  it('restores name and price; keeps the created product unless --delete-created', async () => {
    const { s, client, dir, runsRoot } = await setup(join(SAMPLES, 'store.json'));
    const before = s.store.getProduct('prod_00000003');
    const file = join(dir, 'p.csv');
    writeFileSync(
      file,
      'reference_id,name,price\nERP-0000003,Nasi Lemak Special,6.50\nERP-NEW-0001,Roti Canai Test,3.20\n',
    );
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    const applied = await applyProductRun(planned.run, { client });
    expect(applied).toMatchObject({ created: 1, updated: 1, failed: 0 });
    const after = s.store.getProduct('prod_00000003');
    expect([after.name, after.price]).toEqual(['Nasi Lemak Special', 650]);
    const createdId = (s.store.toSnapshot().products.find((p) => p.reference_id === 'ERP-NEW-0001') ?? {}).id;
    expect(createdId).toBeDefined();

    s.clearRequestLog();
    const run = cli(s, dir);
    const dry = await run(['runs', 'rollback', planned.run.id]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('name: Nasi Lemak Special → Nasi Lemak Bungkus');
    expect(dry.stdout).toContain('price: 6.50 → 4.50');
    // A product the run created is kept (the flag that deletes it named), never "cannot be undone".
    expect(dry.stdout).toMatch(
      new RegExp(
        `Kept \\(1\\): created by the run; to delete them too: mbulk runs rollback ${planned.run.id} --delete-created --apply\n {2}product prod_\\w+ \\(Roti Canai Test\\)\n`,
      ),
    );
    expect(dry.stdout).not.toContain('Cannot be undone');
    expect(dry.stdout).toContain('keep 1 created products · 0 not reversible');
    const rollbackRun = /^Run (\S+) · rollback of/m.exec(dry.stdout)?.[1] as string;
    const md = readFileSync(join(dir, '.mbulk', 'runs', rollbackRun, 'report.md'), 'utf8');
    expect(md).toContain('| created products kept | 1 |');
    expect(md).toContain('| not reversible | 0 |');
    expect(md).toMatch(/kept: product prod_\w+ \(Roti Canai Test\): created by the run; to delete it too/);
    expect(md).not.toMatch(/not reversible: .*Roti Canai Test/);
    expect(writes(s)).toEqual([]);

    const done = await run(['runs', 'rollback', planned.run.id, '--apply', '--yes', '--json']);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, restored: 1, writeRequests: 1 });
    const restored = s.store.getProduct('prod_00000003');
    expect([restored.name, restored.price]).toEqual([before.name, before.price]);
    // Only the fields the run wrote were sent back; the variants were not touched.
    expect(restored.variants.map((v) => v.id)).toEqual(before.variants.map((v) => v.id));
    const patch = writes(s);
    expect(patch.map((e) => [e.method, e.path])).toEqual([['PATCH', '/api/v2/products/prod_00000003']]);
    expect(s.store.getProduct(createdId!).name).toBe('Roti Canai Test');

    // With --delete-created, the product the run created goes too.
    s.clearRequestLog();
    const del = await run([
      'runs',
      'rollback',
      planned.run.id,
      '--apply',
      '--yes',
      '--delete-created',
      '--json',
    ]);
    expect(del.code).toBe(0);
    expect(JSON.parse(del.stdout)).toMatchObject({ ok: true, restored: 1 });
    expect(writes(s).map((e) => [e.method, e.path])).toEqual([['DELETE', `/api/v2/products/${createdId}`]]);
    expect(() => s.store.getProduct(createdId!)).toThrow();
  });

  it('refuses when the product changed after the run wrote it', async () => {
    const { s, client, dir, runsRoot } = await setup(join(SAMPLES, 'store.json'));
    const file = join(dir, 'p.csv');
    writeFileSync(file, 'reference_id,price\nERP-0000003,6.50\n');
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    await applyProductRun(planned.run, { client });
    await client.products.update('prod_00000003', { price: 700 });
    s.clearRequestLog();
    const run = cli(s, dir);
    const r = await run(['runs', 'rollback', planned.run.id, '--apply', '--yes']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      /product prod_00000003 \(Nasi Lemak Bungkus\): changed after the run wrote it \(price\)/,
    );
    expect(writes(s)).toEqual([]);
    expect(s.store.getProduct('prod_00000003').price).toBe(700);
  });

  it('puts back variants a replace run deleted, under new ids, and says so', async () => {
    const { s, client, dir, runsRoot } = await setup(join(SAMPLES, 'store.json'));
    const before = s.store.getProduct('prod_00000003');
    expect(before.variants).toHaveLength(3);
    const file = join(dir, 'one.csv');
    writeFileSync(file, 'reference_id,variant_sku,variant_price\nERP-0000003,NLB-SGL-STD,5.00\n');
    const planned = await planProductImport({
      client,
      file,
      runsRoot,
      target: 'test',
      replace: { variants: true },
      allowDeletes: true,
    });
    await applyProductRun(planned.run, { client });
    expect(s.store.getProduct('prod_00000003').variants).toHaveLength(1);

    const { planned: rb, applied } = await rollbackRun(planned.run, { client });
    expect(applied).toMatchObject({ restored: 1, failed: 0 });
    const entry = rb.file.restores[0];
    expect(entry?.type === 'product' ? entry.notes.join('\n') : '').toMatch(
      /was deleted by the run: it is recreated with a new id \(the old id cannot be restored/,
    );
    const now = s.store.getProduct('prod_00000003');
    const shape = (p: typeof now) =>
      p.variants.map((v) => ({ name: v.name, sku: v.sku, price: v.price, stock: v.inventory?.quantity }));
    expect(shape(now)).toEqual(shape(before));
    expect(now.variants[0]?.id).toBe(before.variants[0]?.id);
    expect(now.variants[1]?.id).not.toBe(before.variants[1]?.id);
  });
});

describe('rollback of runs that cannot be undone', () => {
  it('reports submitted templates as not reversible and writes nothing', async () => {
    const { s, client, dir, runsRoot } = await setup(join(SAMPLES, 'store.json'));
    const planned = await planTemplateImport({
      client,
      file: join(SAMPLES, 'message-templates.csv'),
      runsRoot,
      target: 'test',
    });
    const applied = await applyTemplateRun(planned.run, { client });
    expect(applied.created).toBeGreaterThan(0);
    s.clearRequestLog();
    const r = await cli(s, dir)(['runs', 'rollback', planned.run.id, '--apply', '--yes', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      applied: boolean;
      notReversible: { type: string; reason: string }[];
    };
    expect(doc.applied).toBe(false);
    expect(doc.notReversible).toHaveLength(applied.created);
    expect(doc.notReversible.every((n) => n.type === 'template' && /cannot be deleted/.test(n.reason))).toBe(
      true,
    );
    expect(r.stderr).toContain('Nothing to restore.');
    expect(writes(s)).toEqual([]);
  });

  it('refuses to roll back a run that was only planned', async () => {
    const { s, dir } = await appliedStockRun();
    const file = join(dir, 'stock2.csv');
    writeFileSync(file, 'sku,quantity\n');
    const r = await cli(s, dir)(['runs', 'list', '--json']);
    const planned = (JSON.parse(r.stdout) as { runs: { id: string }[] }).runs[0]!.id;
    const source = RunDirectory.load(join(dir, '.mbulk', 'runs', planned));
    source.setStatus('planned');
    const out = await cli(s, dir)(['runs', 'rollback', planned]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('was never applied');
  });
});
