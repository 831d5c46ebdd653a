import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import type { RunningSandbox } from '../../../src/sandbox/server.js';
import { jsonOf, mbulk, processSandbox, type RunResult } from '../../helpers/cli-process.js';

// Issue 37: a run's identity across invocations. The built binary, run twice as a cron job or a
// person would, with the sandbox's request log as the witness of what was written.
const sandboxFor = processSandbox('mbulk-rerun-');

interface Item {
  itemId: string;
  sku: string;
  quantity: number;
}

async function setUp(count: number, options: { latencyMs?: number; strict?: boolean } = {}) {
  const snapshot = generateStore({ products: 30, customers: 0, orders: 0, seed: 37 });
  const items: Item[] = snapshot.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .filter((i) => i?.sku)
    .slice(0, count)
    .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
  expect(items).toHaveLength(count);
  const { s, dir, env } = await sandboxFor({ seed: snapshot, ...options });
  writeFileSync(
    join(dir, 'stock-deltas.csv'),
    `sku,delta_quantity\n${items.map((i) => `${i.sku},1`).join('\n')}\n`,
  );
  return { s, dir, env, items };
}

function writes(s: RunningSandbox) {
  return s
    .requestLog()
    .filter((e) => e.method !== 'GET' && (e.outcome === 'applied' || e.outcome === 'dropped_after'));
}

it('the same delta sheet applied twice: the second exits 3 naming the run and sends nothing; --again sends it once more', async () => {
  const { s, dir, env, items } = await setUp(12);
  const args = ['import', 'stock', 'stock-deltas.csv', '--apply', '--yes', '--json'];

  const first = await mbulk(args, dir, env);
  expect(first.code, first.stderr).toBe(0);
  const runId = jsonOf<{ runId: string }>(first).runId;
  for (const i of items) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 1);
  const afterFirst = s.requestLog().length;
  const firstWrites = writes(s).length;
  expect(firstWrites).toBeGreaterThan(0);

  const second = await mbulk(args, dir, env);
  expect(second.code, second.stderr).toBe(3);
  expect(second.stderr).toMatch(
    new RegExp(
      `stock-deltas\\.csv \\(sha256 [0-9a-f]{8}…\\) was applied to this store by run ${runId} at \\S+: 12 of 12 deltas; --again applies it once more`,
    ),
  );
  const refusal = jsonOf(second);
  expect(refusal).toMatchObject({
    ok: false,
    refused: 'already-applied',
    run: runId,
    applied: 12,
    total: 12,
  });
  expect(typeof refusal['appliedAt']).toBe('string');
  expect(refusal['sha256']).toMatch(/^[0-9a-f]{64}$/);
  // Nothing sent: no write, and no read of the inventory either (only who the token belongs to).
  expect(writes(s)).toHaveLength(firstWrites);
  expect(
    s
      .requestLog()
      .slice(afterFirst)
      .every((e) => e.method === 'GET' && !e.path.includes('inventory')),
  ).toBe(true);
  for (const i of items) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 1);

  const again = await mbulk([...args, '--again'], dir, env);
  expect(again.code, again.stderr).toBe(0);
  for (const i of items) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 2);
  expect(writes(s)).toHaveLength(2 * firstWrites);
});

it('an import killed while writing, run again with the same command, continues the same run: every delta written once', async () => {
  // One PATCH per item (strict: no batch route), one at a time, slow enough to kill it midway.
  const { s, dir, env, items } = await setUp(16, { latencyMs: 60, strict: true });
  const args = ['import', 'stock', 'stock-deltas.csv', '--apply', '--yes', '--json', '--concurrency', '1'];

  const killed = await mbulk(args, dir, env, () => writes(s).length >= 5);
  expect(killed.signal).toBe('SIGKILL');
  const before = writes(s).length;
  expect(before).toBeGreaterThanOrEqual(5);
  expect(before).toBeLessThan(items.length);

  const rerun = await mbulk(args, dir, env);
  expect(rerun.code, rerun.stderr).toBe(0);
  const result = jsonOf<RunResult>(rerun);
  expect(result.continuedRun).toBe(result.runId);
  expect(rerun.stderr + rerun.stdout).not.toContain('Plan stock');
  // Every item got its delta once, and each was written once.
  for (const i of items) expect(s.store.getInventoryItem(i.itemId)?.quantity).toBe(i.quantity + 1);
  const patched = writes(s).map((e) => e.path);
  expect(new Set(patched).size).toBe(items.length);
  expect(patched).toHaveLength(items.length);

  // And once finished, the same command is refused: the sheet was applied.
  const third = await mbulk(args, dir, env);
  expect(third.code).toBe(3);
  expect(third.stderr).toContain(`by run ${result.runId}`);
});

it('the hint after a dry run applies the plan it follows: mbulk apply RUN with the target and runs directory, and the import form with --sheet and every other option', async () => {
  const { s, dir, env, items } = await setUp(4);
  const [a, b, c, d] = items as [Item, Item, Item, Item];
  // Two sheets: the first (what a hint without --sheet would plan) and today's.
  const wb = new ExcelJS.Workbook();
  const first = wb.addWorksheet('yesterday');
  first.addRow(['sku', 'quantity']);
  first.addRow([a.sku, a.quantity + 50]);
  first.addRow([b.sku, b.quantity + 50]);
  const today = wb.addWorksheet('today');
  today.addRow(['sku', 'quantity']);
  today.addRow([c.sku, c.quantity + 7]);
  today.addRow([d.sku, d.quantity]);
  await wb.xlsx.writeFile(join(dir, 'stock.xlsx'));
  // The target is given on the command line (not in the environment), and the runs go elsewhere.
  const childEnv = { ...env, MERCHANT_API_URL: undefined };
  const options = ['--sheet', 'today', '--preserve-sales', '--runs-dir', 'nightly-runs', '--base-url', s.url];
  const dry = await mbulk(['import', 'stock', 'stock.xlsx', ...options], dir, childEnv);
  expect(dry.code, dry.stderr).toBe(0);
  const hint =
    /To write this plan: (mbulk apply \S+[^(]*?) \(or plan again and write: (mbulk import [^)]*)\)/.exec(
      dry.stdout,
    );
  expect(hint, dry.stdout).not.toBeNull();
  const [, applyForm, importForm] = hint as unknown as [string, string, string];
  expect(applyForm).toContain(`--base-url ${s.url}`);
  expect(applyForm).toContain('--runs-dir nightly-runs');
  expect(importForm).toBe(`mbulk import stock stock.xlsx ${options.join(' ')} --apply`);
  const words = (command: string) => [...command.replace(/^mbulk /, '').split(' '), '--yes'];

  // The plan shown: one change, on today's sheet.
  const applied = await mbulk(words(applyForm), dir, childEnv);
  expect(applied.code, applied.stderr + applied.stdout).toBe(0);
  expect(s.store.getInventoryItem(c.itemId)?.quantity).toBe(c.quantity + 7);
  for (const other of [a, b, d])
    expect(s.store.getInventoryItem(other.itemId)?.quantity).toBe(other.quantity);
  const afterApply = writes(s).length;
  expect(afterApply).toBe(1);

  // The import form plans today's sheet again with the same options: nothing left to write, and
  // never the first sheet's quantities.
  const again = await mbulk(words(importForm), dir, childEnv);
  expect(again.code, again.stderr + again.stdout).toBe(0);
  expect(writes(s)).toHaveLength(afterApply);
  for (const other of [a, b]) expect(s.store.getInventoryItem(other.itemId)?.quantity).toBe(other.quantity);
});
