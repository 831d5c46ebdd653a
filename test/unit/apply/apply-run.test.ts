import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRun } from '../../../src/apply/apply-run.js';
import { JournalLockedError } from '../../../src/apply/journal.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-applyrun-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const ops = Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, idempotent: true }));

describe('applyRun', () => {
  it('marks the run interrupted on abort, and applied with counts after a resume', async () => {
    const run = RunDirectory.create(root, { kind: 'products', target: 'sandbox' });
    const controller = new AbortController();
    const first = await applyRun(run, ops, {
      keyOf: (op) => op.key,
      concurrency: 1,
      signal: controller.signal,
      execute: async (op) => {
        if (op.key === 'k2') controller.abort();
        return op.key;
      },
    });
    expect(first.status).toBe('interrupted');
    expect(RunDirectory.load(run.dir).meta).toMatchObject({
      status: 'interrupted',
      counts: { ops_done: 3, ops_not_run: 3 },
    });
    expect(fs.existsSync(`${run.file('journal')}.lock`)).toBe(false);

    const executed: string[] = [];
    const second = await applyRun(RunDirectory.load(run.dir), ops, {
      keyOf: (op) => op.key,
      execute: async (op) => {
        executed.push(op.key);
        return op.key;
      },
    });
    expect(second.status).toBe('completed');
    expect(executed.sort()).toEqual(['k3', 'k4', 'k5']);
    const meta = RunDirectory.load(run.dir).meta;
    expect(meta).toMatchObject({
      status: 'applied',
      counts: { ops_done: 6, ops_reused: 3, ops_executed: 3 },
    });
    expect(meta.pid).toBeUndefined();
  });

  it('marks the run failed on a fatal error, and refuses to run while another apply holds the journal', async () => {
    const run = RunDirectory.create(root, { kind: 'stock', target: 'sandbox' });
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const running = applyRun(run, ops, {
      keyOf: (op) => op.key,
      execute: async (op) => {
        await gate;
        if (op.key === 'k0') throw Object.assign(new Error('connect ECONNREFUSED'), { exitCode: 4 });
        return 1;
      },
    });
    await expect(
      applyRun(run, ops, { keyOf: (op) => op.key, execute: async () => 1 }),
    ).rejects.toBeInstanceOf(JournalLockedError);
    release();
    const summary = await running;
    expect(summary.status).toBe('aborted');
    expect(RunDirectory.load(run.dir).meta.status).toBe('failed');
  });
});

describe('applyRun: journal_seq', () => {
  it('is recorded when the session fails with an error, so a later truncation of the journal is detected', async () => {
    const run = RunDirectory.create(root, { kind: 'stock', target: 'sandbox' });
    const two = ops.slice(0, 2);
    await expect(
      applyRun(run, two, {
        keyOf: (op) => op.key,
        concurrency: 1,
        execute: async (op) => op.key,
        // A progress consumer that breaks once everything settled: executeOperations throws.
        onProgress: (p) => {
          if (p.done === two.length) throw new Error('progress display crashed');
        },
      }),
    ).rejects.toThrow('progress display crashed');
    const meta = RunDirectory.load(run.dir).meta;
    expect(meta.status).toBe('failed');
    // start + done per operation.
    expect(meta.journal_seq).toBe(4);
    // Cut the journal to its first record: the resume refuses instead of resending.
    const lines = fs.readFileSync(run.file('journal'), 'utf8').split('\n');
    fs.writeFileSync(run.file('journal'), `${lines[0]}\n`);
    await expect(
      applyRun(RunDirectory.load(run.dir), two, { keyOf: (op) => op.key, execute: async (op) => op.key }),
    ).rejects.toThrow(/ends at record 1, but the run recorded 4 records/);
  });
});
