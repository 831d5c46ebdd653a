import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeOperations, type ExecuteProgress } from '../../../src/apply/execute-plan.js';
import { Journal, readJournal, stateOf } from '../../../src/apply/journal.js';

interface Op {
  id: string;
  kind: string;
  idempotent?: boolean;
  idempotencyKey?: string;
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-exec-'));
  file = path.join(dir, 'journal.ndjson');
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const ops = (n: number, extra: Partial<Op> = {}): Op[] =>
  Array.from({ length: n }, (_, i) => ({ id: `op${i}`, kind: 'create', ...extra }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const keyOf = (op: Op) => op.id;

/** Writes a journal as a killed earlier session would have left it. */
function earlierSession(
  records: Array<{ key: string; phase: 'start' | 'done' | 'failed'; result?: unknown }>,
) {
  const j = Journal.open(file);
  for (const r of records) {
    j.append({
      op: 'create',
      phase: r.phase,
      key: r.key,
      ...(r.result !== undefined ? { result: r.result } : {}),
    });
  }
  j.close();
}

describe('executeOperations', () => {
  it('journals start before sending and done after, and returns results in op order', async () => {
    const journal = Journal.open(file);
    const seenAtSend: string[] = [];
    const summary = await executeOperations(ops(3, { idempotencyKey: 'idem' }), {
      journal,
      keyOf,
      execute: async (op) => {
        // the start record is on disk before the request goes out
        seenAtSend.push(stateOf(readJournal(file), op.id).status);
        await sleep(1);
        return { id: `live-${op.id}` };
      },
    });
    journal.close();
    expect(seenAtSend).toEqual(['unknown', 'unknown', 'unknown']);
    expect(summary.status).toBe('completed');
    expect(summary.outcomes.map((o) => (o.status === 'done' ? o.result : undefined))).toEqual([
      { id: 'live-op0' },
      { id: 'live-op1' },
      { id: 'live-op2' },
    ]);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.phase === 'start')).toHaveLength(3);
    expect(lines[0]).toMatchObject({ op: 'create', phase: 'start', idempotencyKey: 'idem', attempt: 1 });
  });

  it('on resume skips done operations and reuses their recorded results', async () => {
    earlierSession([
      { key: 'op0', phase: 'start' },
      { key: 'op0', phase: 'done', result: { id: 'from-journal' } },
    ]);
    const journal = Journal.open(file);
    const executed: string[] = [];
    const summary = await executeOperations(ops(3), {
      journal,
      keyOf,
      execute: async (op) => {
        executed.push(op.id);
        return { id: `new-${op.id}` };
      },
    });
    journal.close();
    expect(executed.sort()).toEqual(['op1', 'op2']);
    expect(summary.outcomes[0]).toMatchObject({
      status: 'done',
      source: 'journal',
      result: { id: 'from-journal' },
    });
    expect(summary.counts).toMatchObject({ done: 3, reused: 1, executed: 2 });
  });

  it('re-executes a started-but-unfinished idempotent operation exactly once, flagged as resumed', async () => {
    earlierSession([{ key: 'op0', phase: 'start' }]);
    const journal = Journal.open(file);
    const calls: Array<{ id: string; attempt: number; resumed: boolean; previous: string }> = [];
    let reconciled = 0;
    await executeOperations(ops(2, { idempotent: true }), {
      journal,
      keyOf,
      execute: async (op, ctx) => {
        calls.push({ id: op.id, ...ctx });
        return 'ok';
      },
      reconcile: async () => {
        reconciled++;
        return 'done';
      },
    });
    journal.close();
    expect(reconciled).toBe(0);
    expect(calls).toEqual([
      { id: 'op0', attempt: 2, resumed: true, previous: 'unknown', seq: expect.any(Number) },
      { id: 'op1', attempt: 1, resumed: false, previous: 'not_started', seq: expect.any(Number) },
    ]);
  });

  it('reconciles a started-but-unfinished non-idempotent operation instead of resending it', async () => {
    earlierSession([
      { key: 'op0', phase: 'start' },
      { key: 'op1', phase: 'start' },
    ]);
    const journal = Journal.open(file);
    const executed: string[] = [];
    const summary = await executeOperations(ops(3), {
      journal,
      keyOf,
      execute: async (op) => {
        executed.push(op.id);
        return 'sent';
      },
      // op0 turns out applied (live state shows it); op1 not applied
      reconcile: async (op) => (op.id === 'op0' ? { done: 'seen-live' } : 'not_applied'),
    });
    journal.close();
    expect(executed.sort()).toEqual(['op1', 'op2']);
    expect(summary.outcomes[0]).toMatchObject({ status: 'done', source: 'reconciled', result: 'seen-live' });
    expect(summary.outcomes[1]).toMatchObject({ status: 'done', source: 'executed', result: 'sent' });
    expect(stateOf(readJournal(file), 'op0')).toMatchObject({ status: 'done', reconciled: true });
  });

  describe('a resume whose journal may have lost its last records (unjournaledSince)', () => {
    const since = new Date().toISOString();

    it('re-reads every non-idempotent operation it does not prove before sending it; sends the harmless ones as usual', async () => {
      // op0 done, op1 failed (4xx), op2 and op3 never mentioned: their records may be lost.
      earlierSession([
        { key: 'op0', phase: 'start' },
        { key: 'op0', phase: 'done', result: 'r0' },
        { key: 'op1', phase: 'start' },
        { key: 'op1', phase: 'failed' },
      ]);
      const journal = Journal.open(file);
      const executed: string[] = [];
      const asked: Array<{ id: string; unproven: unknown }> = [];
      const summary = await executeOperations([...ops(4), { id: 'op4', kind: 'set', idempotent: true }], {
        journal,
        keyOf,
        unjournaledSince: since,
        execute: async (op) => {
          executed.push(op.id);
          return 'sent';
        },
        // op2 was sent by the lost session (the store shows it); op1 and op3 were not.
        reconcile: async (op, state) => {
          asked.push({ id: op.id, unproven: state.status === 'unknown' && state.unproven });
          return op.id === 'op2' ? { done: 'seen-live' } : 'not_applied';
        },
      });
      journal.close();
      expect(asked.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'op1', unproven: true },
        { id: 'op2', unproven: true },
        { id: 'op3', unproven: true },
      ]);
      expect(executed.sort()).toEqual(['op1', 'op3', 'op4']);
      expect(summary.outcomes.map((o) => o.status === 'done' && o.source)).toEqual([
        'journal',
        'executed',
        'reconciled',
        'executed',
        'executed',
      ]);
    });

    it('re-reads a keyed operation whose key may have expired only when reReadExpired asks', async () => {
      earlierSession([
        { key: 'op0', phase: 'start' },
        { key: 'op0', phase: 'done' },
      ]);
      const twoDaysAgo = new Date(Date.now() - 48 * 3600_000).toISOString();
      for (const reRead of [true, false]) {
        const journal = Journal.open(file);
        const seen: string[] = [];
        await executeOperations(ops(3, { idempotent: true, idempotencyKey: 'k' }), {
          journal,
          keyOf,
          unjournaledSince: twoDaysAgo,
          reReadExpired: (op) => reRead && op.id === 'op1',
          execute: async (op) => {
            seen.push(`sent ${op.id}`);
            return 1;
          },
          reconcile: async (op) => {
            seen.push(`read ${op.id}`);
            return 'done';
          },
        });
        journal.close();
        expect(seen.sort()).toEqual(reRead ? ['read op1', 'sent op2'] : ['sent op1', 'sent op2']);
        fs.rmSync(file);
        earlierSession([
          { key: 'op0', phase: 'start' },
          { key: 'op0', phase: 'done' },
        ]);
      }
    });

    it('by default, re-reads a keyed operation whose key may have expired when it says reReadExpired', async () => {
      earlierSession([
        { key: 'op0', phase: 'start' },
        { key: 'op0', phase: 'done' },
      ]);
      const twoDaysAgo = new Date(Date.now() - 48 * 3600_000).toISOString();
      const journal = Journal.open(file);
      const seen: string[] = [];
      const keyed = ops(3, { idempotent: true, idempotencyKey: 'k' }).map((op) =>
        op.id === 'op1' ? { ...op, reReadExpired: true } : op,
      );
      await executeOperations(keyed, {
        journal,
        keyOf,
        unjournaledSince: twoDaysAgo,
        execute: async (op) => {
          seen.push(`sent ${op.id}`);
          return 1;
        },
        reconcile: async (op) => {
          seen.push(`read ${op.id}`);
          return 'done';
        },
      });
      journal.close();
      expect(seen.sort()).toEqual(['read op1', 'sent op2']);
    });

    it('leaves a non-idempotent operation unsent when nothing can re-read it', async () => {
      earlierSession([
        { key: 'op0', phase: 'start' },
        { key: 'op0', phase: 'done' },
      ]);
      const journal = Journal.open(file);
      const executed: string[] = [];
      const summary = await executeOperations(ops(2), {
        journal,
        keyOf,
        unjournaledSince: since,
        execute: async (op) => {
          executed.push(op.id);
          return 1;
        },
      });
      journal.close();
      expect(executed).toEqual([]);
      expect(summary.outcomes[1]).toMatchObject({ status: 'unknown', error: { code: 'outcome_unknown' } });
      expect(summary.outcomes[1]?.status === 'unknown' && summary.outcomes[1].error?.message).toContain(
        'records may be lost',
      );
    });

    it('a pass that does not retry failures keeps a journaled failure failed, also when settling', async () => {
      earlierSession([
        { key: 'op0', phase: 'start' },
        { key: 'op0', phase: 'failed' },
      ]);
      for (const option of [{ unjournaledSince: since }, { settleUnproven: { since } }]) {
        const journal = Journal.open(file);
        let calls = 0;
        const summary = await executeOperations(ops(1, { idempotent: true, idempotencyKey: 'k' }), {
          journal,
          keyOf,
          retryFailed: false,
          ...option,
          execute: async () => {
            calls++;
            return 1;
          },
          reconcile: async () => {
            calls++;
            return 'done';
          },
        });
        journal.close();
        expect(calls).toBe(0);
        expect(summary.outcomes[0]?.status).toBe('failed');
      }
    });
  });

