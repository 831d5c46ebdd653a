import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  RunDirectory,
  RunFileError,
  RunNotFoundError,
  defaultRunsRoot,
  isRunLive,
  listRuns,
  newPreciseRunId,
  newRunId,
  openRun,
} from '../../../src/apply/run-directory.js';
import { runIdTime } from '../../../src/report/run-id-time.js';

let root: string;
beforeEach(() => {
  root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-runs-')), '.mbulk', 'runs');
});
afterEach(() => {
  fs.rmSync(path.dirname(path.dirname(root)), { recursive: true, force: true });
});

const at = (iso: string) => new Date(iso);

describe('run ids', () => {
  it('are readable, UTC, and sort by creation time', () => {
    expect(newRunId('products', at('2026-11-22T00:15:30.123Z'), 'a1b2')).toBe(
      '20261122-001530-products-a1b2',
    );
    expect(newRunId('Stock Sheet!', at('2026-01-02T03:04:05Z'), 'ffff')).toBe(
      '20260102-030405-stock-sheet-ffff',
    );
    const ids = [
      newRunId('stock', at('2026-11-22T10:00:00Z')),
      newRunId('products', at('2026-11-21T23:59:59Z')),
      newRunId('customers', at('2026-11-22T09:59:59Z')),
    ];
    expect([...ids].sort()).toEqual([ids[1], ids[2], ids[0]]);
  });

  it('fleet run ids carry milliseconds: made within one second they sort by when they were made, whatever their suffix', () => {
    // Issue 37: fleet runs started in the same second sorted by their random suffix.
    const first = newPreciseRunId('fleet', at('2026-11-22T10:00:00.900Z'), 'ffff');
    const second = newPreciseRunId('fleet', at('2026-11-22T10:00:00.950Z'), '0000');
    expect(first).toBe('20261122-100000-900-fleet-ffff');
    expect([second, first].sort()).toEqual([first, second]);
    // The same millisecond (or a clock stepped back): still later than the last one made.
    const third = newPreciseRunId('fleet', at('2026-11-22T10:00:00.950Z'), '0000');
    const fourth = newPreciseRunId('fleet', at('2026-11-22T09:59:59.000Z'), '0000');
    expect([fourth, third, second].sort()).toEqual([second, third, fourth]);
    // Both forms are read for their time.
    expect(runIdTime(first)).toBe('2026-11-22T10:00:00.900Z');
    expect(runIdTime('20261122-021500-fleet-ab12')).toBe('2026-11-22T02:15:00Z');
  });

  it('default root is .mbulk/runs under the working directory', () => {
    expect(defaultRunsRoot('/home/m/shop')).toBe(path.join('/home/m/shop', '.mbulk', 'runs'));
  });
});

