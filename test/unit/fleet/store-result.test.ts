import { describe, expect, it } from 'vitest';
import {
  EXIT_CODE_ORDER,
  notRunResult,
  storeResultOf,
  worstExitCode,
} from '../../../src/fleet/store-result.js';

const store = { index: 2, name: 'kl-east' };
const files = { output: '/f/02-kl-east.json', log: '/f/02-kl-east.log', runsDir: '/f/stores/kl-east/runs' };

describe('worstExitCode', () => {
  it('is 0 only when every store ended 0, else the first by the documented order 5 > 4 > 3 > 2 > 1 > 130', () => {
    expect(EXIT_CODE_ORDER).toEqual([5, 4, 3, 2, 1, 130, 0]);
    expect(worstExitCode([])).toBe(0);
    expect(worstExitCode([0, 0, 0])).toBe(0);
    expect(worstExitCode([0, 130, 0])).toBe(130);
    expect(worstExitCode([130, 1, 0])).toBe(1);
    expect(worstExitCode([1, 2, 130])).toBe(2);
    expect(worstExitCode([2, 3, 1])).toBe(3);
    expect(worstExitCode([3, 4, 0, 3])).toBe(4);
    expect(worstExitCode([4, 5, 130])).toBe(5);
  });

  it('counts a code outside the documented ones as the worst', () => {
    expect(worstExitCode([4, 137])).toBe(5);
  });
});

describe('storeResultOf', () => {
  it('an applied store: outcome, run, counts and its whole --json result', () => {
    const result = {
      ok: true,
      applied: true,
      runId: 'R1',
      runDir: '/f/stores/kl-east/runs/R1',
      reportHtml: '/f/stores/kl-east/runs/R1/report.html',
      counts: { change: 2, unchanged: 57, note: 'x' },
      updated: 2,
    };
    expect(storeResultOf(store, { code: 0, signal: null, result }, files, 1200)).toEqual({
      index: 2,
      name: 'kl-east',
      outcome: 'applied',
      exitCode: 0,
      runId: 'R1',
      runDir: '/f/stores/kl-east/runs/R1',
      reportHtml: '/f/stores/kl-east/runs/R1/report.html',
      counts: { change: 2, unchanged: 57 },
      output: files.output,
      log: files.log,
      durationMs: 1200,
      result,
    });
  });

  it('a dry run is planned; an unchanged feed says so', () => {
    expect(
      storeResultOf(store, { code: 0, signal: null, result: { ok: true, applied: false } }, files, 1).outcome,
    ).toBe('planned');
    const unchanged = storeResultOf(
      store,
      { code: 0, signal: null, result: { ok: true, unchanged: true, source: 'https://erp.example/e.csv' } },
      files,
      1,
    );
    expect([unchanged.outcome, unchanged.message]).toEqual([
      'unchanged feed',
      'unchanged since the last applied run: https://erp.example/e.csv',
    ]);
    // The feed's memory names the run that applied it.
    const known = {
      ok: true,
      unchanged: true,
      source: 'https://erp.example/e.csv',
      run: 'R1',
      appliedAt: 'T',
    };
    expect(storeResultOf(store, { code: 0, signal: null, result: known }, files, 1)).toMatchObject({
      outcome: 'unchanged feed',
      exitCode: 0,
      message: 'already applied by run R1 at T (feed unchanged since: not run again)',
    });
  });

  it('a refusal, an error and an apply stopped by the API carry their message', () => {
    expect(
      storeResultOf(
        store,
        { code: 3, signal: null, result: { ok: false, refused: 'too many changes' } },
        files,
        1,
      ),
    ).toMatchObject({ outcome: 'refused', exitCode: 3, message: 'refused: too many changes' });
    expect(
      storeResultOf(
        store,
        { code: 4, signal: null, result: { ok: false, error: { message: 'nothing answers' } } },
        files,
        1,
      ),
    ).toMatchObject({ outcome: 'unreachable', exitCode: 4, message: 'nothing answers' });
    expect(
      storeResultOf(
        store,
        {
          code: 4,
          signal: null,
          result: { ok: false, applied: true, abortedBy: { message: 'token rejected' } },
        },
        files,
        1,
      ),
    ).toMatchObject({ outcome: 'unreachable', message: 'stopped: token rejected' });
  });

  it('a store interrupted before it wrote, or made to quit at once, says so', () => {
    expect(
      storeResultOf(store, { code: 130, signal: null, result: { ok: false, interrupted: true } }, files, 1)
        .message,
    ).toBe('interrupted before it wrote anything');
    expect(storeResultOf(store, { code: 130, signal: null, result: undefined }, files, 1).message).toBe(
      'interrupted and quit at once: mbulk runs list --runs-dir /f/stores/kl-east/runs shows a run it began, mbulk runs resume RUN continues it',
    );
  });

  it("an interrupted run leads with the CLI's headline: how far it got, how to resume it, with its runs directory", () => {
    const r = storeResultOf(
      store,
      {
        code: 130,
        signal: null,
        result: { ok: false, runId: 'R9', status: 'interrupted' },
        runCounts: { changes_total: 400, changes_done: 73, ops_total: 8, ops_done: 2 },
      },
      files,
      1,
    );
    expect(r).toMatchObject({
      outcome: 'interrupted',
      exitCode: 130,
      message:
        'Interrupted: 73 of 400 written (2 of 8 batches) · continue with: mbulk runs resume R9 --runs-dir /f/stores/kl-east/runs',
    });
    // Without the run's counts (run.json unreadable) it still says how to resume.
    expect(
      storeResultOf(store, { code: 130, signal: null, result: { ok: false, runId: 'R9' } }, files, 1).message,
    ).toBe('Interrupted · continue with: mbulk runs resume R9 --runs-dir /f/stores/kl-east/runs');
  });

  it('a process that died or ended with a code mbulk never uses is a crash, counted as 5', () => {
    expect(
      storeResultOf(store, { code: null, signal: 'SIGKILL', result: undefined }, files, 1),
    ).toMatchObject({
      outcome: 'crashed',
      exitCode: 5,
      message: expect.stringMatching(
        /^the store's mbulk process was killed by SIGKILL .*mbulk runs resume RUN --runs-dir \/f\/stores\/kl-east\/runs$/,
      ),
    });
    expect(storeResultOf(store, { code: 134, signal: null, result: undefined }, files, 1)).toMatchObject({
      outcome: 'crashed',
      exitCode: 5,
    });
    expect(
      storeResultOf(
        store,
        { code: null, signal: null, result: undefined, failure: 'could not be started (spawn ENOENT)' },
        files,
        1,
      ),
    ).toMatchObject({
      outcome: 'crashed',
      message: "the store's mbulk process could not be started (spawn ENOENT)",
    });
  });

  it('a documented code without a result keeps its code and says why there is none', () => {
    expect(
      storeResultOf(
        store,
        { code: 2, signal: null, result: undefined, resultProblem: 'it printed no result (see its log)' },
        files,
        1,
      ),
    ).toMatchObject({ outcome: 'config error', exitCode: 2, message: 'it printed no result (see its log)' });
  });
});

