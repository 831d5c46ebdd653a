import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { inputIdentity } from '../../../src/jobs/input-identity.js';
import {
  inputRunDecision,
  inputRuns,
  rememberApplyEnded,
  rememberApplyStarted,
  rememberPlannedInput,
} from '../../../src/jobs/input-runs.js';

function setUp(sheet = 'sku,delta_quantity\nA,1\n') {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-input-runs-'));
  const runsRoot = join(dir, 'runs');
  const file = join(dir, 'stock-deltas.csv');
  writeFileSync(file, sheet);
  const identity = inputIdentity({ kind: 'stock', target: 'http://127.0.0.1:1', storeId: 's1', file });
  return { dir, runsRoot, file, identity };
}

function applied(runsRoot: string, identity: ReturnType<typeof inputIdentity>, deltas: boolean) {
  const run = RunDirectory.create(runsRoot, { kind: 'stock', target: identity.target, storeId: 's1' });
  rememberPlannedInput(run, identity, deltas);
  rememberApplyStarted(run);
  run.setStatus('applied', { changes_total: 80, changes_done: 80, ops_failed: 0 });
  rememberApplyEnded(run);
  return run;
}

it('the same bytes to the same store are the same input; other bytes, another store or sheet are not', () => {
  const { file, identity } = setUp();
  expect(inputIdentity({ kind: 'stock', target: identity.target, storeId: 's1', file }).key).toBe(
    identity.key,
  );
  expect(inputIdentity({ kind: 'stock', target: identity.target, storeId: 's2', file }).key).not.toBe(
    identity.key,
  );
  expect(inputIdentity({ kind: 'stock', target: 'http://other', storeId: 's1', file }).key).not.toBe(
    identity.key,
  );
  expect(
    inputIdentity({ kind: 'stock', target: identity.target, storeId: 's1', file, sheet: 'Today' }).key,
  ).not.toBe(identity.key);
  writeFileSync(file, 'sku,delta_quantity\nA,2\n');
  expect(inputIdentity({ kind: 'stock', target: identity.target, storeId: 's1', file }).key).not.toBe(
    identity.key,
  );
});

it('deltas applied are refused naming the run and how much, also once its directory is pruned; --again plans', () => {
  const { runsRoot, identity } = setUp();
  const run = applied(runsRoot, identity, true);
  const decision = inputRunDecision(runsRoot, identity);
  expect(decision.action).toBe('refuse');
  if (decision.action !== 'refuse') return;
  expect(decision.refusal).toMatchObject({ refused: 'already-applied', run: run.id, applied: 80, total: 80 });
  expect(decision.refusal.message).toContain(
    `stock-deltas.csv (sha256 ${identity.sha256.slice(0, 8)}…) was applied to this store by run ${run.id} at `,
  );
  expect(decision.refusal.message).toContain(': 80 of 80 deltas; --again applies it once more');

  // `runs prune` removes the run directory; the runs directory's memory keeps the input.
  rmSync(run.dir, { recursive: true });
  const pruned = inputRunDecision(runsRoot, identity);
  expect(pruned.action).toBe('refuse');
  if (pruned.action === 'refuse')
    expect(pruned.refusal).toMatchObject({ run: run.id, applied: 80, total: 80 });
  expect(inputRunDecision(runsRoot, identity, { again: true }).action).toBe('plan');
});

it('absolute values applied are planned again; an unfinished run of the input is continued', () => {
  const { runsRoot, identity } = setUp('sku,quantity\nA,1\n');
  applied(runsRoot, identity, false);
  expect(inputRunDecision(runsRoot, identity).action).toBe('plan');

  const run = RunDirectory.create(runsRoot, { kind: 'stock', target: identity.target, storeId: 's1' });
  rememberPlannedInput(run, identity, false);
  // Only planned (a dry run): nothing to continue.
  expect(inputRunDecision(runsRoot, identity).action).toBe('plan');
  run.setStatus('interrupted');
  const decision = inputRunDecision(runsRoot, identity, { again: true });
  expect(decision.action).toBe('continue');
  if (decision.action === 'continue') expect(decision.run.id).toBe(run.id);
});

it('the newest run of an input is the one planned last, though two ids of one second sort by their random suffix', () => {
  const { runsRoot, identity } = setUp('sku,quantity\nA,1\n');
  // Planned first, with an id that sorts after the next one's (the same second, or a clock set back).
  const first = RunDirectory.create(runsRoot, {
    kind: 'stock',
    target: identity.target,
    storeId: 's1',
    now: new Date('2026-11-28T12:00:01Z'),
  });
  rememberPlannedInput(first, identity, false);
  first.setStatus('interrupted');
  const second = RunDirectory.create(runsRoot, {
    kind: 'stock',
    target: identity.target,
    storeId: 's1',
    now: new Date('2026-11-28T12:00:00Z'),
  });
  rememberPlannedInput(second, identity, false);
  rememberApplyStarted(second);
  second.setStatus('interrupted');
  expect(inputRuns(runsRoot, identity.key).map((r) => r.runId)).toEqual([second.id, first.id]);
  const decision = inputRunDecision(runsRoot, identity);
  expect(decision.action).toBe('continue');
  if (decision.action === 'continue') expect(decision.run.id).toBe(second.id);
});
