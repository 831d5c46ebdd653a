import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { acquireStoreLock, storeLockFile } from '../../../src/apply/store-lock.js';
import { applyStockRun } from '../../../src/jobs/stock/stock-import.js';
import {
  MerchantClient,
  OtherStoreError,
  applySavedRun,
  isMbulkError,
  openRun,
  RunDirectory,
  planMessageSend,
  planStockImport,
  type SavedRunRefusal,
} from '../../../src/index.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/snapshot.js';

// `applySavedRun` is the library call behind `mbulk apply RUN` / `mbulk runs resume RUN`: every
// check before a write, as typed refusals. The witness of "nothing was written" is each sandbox's
// own request log.

const dir = mkdtempSync(join(tmpdir(), 'mbulk-apply-saved-'));
// applySavedRun takes the store lock by default, in $MBULK_LOCK_DIR: this file's own.
const locks = join(dir, 'locks');
vi.stubEnv('MBULK_LOCK_DIR', locks);
const open: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

async function sandbox(seed: StoreSnapshot) {
  const s = await startSandbox({ seed: structuredClone(seed) });
  open.push(s);
  const client = new MerchantClient({ baseUrl: s.url, token: s.token });
  return { s, client, writes: () => s.requestLog().filter((e) => e.method !== 'GET') };
}

/** Tracked inventory items with a SKU. */
function items(snapshot: StoreSnapshot): { itemId: string; sku: string; quantity: number }[] {
  const out: { itemId: string; sku: string; quantity: number }[] = [];
  for (const p of snapshot.products) {
    if (!p.inventory_enabled) continue;
    for (const i of [p.inventory, ...p.variants.map((v) => v.inventory)])
      if (i?.sku) out.push({ itemId: i.item_id, sku: i.sku, quantity: i.quantity });
  }
  return out;
}

const STORE_A = generateStore({ products: 20, customers: 0, orders: 0, seed: 7 });
const STORE_B = generateStore({ products: 20, customers: 0, orders: 0, seed: 8 });

/** Plans a stock run that raises three items by 10 against `a`: nothing is written by planning. */
async function planStock(a: Awaited<ReturnType<typeof sandbox>>, options: { maxChanges?: string } = {}) {
  const tracked = items(STORE_A).slice(0, 10);
  const file = join(mkdtempSync(join(dir, 'plan-')), 'stock.csv');
  writeFileSync(
    file,
    ['sku,quantity', ...tracked.map((i, n) => `${i.sku},${n < 3 ? i.quantity + 10 : i.quantity}`)].join('\n'),
  );
  const planned = await planStockImport({
    client: a.client,
    file,
    runsRoot: join(dir, 'runs'),
    target: a.s.url,
    ...options,
  });
  expect(a.writes()).toEqual([]);
  return { run: planned.run, changed: tracked.slice(0, 3) };
}

function refusal(result: Awaited<ReturnType<typeof applySavedRun>>): SavedRunRefusal {
  if (result.applied)
    throw new Error(`expected a refusal, the run was applied: ${JSON.stringify(result.summary)}`);
  return result;
}

