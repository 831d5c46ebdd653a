/**
 * Write-time check benchmark: apply throughput of a products run (N price updates, concurrency 4)
 * with the write-time check off, in its default mode with a plan older than 5 s (the run's writes
 * checked against a shared catalog listing, re-read every few seconds in the background), and
 * strict (`--strict-check`: GET /products/{id} before each PATCH), against a sandbox in a child
 * process whose catalog holds the N products.
 *
 *   npx tsx bench/write-check.bench.ts [products] [latencyMs...]   (default 1000 products, latency 0 and 20 ms)
 *
 * Each mode runs twice per latency, alternating, and the better of the two is printed, with the
 * ratio to "off" and the GETs the sandbox saw (single products, catalog pages).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MerchantClient } from '../src/api/merchant-client.js';
import type { WriteCheckOptions } from '../src/apply/write-check.js';
import { applyProductRun, planProductImport } from '../src/jobs/products/product-import.js';
import { generateStore } from '../src/sandbox/generator.js';
import { startSandbox } from '../src/sandbox/server.js';
import { sandboxChildAddress } from './sandbox-child-address.js';

const args = process.argv.slice(2);
const mode = args[0]?.startsWith('--') ? args.shift() : undefined;
const N = Number(args[0] ?? 1000);
const LATENCIES = args.length > 1 ? args.slice(1).map(Number) : [0, 20];
const CONCURRENCY = 4;

const ref = (i: number) => `WC-${String(i).padStart(6, '0')}`;

interface LogEntry {
  method: string;
  path: string;
}

async function startChildSandbox(latencyMs: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--sandbox', String(N), String(latencyMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const { url, token } = await sandboxChildAddress(child);
  return {
    url,
    token,
    async gets(): Promise<{ single: number; pages: number }> {
      const res = await fetch(`${url}/__sandbox/requests`, { headers: { connection: 'close' } });
      const body = (await res.json()) as LogEntry[] | { data: LogEntry[] };
      const log = (Array.isArray(body) ? body : body.data).filter((e) => e.method === 'GET');
      return {
        single: log.filter((e) => /^\/api\/v2\/products\/[^/?]+$/.test(e.path)).length,
        pages: log.filter((e) => /^\/api\/v2\/products(\?|$)/.test(e.path)).length,
      };
    },
    async clear(): Promise<void> {
      await fetch(`${url}/__sandbox/requests`, { method: 'DELETE', headers: { connection: 'close' } });
    },
    close(): void {
      child.kill('SIGTERM');
    },
  };
}

async function sandboxChild(latencyMs: number): Promise<void> {
  const seed = generateStore({ products: 0, customers: 0, orders: 0, currency: 'MYR' });
  const sandbox = await startSandbox({ seed, latencyMs });
  for (let i = 1; i <= N; i++)
    sandbox.store.createProduct({ reference_id: ref(i), sku: ref(i), name: `Write check ${i}`, price: 1000 });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, token: sandbox.token })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
  process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
}

/** A clock a minute ahead: the plan is past the 5 s threshold, as after a wait at the prompt. */
const planAged = () => Date.now() + 60_000;

const MODES: { name: string; writeCheck: WriteCheckOptions }[] = [
  { name: 'off', writeCheck: { afterMs: Number.MAX_SAFE_INTEGER } },
  { name: 'default, plan > 5 s old', writeCheck: { now: planAged } },
  { name: 'strict (get-one/PATCH)', writeCheck: { strict: true } },
];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-write-check-bench-'));
  console.log(`write-check bench: ${N} product price updates per apply, concurrency ${CONCURRENCY}`);
  let round = 0;
  for (const latency of LATENCIES) {
    const sandbox = await startChildSandbox(latency);
    const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
    const best = new Map<string, { seconds: number; gets: { single: number; pages: number } }>();
    for (let pass = 0; pass < 2; pass++) {
      for (const m of MODES) {
        round++;
        const file = join(dir, `catalog-${round}.csv`);
        const lines = ['reference_id,price'];
        // A new price every round, so each apply writes all N products.
        for (let i = 1; i <= N; i++) lines.push(`${ref(i)},${(10 + round / 100).toFixed(2)}`);
        writeFileSync(file, `${lines.join('\n')}\n`);
        const planned = await planProductImport({
          client,
          file,
          runsRoot: join(dir, 'runs'),
          target: 'bench',
        });
        await sandbox.clear();
        const applied = await applyProductRun(planned.run, {
          client,
          concurrency: CONCURRENCY,
          writeCheck: m.writeCheck,
        });
        if (applied.updated !== N) throw new Error(`${m.name}: ${applied.updated} of ${N} updated`);
        const gets = await sandbox.gets();
        const prev = best.get(m.name);
        if (!prev || applied.seconds < prev.seconds) best.set(m.name, { seconds: applied.seconds, gets });
      }
    }
    const base = best.get(MODES[0]!.name)!.seconds;
    console.log(`  sandbox latency ${latency} ms (±50%):`);
    for (const m of MODES) {
      const b = best.get(m.name)!;
      console.log(
        `    ${m.name.padEnd(24)} ${(N / b.seconds).toFixed(0).padStart(6)} PATCH/s (${b.seconds.toFixed(2)} s) · ${((base / b.seconds) * 100).toFixed(0)}% of off · ${b.gets.single} single-product GETs · ${b.gets.pages} catalog pages`,
      );
    }
    sandbox.close();
  }
}

if (mode === '--sandbox') void sandboxChild(Number(args[1] ?? 0));
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