  it('without reconcile, leaves an unknown non-idempotent operation unsent and reports it', async () => {
    earlierSession([{ key: 'op0', phase: 'start' }]);
    const journal = Journal.open(file);
    const executed: string[] = [];
    const summary = await executeOperations(ops(2), {
      journal,
      keyOf,
      execute: async (op) => {
        executed.push(op.id);
        return 1;
      },
    });
    journal.close();
    expect(executed).toEqual(['op1']);
    expect(summary.outcomes[0]).toMatchObject({ status: 'unknown', error: { code: 'outcome_unknown' } });
    expect(summary.counts.unknown).toBe(1);
  });

  it('reconciles right away when a non-idempotent request may have been applied (5xx, lost answer)', async () => {
    const journal = Journal.open(file);
    let sends = 0;
    const summary = await executeOperations(ops(1), {
      journal,
      keyOf,
      execute: async () => {
        sends++;
        throw Object.assign(new Error('upstream 502'), { status: 502 });
      },
      reconcile: async () => ({ done: 'applied after all' }),
    });
    journal.close();
    expect(sends).toBe(1);
    expect(summary.outcomes[0]).toMatchObject({
      status: 'done',
      source: 'reconciled',
      result: 'applied after all',
    });
  });

  it('does not replay a keyed operation whose key changed or expired; reconciles it instead', async () => {
    const j = Journal.open(file, { now: () => new Date(Date.now() - 25 * 3600_000) });
    j.append({ op: 'create', phase: 'start', key: 'op0', idempotencyKey: 'same' }); // 25 h ago
    j.close();
    const j2 = Journal.open(file);
    j2.append({ op: 'create', phase: 'start', key: 'op1', idempotencyKey: 'old-key' });
    j2.append({ op: 'create', phase: 'start', key: 'op2', idempotencyKey: 'same' });
    j2.close();

    const journal = Journal.open(file);
    const executed: string[] = [];
    const reconciled: string[] = [];
    await executeOperations(ops(3, { idempotent: true, idempotencyKey: 'same' }), {
      journal,
      keyOf,
      execute: async (op) => {
        executed.push(op.id);
        return 1;
      },
      reconcile: async (op) => {
        reconciled.push(op.id);
        return 'done';
      },
    });
    journal.close();
    expect(reconciled.sort()).toEqual(['op0', 'op1']);
    expect(executed).toEqual(['op2']);
  });

