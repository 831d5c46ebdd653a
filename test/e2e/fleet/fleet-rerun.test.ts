import { rmSync } from 'node:fs';
import { join } from 'node:path';
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
  expect(stopped.out).toContain('To finish: run the same command again.');

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

it('a finished store on a feed file is not run again, with the run that applied it named, exit 0', async () => {
  fleet = await deltaFleet('mbulk-fleet-file-', 1, 0, true);
  const f = fleet;
  const first = await runFleetProcess(f).done;
  expect(first.code, first.out).toBe(0);
  expectEveryDeltaOnce(f);
  const applied = latestSummary(f).stores[0];
  expect(applied).toMatchObject({ outcome: 'applied', exitCode: 0 });
  const run = applied?.runId as string;
  const line = (outcome: string, message: string): RegExp =>
    new RegExp(
      `shop-0: ${outcome} \\(exit 0\\) · run ${run} · already applied by run ${run} at \\S+ ${message}`,
    );

  // The fleet remembers the file's bytes applied to the store: the same bytes are not run again.
  const again = await runFleetProcess(f).done;
  expect(again.code, again.out).toBe(0);
  expectEveryDeltaOnce(f);
  expect(latestSummary(f).stores[0]).toMatchObject({ outcome: 'unchanged feed', exitCode: 0, runId: run });
  expect(again.out).toMatch(line('unchanged feed', '\\(feed unchanged since: not run again\\)'));

  // Without that memory, the store's own check refuses the deltas it applied: not run again either.
  rmSync(join(f.dir, '.mbulk', 'fleet', 'stores', 'shop-0', 'sources.json'));
  const third = await runFleetProcess(f).done;
  expect(third.code, third.out).toBe(0);
  expectEveryDeltaOnce(f);
  expect(latestSummary(f).stores[0]).toMatchObject({ outcome: 'already applied', exitCode: 0, runId: run });
  expect(third.out).toMatch(line('already applied', '\\(not run again\\)'));
  expect(third.out).toContain('Fleet: 1 already applied; exit 0');
}, 60_000);
