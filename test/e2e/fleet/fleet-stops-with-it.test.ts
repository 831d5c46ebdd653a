import { afterEach, expect, it } from 'vitest';
import {
  DELTA_SKUS,
  deltaFleet,
  randomWrite,
  runFleetProcess,
  storeProcesses,
  storeRuns,
  totalWrites,
  waitFor,
  type DeltaFleet,
} from '../../helpers/delta-fleet.js';

// The stores of a fleet die with it: a SIGKILL of the fleet process (which it cannot pass on) at a
// random write leaves no store process running. Each store watches its fleet and, once it is gone,
// stops as on SIGTERM: its writes in flight finish and are journaled, its run is left interrupted
// (resumable), and it exits. A store left running would write all its deltas unreported.

let fleet: DeltaFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

it('SIGKILL of the fleet: no store process is left after 2 s; each stopped as on SIGTERM, journaled', async () => {
  fleet = await deltaFleet('mbulk-fleet-kill-');
  const f = fleet;
  // In the first third: every store still has writes to make (about 4 of its 6), and stops short.
  const at = randomWrite(f, 1 / 3);
  const first = runFleetProcess(f);
  expect(await waitFor(() => totalWrites(f) >= at, 30_000), `never reached write ${at}`).toBe(true);
  const running = storeProcesses(f);
  first.child.kill('SIGKILL');
  await first.done;
  // The stores notice their fleet is gone and stop as on SIGTERM: writes in flight finish, exit 130.
  const gone = await waitFor(() => storeProcesses(f).length === 0, 2000, 20);
  expect(gone, `store processes left 2 s after the kill (write ${at}): ${storeProcesses(f).join(', ')}`).toBe(
    true,
  );
  expect(running.length).toBeGreaterThan(0);
  // They stopped short, as on SIGTERM (a store left running would have written all its deltas), and
  // left their runs interrupted (journaled, resumable), none "applying".
  expect(totalWrites(f)).toBeLessThan(f.sandboxes.length * DELTA_SKUS.length);
  const statuses = f.sandboxes.flatMap((_, i) => storeRuns(f, i).map((r) => r.status));
  expect(statuses).toContain('interrupted');
  for (const status of statuses) expect(['interrupted', 'applied', 'planned']).toContain(status);
}, 60_000);