describe('run directory', () => {
  it('creates run.json with meta and without secrets, writes the plan atomically, tracks status', () => {
    const run = RunDirectory.create(root, {
      kind: 'products',
      input: 'catalog.xlsx',
      options: { apply: false, concurrency: 4, token: 'sk_live_secret', 'token-file': undefined },
      target: 'http://127.0.0.1:4010 (sandbox)',
      storeId: 'store_1',
      now: at('2026-11-22T00:15:30Z'),
    });
    expect(run.id).toMatch(/^20261122-001530-products-[0-9a-f]{4}$/);
    const meta = JSON.parse(fs.readFileSync(run.file('meta'), 'utf8'));
    expect(meta).toMatchObject({
      id: run.id,
      kind: 'products',
      input: 'catalog.xlsx',
      status: 'planned',
      store_id: 'store_1',
      options: { apply: false, concurrency: 4 },
    });
    expect(JSON.stringify(meta)).not.toContain('sk_live_secret');

    run.writePlan({ actions: [{ create: 'ref-1' }] });
    expect(run.readPlan()).toEqual({ actions: [{ create: 'ref-1' }] });
    expect(fs.readdirSync(run.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    run.setStatus('applying');
    expect(run.meta.pid).toBe(process.pid);
    expect(isRunLive(RunDirectory.load(run.dir).meta)).toBe(true);
    run.setStatus('applied', { created: 1 });
    const reloaded = RunDirectory.load(run.dir).meta;
    expect(reloaded).toMatchObject({ status: 'applied', counts: { created: 1 } });
    expect(reloaded.pid).toBeUndefined();
  });

  it('a damaged plan.json or run.json is a clear usage error naming the file, not a JSON SyntaxError', () => {
    const run = RunDirectory.create(root, { kind: 'stock', target: 'sandbox' });
    fs.writeFileSync(run.file('plan'), '{"actions": [');
    let error: unknown;
    try {
      run.readPlan();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunFileError);
    expect((error as RunFileError).exitCode).toBe(2);
    expect((error as Error).message).toContain(run.file('plan'));
    fs.rmSync(run.file('plan'));
    expect(() => run.readPlan()).toThrow(/plan\.json does not exist/);
    fs.writeFileSync(run.file('meta'), '');
    expect(() => RunDirectory.load(run.dir)).toThrow(RunFileError);
    expect(listRuns(root)).toEqual([]);
  });

  it('a run left "applying" by a dead process is not live', () => {
    const run = RunDirectory.create(root, { kind: 'stock', target: 'sandbox' });
    run.update({ status: 'applying', pid: 999_999_999 });
    expect(isRunLive(run.meta)).toBe(false);
  });

  it('derives the status once: applying while its process lives, interrupted once it is gone (run and listRuns)', () => {
    const live = RunDirectory.create(root, {
      kind: 'stock',
      target: 'sandbox',
      now: at('2026-11-22T01:00:00Z'),
    });
    const dead = RunDirectory.create(root, {
      kind: 'stock',
      target: 'sandbox',
      now: at('2026-11-22T02:00:00Z'),
    });
    const planned = RunDirectory.create(root, {
      kind: 'stock',
      target: 'sandbox',
      now: at('2026-11-22T03:00:00Z'),
    });
    live.setStatus('applying');
    dead.update({ status: 'applying', pid: 999_999_999 });
    expect(live.status()).toBe('applying');
    expect(dead.status()).toBe('interrupted');
    expect(dead.meta.status).toBe('applying'); // run.json keeps what was recorded
    expect(planned.status()).toBe('planned');
    expect(listRuns(root).map((m) => [m.id, m.status])).toEqual([
      [live.id, 'applying'],
      [dead.id, 'interrupted'],
      [planned.id, 'planned'],
    ]);
    live.setStatus('applied');
    expect(live.status()).toBe('applied');
  });

  it('lists runs oldest first, skipping directories that are not runs', () => {
    const b = RunDirectory.create(root, { kind: 'stock', target: 't', now: at('2026-11-22T02:00:00Z') });
    const a = RunDirectory.create(root, { kind: 'products', target: 't', now: at('2026-11-22T01:00:00Z') });
    fs.mkdirSync(path.join(root, 'junk'));
    expect(listRuns(root).map((m) => m.id)).toEqual([a.id, b.id]);
    expect(listRuns(path.join(root, 'missing'))).toEqual([]);
  });

  it('runs planned in one second on one input each get their own directory, listed in the order they were planned', () => {
    // Plain ids have one-second resolution and a random 4-hex suffix: a second run with the same
    // id would take the next suffix (the directory is made exclusively), never the first's place.
    const second = Date.parse('2026-11-22T01:00:00Z');
    const runs = Array.from({ length: 100 }, (_, i) => {
      const run = RunDirectory.create(root, {
        kind: 'stock',
        input: 'deltas.csv',
        target: 't',
        now: new Date(second + i * 10),
      });
      fs.writeFileSync(path.join(run.dir, 'mine.txt'), run.id);
      return run;
    });
    expect(new Set(runs.map((r) => r.id)).size).toBe(100);
    for (const run of runs) {
      expect(run.id).toMatch(/^20261122-010000-stock-[0-9a-f]{4}$/);
      expect(fs.readFileSync(path.join(run.dir, 'mine.txt'), 'utf8')).toBe(run.id);
      expect(RunDirectory.load(run.dir).meta.id).toBe(run.id);
    }
    // Oldest first by when they were planned (created_at), not by the random suffix.
    expect(listRuns(root).map((m) => m.id)).toEqual(runs.map((r) => r.id));
  });

  it('opens a run by id, unique prefix, directory path, or plan.json path', () => {
    const a = RunDirectory.create(root, { kind: 'products', target: 't', now: at('2026-11-22T01:00:00Z') });
    const b = RunDirectory.create(root, { kind: 'stock', target: 't', now: at('2026-11-22T01:00:00Z') });
    a.writePlan({});
    expect(openRun(root, a.id).dir).toBe(a.dir);
    expect(openRun(root, '20261122-010000-stock').id).toBe(b.id);
    expect(openRun(root, a.dir).id).toBe(a.id);
    expect(openRun(root, a.file('plan')).id).toBe(a.id);
    expect(openRun('/somewhere/else', path.relative(process.cwd(), a.file('plan'))).id).toBe(a.id);

    expect(() => openRun(root, '20261122-0100')).toThrow(/2 runs match/);
    try {
      openRun(root, '2025');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RunNotFoundError);
      expect((error as RunNotFoundError).exitCode).toBe(2);
    }
    expect(() => openRun(root, path.join(root, 'nope', 'plan.json'))).toThrow(/does not exist/);
  });
});
