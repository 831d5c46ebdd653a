import { afterEach, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/server.js';
import {
  appliedWrites,
  DELTA_SKUS,
  deltaFleet,
  deltaOf,
  deltasReceived,
  latestSummary,
  randomWrite,
  runFleetProcess,
  storeProcesses,
  totalWrites,
  waitFor,
  type DeltaFleet,
} from '../../helpers/delta-fleet.js';

// A fleet of three stores on delta feeds (`sku,delta_quantity` served over HTTP on 127.0.0.1), one
// item per write request, stopped at a random write, by SIGTERM or by SIGKILL of the fleet process,
// then the same `mbulk fleet run` command again: each store's sandbox receives every delta exactly
// once (its quantities, and the write requests it acted on, are the witnesses).

let fleet: DeltaFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

function expectEveryDeltaOnce(f: DeltaFleet): void {
  f.sandboxes.forEach((s, i) => {
    expect(deltasReceived(f, i), `shop-${i}`).toEqual(DELTA_SKUS.map((_, k) => deltaOf(k)));
    expect(appliedWrites(s as RunningSandbox), `shop-${i}`).toBe(DELTA_SKUS.length);
  });
}

it('SIGTERM at a random write, then the same fleet run: every delta exactly once', async () => {
  fleet = await deltaFleet('mbulk-fleet-term-');
  const f = fleet;
  const at = randomWrite(f);
  const first = runFleetProcess(f);
  expect(await waitFor(() => totalWrites(f) >= at, 30_000), `never reached write ${at}`).toBe(true);
  first.child.kill('SIGTERM');
  const stopped = await first.done;
  expect(stopped.code, stopped.out).toBe(130);

  const interrupted = latestSummary(f);

  const again = await runFleetProcess(f).done;
  expect(again.code, again.out).toBe(0);
  expectEveryDeltaOnce(f);
  // Each store whose run was interrupted continued it (and says so); the others ran their feed once.
  for (const s of interrupted.stores)
    if (s.outcome === 'interrupted' && s.runId !== undefined)
      expect(again.out).toContain(`${s.name}: applied (exit 0) · run ${s.runId} · continued run ${s.runId}`);
  // A store that had finished before the SIGTERM is not run again (its feed is unchanged).
  for (const s of latestSummary(f).stores) expect(['applied', 'unchanged feed']).toContain(s.outcome);

  // Once more: every store's run finished and its feed is unchanged, so none is run again.
  const writes = totalWrites(f);
  const third = await runFleetProcess(f).done;
  expect(third.code, third.out).toBe(0);
  expect(totalWrites(f)).toBe(writes);
  expect(latestSummary(f).stores.map((s) => s.outcome)).toEqual(Array(3).fill('unchanged feed'));
  expectEveryDeltaOnce(f);
}, 90_000);

it('SIGKILL at a random write, then the same fleet run: every delta exactly once', async () => {
  fleet = await deltaFleet('mbulk-fleet-kill-rerun-');
  const f = fleet;
  const at = randomWrite(f);
  const first = runFleetProcess(f);
  expect(await waitFor(() => totalWrites(f) >= at, 30_000), `never reached write ${at}`).toBe(true);
  first.child.kill('SIGKILL');
  await first.done;
  expect(await waitFor(() => storeProcesses(f).length === 0, 2000, 20)).toBe(true);

  const again = await runFleetProcess(f).done;
  expect(again.code, again.out).toBe(0);
  expectEveryDeltaOnce(f);
}, 90_000);

it('a finished store on a delta file is not run again: "already applied by run R at T (not run again)", exit 0', async () => {
  fleet = await deltaFleet('mbulk-fleet-file-', 1, 0, true);
  const f = fleet;
  const first = await runFleetProcess(f).done;
  expect(first.code, first.out).toBe(0);
  expectEveryDeltaOnce(f);
  const applied = latestSummary(f).stores[0];
  expect(applied).toMatchObject({ outcome: 'applied', exitCode: 0 });

  const again = await runFleetProcess(f).done;
  expect(again.code, again.out).toBe(0);
  expectEveryDeltaOnce(f);
  const store = latestSummary(f).stores[0];
  expect(store).toMatchObject({ outcome: 'already applied', exitCode: 0, runId: applied?.runId });
  expect(again.out).toMatch(
    new RegExp(
      `shop-0: already applied \\(exit 0\\) · run ${applied?.runId} · already applied by run ${applied?.runId} at \\S+ \\(not run again\\)`,
    ),
  );
  expect(again.out).toContain('Fleet: 1 already applied; exit 0');
}, 60_000);
