import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import type { FetchLike, FetchResponse } from '../../../src/api/transport.js';
import { openRun } from '../../../src/apply/run-directory.js';
import { applySavedRun } from '../../../src/jobs/apply-saved-run.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * Issue 22 point 1: a per-item delta run (strict sandbox: one PATCH per item, deltas not
 * idempotent) killed part-way, whose journal then loses its last complete records: what a restore
 * from a snapshot taken mid-run, a copied run directory or a file system that does not honour
 * fdatasync leaves. One real SIGKILL; each truncation position resumes its own copy of the run
 * directory against the store as the kill left it.
 */

interface Item {
  itemId: string;
  sku: string;
  quantity: number;
}

let sandbox: RunningSandbox;
let items: Item[];
/** Items of the run that ends with failures. */
let extra: Item[];
let env: NodeJS.ProcessEnv;
let killedDir: string;
let runId: string;
/** Quantities as the kill left them (what every copy resumes against). */
let afterKill: Map<string, number>;

const patches = () => sandbox.requestLog().filter((e) => e.method === 'PATCH' && e.outcome === 'applied');

beforeAll(async () => {
  const snapshot = generateStore({ products: 20, customers: 0, orders: 0, seed: 5 });
  items = snapshot.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .filter((i) => i?.sku)
    .slice(0, 15)
    .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
  expect(items).toHaveLength(15);
  extra = items.splice(12);
  sandbox = await startSandbox({ seed: snapshot, strict: true, latencyMs: 40 });
  killedDir = mkdtempSync(join(tmpdir(), 'mbulk-truncated-journal-'));
  env = {
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
    MBULK_LOCK_DIR: join(killedDir, 'locks'),
  };
  const file = join(killedDir, 'deltas.csv');
  writeFileSync(file, `sku,delta_quantity\n${items.map((i, n) => `${i.sku},${n + 1}`).join('\n')}\n`);
  const planned = await runCli(['import', 'stock', file, '--json'], env, killedDir);
  expect(planned.code, planned.stderr).toBe(0);
  runId = planned.json<{ runId: string }>().runId;

  // The real binary, one write at a time, killed once six deltas are in.
  const child = spawn(
    process.execPath,
    [resolve('bin/mbulk.js'), 'apply', runId, '--yes', '--concurrency', '1'],
    {
      cwd: killedDir,
      env: { ...env, PATH: process.env['PATH'], HOME: killedDir, XDG_DATA_HOME: join(killedDir, 'data') },
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const started = Date.now();
  while (patches().length < 6) {
    if (Date.now() - started > 60_000) throw new Error('the child never applied six deltas');
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGKILL');
  await exited;
  expect(patches().length).toBeLessThan(items.length);
  afterKill = new Map(items.map((i) => [i.itemId, sandbox.store.getInventoryItem(i.itemId).quantity]));
}, 90_000);

afterAll(async () => {
  await sandbox?.close();
});

/**
 * A copy of the killed run directory whose journal lost its last `drop` complete records; with
 * `backup: 'consistent'` its backup log lost the entries of the operations those records started
 * too (a snapshot of the whole directory taken earlier), else it is as the kill left it.
 */
function damagedCopy(drop: number, backup: 'consistent' | 'as-killed'): string {
  const cwd = mkdtempSync(join(tmpdir(), 'mbulk-truncated-copy-'));
  const runDir = join(cwd, '.mbulk/runs', runId);
  cpSync(join(killedDir, '.mbulk/runs', runId), runDir, { recursive: true });
  const journalFile = join(runDir, 'journal.ndjson');
  const complete = readFileSync(journalFile, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'));
  expect(complete.length).toBeGreaterThan(drop);
  const kept = complete.slice(0, complete.length - drop);
  writeFileSync(journalFile, kept.map((line) => `${line}\n`).join(''));
  if (backup === 'consistent') {
    const started = new Set(kept.map((line) => (JSON.parse(line) as { key: string }).key));
    const backupFile = join(runDir, 'backup.ndjson');
    const lines = readFileSync(backupFile, 'utf8')
      .split('\n')
      .filter((line) => line.endsWith('}'))
      .filter((line) => started.has(`stock-item:${(JSON.parse(line) as { id: string }).id}`));
    writeFileSync(backupFile, lines.map((line) => `${line}\n`).join(''));
  }
  // The store as the kill left it.
  for (const [itemId, quantity] of afterKill) sandbox.store.updateInventoryItem(itemId, { quantity });
  return cwd;
}

function expectEachDeltaOnce(): void {
  items.forEach((item, n) => {
    expect(sandbox.store.getInventoryItem(item.itemId).quantity, item.sku).toBe(item.quantity + n + 1);
  });
}

/** Items the kill left without their delta: what a resume must send, and nothing else. */
function missing(): number {
  return items.filter((item, n) => afterKill.get(item.itemId) !== item.quantity + n + 1).length;
}

describe('a killed per-item delta run whose journal lost its tail', () => {
  for (const drop of [1, 3, 6]) {
    it(`restored from an earlier snapshot (last ${drop} records gone): plain resume re-reads, sends no delta twice`, async () => {
      const cwd = damagedCopy(drop, 'consistent');
      const before = patches().length;
      const resumed = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, cwd);
      expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
      expect(patches().length - before).toBe(missing());
      expectEachDeltaOnce();
    });
  }

  // A kill can fall between an operation's start record and the backup line naming it: the last
  // two records (done, start) may have no witness, a third always has.
  for (const drop of [3, 5]) {
    it(`journal alone cut short (last ${drop} records gone): runs show reports the damage; resume refuses, --reconcile sends no delta twice`, async () => {
      const cwd = damagedCopy(drop, 'as-killed');
      const shown = await runCli(['runs', 'show', runId, '--json'], env, cwd);
      expect(shown.code, shown.stderr).toBe(0);
      const journal = shown.json<{ journal: { state: string; damage?: string[] } }>().journal;
      expect(journal.state).toBe('damaged');
      expect(journal.damage?.join(' ')).toContain('backup');

      const before = patches().length;
      const refused = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, cwd);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`mbulk runs resume ${runId} --reconcile`);
      expect(patches().length).toBe(before);

      const reconciled = await runCli(['runs', 'resume', runId, '--yes', '--reconcile', '--json'], env, cwd);
      expect(reconciled.code, reconciled.stderr).toBe(0);
      expect(patches().length - before).toBe(missing());
      expectEachDeltaOnce();
    });
  }
});

/** An answer the service did not give: the error envelope with `status`. */
function answer(status: number, type: string): FetchResponse {
  const body = { error: { type, code: 'test_fault', message: `injected ${status}`, request_id: 'req_test' } };
  return {
    status,
    headers: { get: (name) => (name.toLowerCase() === 'content-type' ? 'application/json' : null) },
    text: () => Promise.resolve(JSON.stringify(body)),
  };
}

describe('issue 22 point 10: a run that ended with failures (exit 1)', () => {
  it('resumes with plain runs resume: the proven failure is retried, the unknown delta settled by re-reading, none sent twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-failed-resume-'));
    const file = join(dir, 'deltas.csv');
    writeFileSync(file, `sku,delta_quantity\n${extra.map((i, n) => `${i.sku},${n + 1}`).join('\n')}\n`);
    const planned = await runCli(['import', 'stock', file, '--json'], env, dir);
    expect(planned.code, planned.stderr).toBe(0);
    const id = planned.json<{ runId: string }>().runId;
    const [lost, refused] = extra as [Item, Item, Item];
    // The first apply: the delta of `lost` is applied but its answer is a 500, and every read after
    // it fails (so it cannot be settled now); `refused` is answered 400 without being applied.
    let reading = true;
    const faulty: FetchLike = async (url, init) => {
      if (init.method === 'PATCH' && url.includes(refused.itemId))
        return answer(400, 'invalid_request_error');
      if (init.method === 'GET' && !reading) return answer(500, 'api_error');
      const real = await fetch(url, {
        method: init.method,
        headers: init.headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      if (init.method === 'PATCH' && url.includes(lost.itemId)) {
        reading = false;
        return answer(500, 'api_error');
      }
      return real;
    };
    const client = new MerchantClient({
      baseUrl: sandbox.url,
      token: sandbox.token,
      fetch: faulty,
      maxRetries: 1,
      retryDelay: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    const run = openRun(join(dir, '.mbulk/runs'), id, dir);
    const first = await applySavedRun(run, { client, target: run.meta.target, concurrency: 1 });
    await client.close();
    expect(first).toMatchObject({ applied: true, ok: false, status: 'completed' });
    expect(run.refresh()).toMatchObject({ status: 'applied', counts: { ops_failed: 1, ops_unknown: 1 } });
    // runs show names the next command, and says what it does (issue 25); it works as printed below.
    const shown = await runCli(['runs', 'show', id], env, dir);
    expect(shown.stdout).toContain(`Continue with: mbulk runs resume ${id} (retries its 2 failed writes;`);
    expect(shown.stdout).not.toContain('Undo with');

    const before = patches().length;
    const resumed = await runCli(['runs', 'resume', id, '--yes', '--json'], env, dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    // Only the refused delta went out again; the lost one was found applied.
    expect(
      patches()
        .slice(before)
        .map((e) => e.path),
    ).toEqual([expect.stringContaining(refused.itemId)]);
    extra.forEach((item, n) => {
      expect(sandbox.store.getInventoryItem(item.itemId).quantity, item.sku).toBe(item.quantity + n + 1);
    });
  });
});