describe('notRunResult', () => {
  it('a store not started because the fleet was interrupted counts as 130; one that could not start as 2', () => {
    expect(notRunResult(store, { interrupted: true })).toMatchObject({
      outcome: 'not started',
      exitCode: 130,
    });
    expect(notRunResult(store, { problem: 'token_env: unset' })).toMatchObject({
      outcome: 'config error',
      exitCode: 2,
      message: 'token_env: unset',
    });
  });

  it("a store the fleet's interrupt stopped as it started is not started (130), never crashed", () => {
    const notStarted = {
      outcome: 'not started',
      exitCode: 130,
      message:
        'not started: the fleet was interrupted while this store was starting (nothing was written); run it again to do this store',
      log: files.log,
    };
    // Killed by the SIGTERM before it could take it as a request to stop (Node's default: die).
    const killed = { code: null, signal: 'SIGTERM', result: undefined, fleetInterrupted: true };
    expect(storeResultOf(store, killed, files, 1)).toMatchObject(notStarted);
    // Stopped by it before it began a run: it names none.
    const before = { ok: false, interrupted: true };
    expect(
      storeResultOf(store, { code: 130, signal: null, result: before, fleetInterrupted: true }, files, 1),
    ).toMatchObject(notStarted);
    // A run it began is interrupted, with its headline; a SIGTERM from elsewhere is still a crash.
    const began = { ok: false, applied: true, interrupted: true, runId: 'R1', status: 'interrupted' };
    expect(
      storeResultOf(store, { code: 130, signal: null, result: began, fleetInterrupted: true }, files, 1)
        .outcome,
    ).toBe('interrupted');
    expect(storeResultOf(store, { ...killed, fleetInterrupted: false }, files, 1).outcome).toBe('crashed');
  });
});

describe('a fleet run again', () => {
  it('a store that continued its unfinished run says so; one whose deltas were applied is not run again, and not a failure', () => {
    const continued = { ok: true, applied: true, runId: 'R1', status: 'completed', continuedRun: 'R1' };
    expect(storeResultOf(store, { code: 0, signal: null, result: continued }, files, 1)).toMatchObject({
      outcome: 'applied',
      exitCode: 0,
      runId: 'R1',
      message: 'continued run R1',
    });
    const refusal = {
      ok: false,
      refused: 'already-applied',
      run: 'R1',
      appliedAt: '2026-11-28T02:00:00.000Z',
      applied: 80,
      total: 80,
      input: 'https://erp.example/kl.csv',
      sha256: 'ab',
      message: '…',
    };
    expect(storeResultOf(store, { code: 3, signal: null, result: refusal }, files, 1)).toMatchObject({
      outcome: 'already applied',
      exitCode: 0,
      runId: 'R1',
      message: 'already applied by run R1 at 2026-11-28T02:00:00.000Z (not run again)',
    });
    // Some of its deltas failed: still not run again, but the failures still count (exit 1).
    expect(
      storeResultOf(store, { code: 3, signal: null, result: { ...refusal, applied: 78 } }, files, 1),
    ).toMatchObject({
      outcome: 'already applied',
      exitCode: 1,
      message: `already applied by run R1 at 2026-11-28T02:00:00.000Z: 78 of 80 deltas (not run again; to retry the others: mbulk runs resume R1 --runs-dir ${files.runsDir})`,
    });
    // Any other refusal is one.
    const drift = { ok: false, refused: 'drift', runId: 'R2' };
    expect(storeResultOf(store, { code: 3, signal: null, result: drift }, files, 1)).toMatchObject({
      outcome: 'refused',
      exitCode: 3,
    });
  });
});

describe('rows that failed', () => {
  it('point at failed.csv after an apply, at the review page after a dry run', () => {
    const rows = [{ row: 3 }, { row: 9 }];
    expect(
      storeResultOf(
        store,
        { code: 1, signal: null, result: { applied: true, runDir: '/r/R1', failedRows: rows } },
        files,
        1,
      ),
    ).toMatchObject({
      outcome: 'rows failed',
      message: '2 failed rows: fix them in /r/R1/failed.csv and import it again',
    });
    expect(
      storeResultOf(
        store,
        { code: 1, signal: null, result: { applied: false, runDir: '/r/R2', failedRows: [{ row: 3 }] } },
        files,
        1,
      ).message,
    ).toBe("1 invalid row: see the run's review page in /r/R2");
  });
});
