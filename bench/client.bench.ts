/**
 * Client throughput against a rate-limited sandbox: absolute-value inventory PATCHes through one
 * MerchantClient, as an import would send them.
 *
 *   npx tsx bench/client.bench.ts [N=2000] [N_CONCURRENCY_1=400] [--latency 50] [--rate-limit 50]
 *
 * Target (issue 3): with default settings, >= 90% of the rate limit (>= 45/s at 50/s) and 429s
 * under 2% of requests. The --concurrency 1 run is for comparison (latency-bound, so it uses a
 * smaller default size to stay under two minutes in total).
 */
import { loadavg } from 'node:os';
import { MerchantClient } from '../src/api/merchant-client.js';
import { startSandbox } from '../src/sandbox/server.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const positional = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
const N = Number(positional[0] ?? 2000);
const N1 = Number(positional[1] ?? 400);
const LATENCY = flag('latency', 50);
const RATE = flag('rate-limit', 50);

interface Figures {
  label: string;
  patches: number;
  seconds: number;
  perSecond: number;
  requests: number;
  rateLimited: number;
  retries: number;
  learnedRps: number | undefined;
}

async function run(label: string, count: number, concurrency: number): Promise<Figures> {
  const sandbox = await startSandbox({
    port: 0,
    latencyMs: LATENCY,
    rateLimitRps: RATE,
    generate: { products: 100, customers: 0, orders: 0 },
  });
  // Item ids straight from the store, so the measured phase starts with a full token bucket.
  const items: string[] = [];
  for (const p of sandbox.store.toSnapshot().products) {
    if (p.inventory) items.push(p.inventory.item_id);
    for (const v of p.variants) if (v.inventory) items.push(v.inventory.item_id);
  }
  const client = new MerchantClient({
    baseUrl: sandbox.url,
    token: sandbox.token,
    maxConcurrency: concurrency,
  });
  let last = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    const p = client.progress();
    const done = p.requests - p.rateLimited - p.inFlight;
    process.stderr.write(
      `\r  ${label}: ${done}/${count} sent, ${p.rps} rps, concurrency ${p.concurrency}, ceiling ${p.rpsLimit?.toFixed(1) ?? '-'}, 429s ${p.rateLimited}   `,
    );
    last = done;
  }, 1000);
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.inventory.update(items[i % items.length] as string, { quantity: (i * 7) % 500 }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  process.stderr.write(`\r${' '.repeat(100)}\r`);
  void last;
  const p = client.progress();
  const log = sandbox.requestLog().filter((e) => e.method === 'PATCH');
  const rateLimited = log.filter((e) => e.outcome === 'rate_limited').length;
  await client.close();
  await sandbox.close();
  return {
    label,
    patches: count,
    seconds,
    perSecond: count / seconds,
    requests: log.length,
    rateLimited,
    retries: p.retries,
    learnedRps: p.rpsLimit,
  };
}

function print(f: Figures): void {
  const pct = (100 * f.rateLimited) / f.requests;
  console.log(
    `${f.label.padEnd(16)} ${String(f.patches).padStart(5)} PATCHes in ${f.seconds.toFixed(1).padStart(5)} s = ` +
      `${f.perSecond.toFixed(1).padStart(5)}/s (${((100 * f.perSecond) / RATE).toFixed(0)}% of limit); ` +
      `${f.requests} requests, ${f.rateLimited} x 429 (${pct.toFixed(2)}%), ${f.retries} retries, ` +
      `learned ceiling ${f.learnedRps?.toFixed(1) ?? 'none'} rps`,
  );
}

console.log(
  `client bench: sandbox latency ${LATENCY} ms (±50%), rate limit ${RATE}/s (bucket of 1 s), load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
print(await run('default (c=4)', N, 4));
print(await run('--concurrency 1', N1, 1));
