import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { jsonOf, mbulk, processSandbox, type RunResult } from '../../helpers/cli-process.js';

// Issue 37: an import that continues its unfinished run continues it as it was planned. Given other
// options than the run was planned with (--missing, --images…), it is refused naming them, and
// nothing is written; given the same, it continues. The built binary, the sandbox's request log
// as the witness.
const setUp = processSandbox('mbulk-rerun-options-');

it('a products import killed midway and run again with other options is refused naming them; with its own, it continues: each product created once', async () => {
  const { s, dir: d, env } = await setUp({ seed: resolve('samples/store.json'), latencyMs: 80 });
  const count = 14;
  const rows = Array.from(
    { length: count },
    (_, i) => `RR-${100 + i},RR-SKU-${100 + i},Rerun product ${i},VISIBLE,${10 + i}.00,cat_drinks`,
  );
  writeFileSync(join(d, 'new.csv'), `reference_id,sku,name,status,price,category_ids\n${rows.join('\n')}\n`);
  const creates = () =>
    s
      .requestLog()
      .filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/products') && e.outcome === 'applied');
  const args = ['import', 'products', 'new.csv', '--apply', '--yes', '--json', '--concurrency', '1'];

  const killed = await mbulk(args, d, env, () => creates().length >= 4);
  expect(killed.signal).toBe('SIGKILL');
  await new Promise((r) => setTimeout(r, 300));
  const before = s.requestLog().filter((e) => e.method !== 'GET').length;
  expect(creates().length).toBeLessThan(count);

  // Other options than the run was planned with: refused, naming each, nothing written.
  const other = await mbulk([...args, '--missing', 'hide', '--images', 'first-10'], d, env);
  expect(other.code, other.stderr).toBe(3);
  expect(other.stderr).toMatch(
    /refused: run (\S+) of new\.csv \(the same input\) is unfinished and was planned with other options: --images not given \(this command: --images first-10\), --missing ignore \(this command: --missing hide\)\. A run continues as it was planned: continue it with mbulk runs resume \1/,
  );
  expect(jsonOf(other)).toMatchObject({ ok: false, refused: 'other-options' });
  expect(s.requestLog().filter((e) => e.method !== 'GET')).toHaveLength(before);

  // The same command: the run continues, and every product is created once.
  const rerun = await mbulk(args, d, env);
  expect(rerun.code, rerun.stderr).toBe(0);
  const result = jsonOf<RunResult>(rerun);
  expect(result.continuedRun).toBe(result.runId);
  expect(creates()).toHaveLength(count);
  // Each product's create was sent once: none twice, none missing.
  const created = s.store.toSnapshot().products.filter((p) => p.reference_id?.startsWith('RR-'));
  expect(created.map((p) => p.reference_id).sort()).toEqual(rows.map((r) => r.split(',')[0]).sort());
}, 60_000);
