import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { jsonOf, mbulk, processSandbox } from '../../helpers/cli-process.js';

// Issue 42: whether `--replan` of a started run would send writes again is data the run records
// when planned (run.json's `input_deltas`: its input holds deltas), not a hook of the stock kind.
// A run killed after its first batch (the built binary, SIGKILL), one item of its second batch
// deleted meanwhile (drift), then `runs resume RUN --replan`: a sheet of absolute quantities
// planned with --preserve-sales (sent as deltas from the planned quantities) is planned again and
// applied; a sheet of deltas is refused, saying why truly. The sandbox's request log as witness.
const setUp = processSandbox('mbulk-replan-started-');

// Three batches of two. The kill lands once the first batch took effect; the second may have been
// sent by then (its answer is 400 ms away), the third cannot have been (concurrency 1).
const SKUS = ['TEE-LIN-SND-S', 'TEE-LIN-SND-M', 'NLB-SGL-STD', 'NLB-BX4-STD', 'PIN-WHT', 'KBT'];
/** KBT is the only item of prod_00000004 in samples/store.json: deleting it drifts the third batch. */
const KBT_PRODUCT = 'prod_00000004';

async function startedRun(sheet: string, flags: string[]) {
  // Latency so that the kill lands between the first batch and the second.
  const set = await setUp({ seed: resolve('samples/store.json'), latencyMs: 400 });
  const { s, dir, env } = set;
  writeFileSync(join(dir, 'stock.csv'), sheet);
  const planned = await mbulk(
    ['import', 'stock', 'stock.csv', '--batch-size', '2', '--json', ...flags],
    dir,
    env,
  );
  expect(planned.code, planned.stderr).toBe(0);
  const runId = jsonOf<{ runId: string }>(planned).runId;
  const batches = () =>
    s.requestLog().filter((e) => e.path.includes('batch_update') && e.outcome === 'applied');
  const killed = await mbulk(
    ['apply', runId, '--yes', '--concurrency', '1'],
    dir,
    env,
    () => batches().length >= 1,
  );
  expect(killed.signal).toBe('SIGKILL');
  // A second batch already sent acts after its latency (400 ms +- 50%), killed or not.
  await new Promise((r) => setTimeout(r, 700));
  expect(batches().length).toBeGreaterThanOrEqual(1);
  expect(batches().length).toBeLessThanOrEqual(2);
  s.store.deleteProduct(KBT_PRODUCT);
  return { ...set, runId, batches };
}

const quantity = (s: { store: { toSnapshot(): { products: unknown[] } } }, sku: string) =>
  (
    s.store.toSnapshot().products as {
      inventory?: { sku?: string | null; quantity: number } | null;
      variants: { inventory?: { sku?: string | null; quantity: number } | null }[];
    }[]
  )
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .find((i) => i?.sku === sku)?.quantity;

it('a started --preserve-sales run of absolute quantities is planned again by --replan and applied', async () => {
  const { s, dir, env, runId } = await startedRun(
    `sku,quantity\n${SKUS.map((sku, n) => `${sku},${(n + 1) * 10}`).join('\n')}\n`,
    ['--preserve-sales'],
  );
  expect(RunDirectory.load(join(dir, '.mbulk', 'runs', runId)).meta.input_deltas).toBe(false);
  const replanned = await mbulk(['runs', 'resume', runId, '--yes', '--replan', '--json'], dir, env);
  expect(replanned.stderr).not.toContain('delta quantities');
  // Applied, but for the row of the deleted item (exit 1: a failed row).
  expect(replanned.code, replanned.stderr).toBe(1);
  expect(replanned.stdout).toContain('no product or variant in the store has SKU \\"KBT\\"');
  // The first batch was not sent again: its items hold the sheet's quantities once.
  expect(SKUS.slice(0, 3).map((sku) => quantity(s, sku))).toEqual([10, 20, 30]);
}, 60_000);

it('a started sheet of deltas is refused by --replan, naming the run, the deltas it sent, and what to do', async () => {
  const { s, dir, env, runId } = await startedRun(
    `sku,delta_quantity\n${SKUS.map((sku, n) => `${sku},${n + 1}`).join('\n')}\n`,
    [],
  );
  const after = SKUS.slice(0, 3).map((sku) => quantity(s, sku));
  const writes = s.requestLog().filter((e) => e.method !== 'GET').length;
  const refused = await mbulk(['runs', 'resume', runId, '--yes', '--replan', '--json'], dir, env);
  expect(refused.code, refused.stderr).toBe(3);
  // The kill lands after the first batch took effect: its answer may or may not have reached the
  // journal, and the second batch may have been sent (of unknown outcome).
  const said =
    /already sent deltas \(its input holds deltas, and it sent write requests of them: (\d) applied, (\d) of unknown outcome\): planning its input again would send them again\. Nothing was written; plan a new sheet of the rows it has not written yet, without the drifted ones/.exec(
      refused.stderr,
    );
  expect(refused.stderr).toContain(`refused: run ${runId} already sent deltas`);
  expect(said).not.toBeNull();
  expect([1, 2]).toContain(Number(said?.[1]) + Number(said?.[2]));
  expect(jsonOf(refused)).toMatchObject({ ok: false, refused: 'drift', runId });
  expect(s.requestLog().filter((e) => e.method !== 'GET')).toHaveLength(writes);
  expect(SKUS.slice(0, 3).map((sku) => quantity(s, sku))).toEqual(after);
}, 60_000);