  it('a journal write failure aborts the run without sending the operation', async () => {
    const journal = Journal.open(file);
    let sends = 0;
    const original = journal.flush.bind(journal);
    let calls = 0;
    journal.flush = () =>
      ++calls === 2 ? Promise.reject(new Error('ENOSPC: no space left on device')) : original();
    const summary = await executeOperations(ops(5), {
      journal,
      keyOf,
      concurrency: 1,
      execute: async () => {
        sends++;
        return 1;
      },
    });
    journal.close();
    expect(summary.status).toBe('aborted');
    expect((summary.fatalError as Error).message).toMatch(/ENOSPC/);
    expect(sends).toBe(1);
    expect(summary.outcomes.map((o) => o.status)).toEqual([
      'done',
      'not_run',
      'not_run',
      'not_run',
      'not_run',
    ]);
  });

  it('respects the concurrency limit', async () => {
    const journal = Journal.open(file, { durable: false });
    let active = 0;
    let peak = 0;
    await executeOperations(ops(20), {
      journal,
      keyOf,
      concurrency: 3,
      execute: async () => {
        active++;
        peak = Math.max(peak, active);
        await sleep(5);
        active--;
        return null;
      },
    });
    journal.close();
    expect(peak).toBe(3);
  });

  it('a failing operation does not stop the others; a 4xx is a definite failure, retried on resume', async () => {
    const journal = Journal.open(file);
    const summary = await executeOperations(ops(5), {
      journal,
      keyOf,
      execute: async (op) => {
        if (op.id === 'op2')
          throw Object.assign(new Error('price must be >= 0'), { status: 400, code: 'invalid_parameter' });
        return op.id;
      },
    });
    journal.close();
    expect(summary.status).toBe('completed');
    expect(summary.counts).toMatchObject({ done: 4, failed: 1 });
    expect(summary.outcomes[2]).toMatchObject({
      status: 'failed',
      error: { message: 'price must be >= 0', status: 400, code: 'invalid_parameter' },
    });

    const again = Journal.open(file);
    const rerun: string[] = [];
    await executeOperations(ops(5), {
      journal: again,
      keyOf,
      execute: async (op) => {
        rerun.push(op.id);
        return op.id;
      },
    });
    again.close();
    expect(rerun).toEqual(['op2']);
  });

