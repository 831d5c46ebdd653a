import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyStockRun, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { jsonOf, mbulk, processSandbox, type RunResult } from '../../helpers/cli-process.js';

// Issue 37: a run continues as it was planned, whichever surface planned it. A run planned through
// the library (as the MCP server plans) records its options in run.json (`plan_flags`) as the CLI
// does, so the built binary continuing it with other options is refused naming them, and nothing
// is written; with its own options, it continues. The sandbox's request log as the witness.
const setUp = processSandbox('mbulk-rerun-library-');

it('a stock run planned through the library with --preserve-sales and stopped: the CLI continuing it without is refused; with it, it continues and each delta is written once', async () => {
  const { s, dir, env } = await setUp({ seed: resolve('samples/store.json') });
  writeFileSync(join(dir, 'deltas.csv'), 'sku,delta_quantity\nTEE-LIN-SND-S,5\nTEE-LIN-SND-M,7\n');
  const quantity = (sku: string) =>
    s.store
      .toSnapshot()
      .products.flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
      .find((i) => i?.sku === sku)?.quantity;
  const before = [quantity('TEE-LIN-SND-S'), quantity('TEE-LIN-SND-M')] as number[];

  // Planned in-process where the CLI keeps its runs, for the target the CLI names (the API's URL).
  const client = new MerchantClient({ baseUrl: s.url, token: s.token });
  try {
    const planned = await planStockImport({
      client,
      file: join(dir, 'deltas.csv'),
      runsRoot: join(dir, '.mbulk', 'runs'),
      target: s.url,
      preserveSales: true,
    });
    expect(planned.run.meta.plan_flags).toEqual({ 'preserve-sales': true });
    // Its apply stopped before its first write: an unfinished run of the input.
    const stopped = new AbortController();
    stopped.abort();
    await applyStockRun(RunDirectory.load(planned.run.dir), { client, signal: stopped.signal }).catch(
      () => undefined,
    );
    expect(RunDirectory.load(planned.run.dir).status()).toBe('interrupted');
    const id = planned.run.id;
    const writes = () => s.requestLog().filter((e) => e.method !== 'GET');
    expect(writes()).toEqual([]);

    const args = ['import', 'stock', 'deltas.csv', '--apply', '--yes', '--json'];
    const other = await mbulk(args, dir, env);
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr).toContain(
      `refused: run ${id} of deltas.csv (the same input) is unfinished and was planned with other options: --preserve-sales (this command: --no-preserve-sales).`,
    );
    expect(jsonOf(other)).toMatchObject({ ok: false, refused: 'other-options', run: id });
    expect(writes()).toEqual([]);

    const same = await mbulk([...args, '--preserve-sales'], dir, env);
    expect(same.code, same.stderr).toBe(0);
    expect(jsonOf<RunResult>(same).continuedRun).toBe(id);
    expect([quantity('TEE-LIN-SND-S'), quantity('TEE-LIN-SND-M')]).toEqual([
      (before[0] as number) + 5,
      (before[1] as number) + 7,
    ]);
  } finally {
    await client.close();
  }
}, 60_000);
