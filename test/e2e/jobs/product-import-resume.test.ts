import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Product } from '../../../src/schema/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test', 'fixtures', 'products', 'apply-child.ts');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function doneCount(journal: string): number {
  if (!existsSync(journal)) return 0;
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"phase":"done"')).length;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('products apply killed with SIGKILL, then resumed', () => {
  it('ends in exactly the planned state with no duplicate product', async () => {
    sandbox = await startSandbox({ seed: join(ROOT, 'samples', 'store.json'), latencyMs: 120 });
    const s = sandbox;
    const client = new MerchantClient({ baseUrl: s.url, token: s.token });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-products-kill-'));
    const lines = ['reference_id,name,price,variant_sku,variant_name,variant_price'];
    for (let i = 1; i <= 30; i++) {
      const ref = `KILL-${String(i).padStart(2, '0')}`;
      lines.push(`${ref},Kill Test ${i},${i}.00,${ref}-A,A,${i}.00`);
      lines.push(`${ref},,,${ref}-B,B,${i}.50`);
    }
    const updates = ['ERP-0000001', 'ERP-0000002', 'ERP-0000003', 'ERP-0000005', 'ERP-0000006'];
    updates.forEach((ref, n) => lines.push(`${ref},,${77 + n}.00,,,`));
    const file = join(dir, 'catalog.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // The updates' prices (77.00…) are far from the live ones: not what this test is about.
    const planned = await planProductImport({
      client,
      file,
      runsRoot: join(dir, 'runs'),
      target: 'test',
      allowPriceJumps: true,
    });
    expect(planned.file.plan.summary).toMatchObject({ create: 30, update: 5, invalid: 0 });
    const total = 35;

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, planned.run.dir, s.url, s.token], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const journal = planned.run.file('journal');
    const deadline = Date.now() + 60_000;
    while (doneCount(journal) < 6 && Date.now() < deadline) await sleep(20);
    child.kill('SIGKILL');
    await exited;
    const doneAtKill = doneCount(journal);
    expect(doneAtKill, stderr).toBeGreaterThanOrEqual(6);
    expect(doneAtKill).toBeLessThan(total);
    expect(RunDirectory.load(planned.run.dir).meta.status).toBe('applying');
    // Let requests the child left in flight reach the store (its answers are lost).
    await sleep(300);

    const resumed = await applyProductRun(RunDirectory.load(planned.run.dir), { client, concurrency: 4 });
    expect(resumed.status).toBe('completed');
    expect(resumed.failed).toBe(0);
    expect(resumed.created + resumed.updated).toBe(total);
    expect(resumed.requests).toBeLessThanOrEqual(total - doneAtKill);

    const all: Product[] = [];
    for await (const p of client.products.list()) all.push(p);
    for (let i = 1; i <= 30; i++) {
      const ref = `KILL-${String(i).padStart(2, '0')}`;
      const matches = all.filter((p) => p.reference_id === ref);
      expect(matches, ref).toHaveLength(1);
      expect(matches[0]?.price).toBe(i * 100);
      expect(matches[0]?.variants.map((v) => [v.sku, v.price])).toEqual([
        [`${ref}-A`, i * 100],
        [`${ref}-B`, i * 100 + 50],
      ]);
    }
    expect(all).toHaveLength(20 + 30);
    updates.forEach((ref, n) => {
      expect(all.find((p) => p.reference_id === ref)?.price).toBe((77 + n) * 100);
    });
    // Every create reached the store exactly once (replays are answered from memory).
    const creates = s.requestLog().filter((e) => e.method === 'POST' && e.outcome === 'applied');
    expect(creates).toHaveLength(30);
    expect(RunDirectory.load(planned.run.dir).meta.status).toBe('applied');
  }, 120_000);
});