  it('an error with exitCode 4 aborts the run early', async () => {
    const journal = Journal.open(file, { durable: false });
    const executed: string[] = [];
    const summary = await executeOperations(ops(50), {
      journal,
      keyOf,
      concurrency: 2,
      execute: async (op) => {
        executed.push(op.id);
        await sleep(1);
        if (op.id === 'op3') throw Object.assign(new Error('token rejected'), { status: 401, exitCode: 4 });
        return op.id;
      },
    });
    journal.close();
    expect(summary.status).toBe('aborted');
    expect((summary.fatalError as Error).message).toBe('token rejected');
    expect(executed.length).toBeLessThanOrEqual(6);
    expect(summary.counts.notRun).toBe(50 - executed.length);
  });

  it('abort on signal stops taking operations, finishes those in flight, and leaves a resumable journal', async () => {
    const journal = Journal.open(file);
    const controller = new AbortController();
    const finished = new Set<string>();
    const summary = await executeOperations(ops(20), {
      journal,
      keyOf,
      concurrency: 2,
      signal: controller.signal,
      execute: async (op) => {
        if (op.id === 'op4') controller.abort();
        await sleep(5);
        finished.add(op.id);
        return op.id;
      },
    });
    journal.close();
    expect(summary.status).toBe('interrupted');
    // nothing was left in flight: every started op was journaled as done
    const snap = readJournal(file);
    for (const [, state] of snap.states) expect(state.status).toBe('done');
    expect(snap.states.size).toBe(finished.size);
    expect(summary.counts.notRun).toBe(20 - finished.size);

    const resumed = Journal.open(file);
    const rerun: string[] = [];
    const second = await executeOperations(ops(20), {
      journal: resumed,
      keyOf,
      execute: async (op) => {
        rerun.push(op.id);
        return op.id;
      },
    });
    resumed.close();
    expect(second.status).toBe('completed');
    expect(new Set([...rerun, ...finished]).size).toBe(20);
    expect(rerun.filter((id) => finished.has(id))).toEqual([]);
  });

  it('reports progress with counts, rate and eta', async () => {
    const journal = Journal.open(file, { durable: false });
    const seen: ExecuteProgress[] = [];
    let clock = 0;
    await executeOperations(ops(4), {
      journal,
      keyOf,
      concurrency: 1,
      now: () => clock,
      onProgress: (p) => seen.push(p),
      execute: async (op) => {
        clock += 500;
        if (op.id === 'op1') throw Object.assign(new Error('no'), { status: 404 });
        return 1;
      },
    });
    journal.close();
    expect(seen[0]).toMatchObject({ total: 4, done: 0, failed: 0, etaSeconds: undefined });
    expect(seen[2]).toMatchObject({ done: 1, failed: 1, completed: 2, rate: 2, etaSeconds: 1 });
    expect(seen.at(-1)).toMatchObject({ done: 3, failed: 1, completed: 4 });
  });

  it('refuses duplicate operation keys', async () => {
    const journal = Journal.open(file);
    await expect(
      executeOperations(
        [
          { id: 'a', kind: 'x' },
          { id: 'a', kind: 'x' },
        ],
        { journal, keyOf, execute: async () => 1 },
      ),
    ).rejects.toThrow(/share the key/);
    journal.close();
  });
});
