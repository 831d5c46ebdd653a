import { afterEach, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/server.js';
import {
  appliedWrites,
  deltaFleet,
  latestSummary,
  runFleetProcess,
  storeProcesses,
  waitFor,
  type DeltaFleet,
} from '../../helpers/delta-fleet.js';

// A SIGTERM that reaches the fleet while its stores' processes are starting (a deploy, a node
// drained right after the nightly job began): the fleet exits 130 and every store is "not started",
// never "crashed (out of memory?)" with exit 5. A store's process killed by the fleet's SIGTERM before
// it could take the signal as a request to stop (Node's default is to die at once) wrote nothing.

let fleet: DeltaFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

it('a SIGTERM while the stores start: exit 130, each store "not started", nothing written, no store left', async () => {
  fleet = await deltaFleet('mbulk-fleet-start-');
  const f = fleet;
  const run = runFleetProcess(f);
  // As soon as every store's process exists (still loading: a store takes ~0.2 s to reach its job).
  const started = await waitFor(() => storeProcesses(f).length === f.sandboxes.length, 20_000, 2);
  expect(started, 'the stores never started').toBe(true);
  run.child.kill('SIGTERM');
  const { code, out } = await run.done;

  expect(code, out).toBe(130);
  const summary = latestSummary(f);
  expect(summary.exitCode).toBe(130);
  expect(summary.stores.map((s) => [s.name, s.outcome, s.exitCode])).toEqual([
    ['shop-0', 'not started', 130],
    ['shop-1', 'not started', 130],
    ['shop-2', 'not started', 130],
  ]);
  expect(out).not.toContain('crashed');
  expect(out).toContain('Fleet: 3 not started; exit 130');
  for (const s of summary.stores)
    expect(out).toContain(`${s.name}: not started: the fleet was interrupted while this store was starting`);
  for (const s of f.sandboxes) expect(appliedWrites(s as RunningSandbox)).toBe(0);
  expect(storeProcesses(f)).toEqual([]);
}, 60_000);