describe('applySavedRun (library, no CLI)', () => {
  it('refuses a saved stock run with a client of another store (other-store), writing nothing anywhere', async () => {
    const a = await sandbox(STORE_A);
    const b = await sandbox(STORE_B);
    expect(STORE_B.me.id).not.toBe(STORE_A.me.id);
    const { run } = await planStock(a);

    const result = refusal(await applySavedRun(run, { client: b.client, target: b.s.url }));
    expect(result).toMatchObject({
      refused: 'other-store',
      category: 'refused',
      plannedStore: STORE_A.me.id,
      store: { id: STORE_B.me.id },
    });
    expect(b.writes()).toEqual([]);
    expect(a.writes()).toEqual([]);
    expect(run.refresh().status).toBe('planned');

    // The kind's own apply refuses too: a library caller skipping applySavedRun writes nothing.
    const direct = await applyStockRun(run, { client: b.client }).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(OtherStoreError);
    expect(isMbulkError(direct) && direct.category).toBe('refused');
    expect(b.writes()).toEqual([]);
    expect(a.writes()).toEqual([]);
  });

  it('refuses the same store served elsewhere (other-target), writing nothing', async () => {
    const a = await sandbox(STORE_A);
    const copy = await sandbox(STORE_A); // the same store id, another service
    const { run } = await planStock(a);
    const result = refusal(await applySavedRun(run, { client: copy.client, target: copy.s.url }));
    expect(result).toMatchObject({
      refused: 'other-target',
      category: 'refused',
      plannedTarget: a.s.url,
      target: copy.s.url,
    });
    expect(copy.writes()).toEqual([]);
    expect(a.writes()).toEqual([]);
  });

  it('refuses a run another live process is applying, and a store whose lock is held (busy)', async () => {
    const a = await sandbox(STORE_A);
    const { run } = await planStock(a);
    const lockDir = mkdtempSync(join(dir, 'lock-'));
    const held = acquireStoreLock(a.s.url, STORE_A.me, {
      dir: lockDir,
      command: 'mbulk import stock other.csv --apply',
    });
    try {
      const locked = refusal(
        await applySavedRun(run, { client: a.client, target: a.s.url, lock: { dir: lockDir } }),
      );
      const lockFile = storeLockFile(lockDir, a.s.url, STORE_A.me.id);
      expect(held.file).toBe(lockFile);
      expect(locked).toMatchObject({ refused: 'busy', category: 'refused', lockFile });
      expect(locked.message).toContain('mbulk import stock other.csv --apply');
    } finally {
      held.release();
    }
    // This process is alive: a run it marked as applying is being applied by someone else.
    openRun(join(dir, 'runs'), run.id).setStatus('applying');
    const busy = refusal(
      await applySavedRun(openRun(join(dir, 'runs'), run.id), { client: a.client, target: a.s.url }),
    );
    expect(busy).toMatchObject({ refused: 'busy', category: 'refused', pid: process.pid });
    expect(a.writes()).toEqual([]);
  });

  it('takes the store lock by default: a second call at once on the same store is refused busy; released when the first ends', async () => {
    const a = await sandbox(STORE_A);
    const first = (await planStock(a)).run;
    const second = (await planStock(a)).run;
    let during: SavedRunRefusal | undefined;
    let optedOut: SavedRunRefusal | undefined;
    const applied = await applySavedRun(first, {
      client: a.client,
      target: a.s.url,
      // Asked while the first holds the lock, before its first write.
      confirm: async () => {
        during = refusal(await applySavedRun(second, { client: a.client, target: a.s.url }));
        // A caller that holds the lock itself opts out: not refused busy (declined here instead).
        optedOut = refusal(
          await applySavedRun(second, {
            client: a.client,
            target: a.s.url,
            lock: false,
            confirm: () => false,
          }),
        );
        return true;
      },
    });
    expect(applied).toMatchObject({ applied: true, ok: true, status: 'completed' });
    const lockFile = storeLockFile(locks, a.s.url, STORE_A.me.id);
    expect(during).toMatchObject({ refused: 'busy', category: 'refused', runId: second.id, lockFile });
    expect(during?.message).toContain(`another mbulk is writing to store ${STORE_A.me.name}`);
    expect(optedOut).toMatchObject({ refused: 'declined' });
    expect(second.refresh().status).toBe('planned');
    // Released when the first ended.
    expect(existsSync(lockFile)).toBe(false);
  });

  it('refuses a drifted run with the drifted entities, and applies it planned again with replan', async () => {
    const a = await sandbox(STORE_A);
    const { run, changed } = await planStock(a);
    const sold = changed[0]!;
    a.s.store.updateInventoryItem(sold.itemId, { delta_quantity: -2 });

    const drift = refusal(await applySavedRun(run, { client: a.client, target: a.s.url }));
    expect(drift).toMatchObject({ refused: 'drift', category: 'refused', canReplan: true });
    if (drift.refused !== 'drift') throw new Error('not a drift refusal');
    expect(drift.drifted.map((d) => d.id)).toContain(sold.itemId);
    expect(a.writes()).toEqual([]);

    const events: string[] = [];
    const replanned = await applySavedRun(run, {
      client: a.client,
      target: a.s.url,
      replan: true,
      onEvent: (e) => events.push(e.type),
    });
    if (!replanned.applied) throw new Error(replanned.message);
    expect(replanned).toMatchObject({ ok: true, status: 'completed', replannedFrom: run.id });
    expect(replanned.run.id).not.toBe(run.id);
    expect(events).toEqual(['checked', 'drifted', 'replanned']);
    // The new plan sets the quantities of the sheet, over the live (sold) quantity.
    expect(a.s.store.getInventoryItem(sold.itemId)?.quantity).toBe(sold.quantity + 10);
    expect(a.writes().map((w) => [w.method, w.path])).toEqual([
      ['POST', '/api/v2/inventory_items/batch_update'],
    ]);
  });

  it('a started stock run whose run.json predates input_deltas is refused by replan (taken to hold deltas); one that says false is planned again', async () => {
    const a = await sandbox(STORE_A);
    const tracked = items(STORE_A).slice(0, 3);
    const file = join(mkdtempSync(join(dir, 'plan-')), 'stock.csv');
    writeFileSync(file, ['sku,quantity', ...tracked.map((i) => `${i.sku},${i.quantity + 10}`)].join('\n'));
    const planned = await planStockImport({
      client: a.client,
      file,
      runsRoot: join(dir, 'runs'),
      target: a.s.url,
      batchSize: 1,
    });
    expect(planned.run.meta.input_deltas).toBe(false);
    // Stopped after its first write: one batch done, two not started.
    const stop = new AbortController();
    await applyStockRun(planned.run, {
      client: a.client,
      concurrency: 1,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'apply' && p.done >= 1) stop.abort();
      },
    });
    expect(a.writes()).toHaveLength(1);
    const last = tracked[2]!;
    a.s.store.updateInventoryItem(last.itemId, { delta_quantity: -1 });
    const metaFile = planned.run.file('meta');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    delete meta['input_deltas'];
    writeFileSync(metaFile, JSON.stringify(meta));

    const old = refusal(
      await applySavedRun(RunDirectory.load(planned.run.dir), {
        client: a.client,
        target: a.s.url,
        resume: true,
        replan: true,
      }),
    );
    expect(old).toMatchObject({
      refused: 'replan-repeats',
      reason:
        'it was planned before runs recorded whether their input holds deltas, and is taken to; it sent write requests of them: 1 applied, 0 of unknown outcome',
    });
    // Not known to hold deltas: the message does not say it sent some.
    expect(old.message).toMatch(
      new RegExp(`^run ${planned.run.id} already sent writes, and its input may hold deltas \\(`),
    );
    expect(old.message).toContain('planning its input again could send them again');
    expect(old.message).not.toContain('already sent deltas');
    expect(a.writes()).toHaveLength(1);

    writeFileSync(metaFile, JSON.stringify({ ...meta, input_deltas: false }));
    const replanned = await applySavedRun(RunDirectory.load(planned.run.dir), {
      client: a.client,
      target: a.s.url,
      resume: true,
      replan: true,
    });
    if (!replanned.applied) throw new Error(replanned.message);
    expect(replanned).toMatchObject({ ok: true, replannedFrom: planned.run.id });
    for (const i of tracked) expect(a.s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 10);
  });

  it('applies a clean run once: a second apply is not-planned, a resume is already-applied', async () => {
    const a = await sandbox(STORE_A);
    const { run, changed } = await planStock(a);
    const applied = await applySavedRun(run, { client: a.client, target: a.s.url });
    if (!applied.applied) throw new Error(applied.message);
    expect(applied).toMatchObject({ ok: true, kind: 'stock', store: { id: STORE_A.me.id } });
    expect(applied.summary).toMatchObject({ updated: 3, failed: 0 });
    for (const i of changed) expect(a.s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 10);
    const written = a.writes().length;

    expect(refusal(await applySavedRun(run, { client: a.client, target: a.s.url }))).toMatchObject({
      refused: 'not-planned',
      category: 'usage',
      status: 'applied',
    });
    expect(
      refusal(await applySavedRun(run, { client: a.client, target: a.s.url, resume: true })),
    ).toMatchObject({ refused: 'already-applied', category: 'usage' });
    expect(a.writes()).toHaveLength(written);
  });

  it('a plan and its apply on one client ask for the store once; a plan a minute later asks again', async () => {
    const a = await sandbox(STORE_A);
    const asks = () => a.s.requestLog().filter((e) => e.method === 'GET' && e.path === '/api/v2/me').length;
    const { run } = await planStock(a);
    expect(asks()).toBe(1);
    const applied = await applyStockRun(run, { client: a.client });
    expect(applied).toMatchObject({ status: 'completed', applied: 3, failed: 0 });
    // The apply's store check used what the planner read.
    expect(asks()).toBe(1);

    // A planner reads the store's settings (currency, tax), which can change: after a minute it
    // asks again rather than plan with what one long-lived client read earlier.
    const now = Date.now();
    const later = vi.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      const file = join(mkdtempSync(join(dir, 'later-')), 'stock.csv');
      const item = items(STORE_A)[0];
      writeFileSync(file, `sku,quantity\n${item?.sku ?? ''},${item?.quantity ?? 0}\n`);
      await planStockImport({ client: a.client, file, runsRoot: join(dir, 'runs'), target: a.s.url });
    } finally {
      later.mockRestore();
    }
    expect(asks()).toBe(2);
  });

  it('refuses a plan that was refused when planned (plan-refused), and one the confirm hook declines', async () => {
    const a = await sandbox(STORE_A);
    const over = await planStock(a, { maxChanges: '1' });
    expect(refusal(await applySavedRun(over.run, { client: a.client, target: a.s.url }))).toMatchObject({
      refused: 'plan-refused',
      category: 'refused',
    });
    const { run } = await planStock(a);
    expect(
      refusal(await applySavedRun(run, { client: a.client, target: a.s.url, confirm: () => false })),
    ).toMatchObject({ refused: 'declined', category: 'refused' });
    expect(a.writes()).toEqual([]);
  });

  it('refuses a plan with invalid rows not planned to skip them (invalid-rows) before the question, for any caller', async () => {
    // Issue 37: the check lived in the CLI only; a library caller (mbulk apply, MCP, a script)
    // was asked to confirm, then met an error thrown from the kind, its input remembered as started.
    const s = await startSandbox({ seed: join(process.cwd(), 'samples/store.json') });
    open.push(s);
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const file = join(dir, 'invalid-recipients.csv');
    writeFileSync(file, 'to,name,order_number\n012-784 1025,Siti,1001\nnot a phone,Budi,1002\n');
    const runsRoot = join(dir, 'runs-invalid');
    const base = { client, file, runsRoot, target: s.url, template: 'order_update' };
    const planned = await planMessageSend(base);
    const confirm = vi.fn(() => true);
    const outcome = refusal(await applySavedRun(planned.run, { client, target: s.url, confirm }));
    expect(outcome).toMatchObject({ refused: 'invalid-rows', category: 'failed', runId: planned.run.id });
    expect(outcome.message).toMatch(
      /^nothing was sent: 1 invalid row\(s\); fix them \(see .*report\.md\) or plan with --skip-invalid$/,
    );
    expect(outcome.refused === 'invalid-rows' && outcome.issues.map((i) => i.rowNumber)).toEqual([3]);
    expect(confirm).not.toHaveBeenCalled();
    expect(s.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    // The run is still a plan, and its input was never started.
    expect(planned.run.refresh().status).toBe('planned');
    expect(readFileSync(join(runsRoot, 'inputs.ndjson'), 'utf8')).not.toContain('"started"');

    // Planned to skip them, the valid row is sent.
    const skipping = await planMessageSend({ ...base, skipInvalid: true });
    const applied = await applySavedRun(skipping.run, { client, target: s.url, confirm });
    expect(applied).toMatchObject({ applied: true, status: 'completed' });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(s.store.messages()).toHaveLength(1);
  });
});
