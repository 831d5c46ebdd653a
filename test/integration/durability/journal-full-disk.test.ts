import fs, { mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * A full disk, simulated where the journal writes: `fs.writeSync` on the journal's fd writes part
 * of its buffer once (a short write, as write(2) does when the disk fills), then fails with
 * ENOSPC. Patched on node:fs itself (and synced into the ESM bindings), so the test exercises
 * whatever the journal writer does with a short write, through the real CLI.
 */
function fillDiskAtJournalWrite(nth: number): () => void {
  const real = fs.writeSync;
  let calls = 0;
  let full = false;
  const fake = function (this: unknown, fd: number, data: unknown, ...rest: unknown[]): number {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // not a journal
    }
    if (!target.endsWith('journal.ndjson'))
      return (real as (...a: unknown[]) => number).call(fs, fd, data, ...rest);
    calls++;
    if (full)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      });
    if (calls < nth) return (real as (...a: unknown[]) => number).call(fs, fd, data, ...rest);
    full = true;
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(
            (data as Buffer).subarray(
              (rest[0] as number | undefined) ?? 0,
              ((rest[0] as number | undefined) ?? 0) +
                ((rest[1] as number | undefined) ?? (data as Buffer).length),
            ),
          );
    return real(fd, bytes, 0, Math.max(1, Math.floor(bytes.length / 2)));
  };
  fs.writeSync = fake as typeof fs.writeSync;
  syncBuiltinESMExports();
  return () => {
    fs.writeSync = real;
    syncBuiltinESMExports();
  };
}

let sandbox: RunningSandbox | undefined;
let restore: (() => void) | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  await sandbox?.close();
  sandbox = undefined;
});

it('a journal record cut short by a full disk: nothing is sent after it, exit 5 names the journal and the resume; the resume applies each delta once', async () => {
  const snapshot = generateStore({ products: 10, customers: 0, orders: 0, seed: 5 });
  const items = snapshot.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .filter((i) => i?.sku)
    .slice(0, 6)
    .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
  expect(items).toHaveLength(6);
  // Strict: no batch route, so one PATCH per item, and deltas are not idempotent.
  sandbox = await startSandbox({ seed: snapshot, strict: true });
  const s = sandbox;
  const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-enospc-'));
  const file = join(dir, 'deltas.csv');
  writeFileSync(file, `sku,delta_quantity\n${items.map((i, n) => `${i.sku},${n + 1}`).join('\n')}\n`);
  const patches = () => s.requestLog().filter((e) => e.method === 'PATCH' && e.outcome === 'applied');

  // Journal writes: batch start, batch failed (404), then start/done per item: the 7th is the third item's start.
  restore = fillDiskAtJournalWrite(7);
  const first = await runCli(
    ['import', 'stock', file, '--apply', '--yes', '--concurrency', '1', '--json'],
    env,
    dir,
  );
  restore();
  restore = undefined;
  expect(first.code, first.stderr).toBe(5);
  const runId = first.json<{ runId: string }>().runId;
  const journal = join(dir, '.mbulk/runs', runId, 'journal.ndjson');
  expect(first.stderr).toContain(journal);
  expect(first.stderr).toContain(`mbulk runs resume ${runId}`);
  expect(first.stderr).toContain('ENOSPC');
  // Two items were sent and journaled; nothing after the record that did not fit.
  expect(patches()).toHaveLength(2);

  const resumed = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
  expect(resumed.code, resumed.stderr).toBe(0);
  // Each delta reached the store exactly once.
  items.forEach((item, n) => {
    expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + n + 1);
  });
  expect(patches()).toHaveLength(6);
});
