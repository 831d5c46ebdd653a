/**
 * Orders export benchmark: N orders into XLSX and CSV, against a naive script on the same sandbox.
 *
 *   npx tsx bench/export-orders.bench.ts [SIZES] [FORMATS] [SOURCE] [LATENCY_MS] [RPS]
 *   e.g. npx tsx bench/export-orders.bench.ts 100000 csv,xlsx sandbox 20 50
 *
 * Positional: SIZES (default 100000), FORMATS (default csv,xlsx; `xlsx-single` is XLSX with the
 * workbook written on the export's own thread, as before issue 41's worker), SOURCE (sandbox|local), the
 * sandbox's LATENCY_MS per request and its rate limit RPS. Without LATENCY_MS both regimes of issue
 * 41 run one after the other: no latency and no rate limit (CPU-bound), then 20 ms and 50 requests/s.
 * The load average of the machine is printed with each regime's ratios.
 *
 * - `sandbox` (default): a generated sandbox (`generateStore`, ~1.8 lines per order) served over
 *   loopback HTTP by a separate process; the export reads it through MerchantClient page by page
 *   (limit 100, every page zod-validated, pages read ahead), exactly as `mbulk export orders` does.
 *   In the same run, against the same sandbox, `bench/naive-export-orders.py` (the script a user
 *   would write: pages through the API with limit=100 on one keep-alive connection and writes one
 *   CSV, one row per order, nothing validated) runs before and after the exports; each export's
 *   wall time is divided by the faster of the two script runs (on a shared machine the load moves;
 *   the faster run is the harder comparison).
 * - `local`: orders made by a generator in the export process itself (no HTTP, no validation):
 *   the cost of the export alone.
 *
 * Each (format, size) export runs in its own child process, so the peak RSS reported (maxRSS from
 * process.resourceUsage) is that export's alone (the sandbox's memory is in another process). RSS
 * is also sampled at each quarter of the run and during the finishing phase (when the XLSX writer
 * copies the spooled order_lines sheet in), to show whether it grows with the number of orders.
 * Targets (issue 26): CSV ÷ script ≤ 1.0, XLSX ÷ script ≤ 1.5, peak RSS < 300 MB and flat.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MerchantClient } from '../src/api/merchant-client.js';
import { exportOrders } from '../src/export/export-orders.js';
import { startSandbox } from '../src/sandbox/server.js';
import type { Order, OrderLineItem } from '../src/schema/order.js';
import type { Store } from '../src/schema/store.js';
import { createPrng } from '../src/sandbox/prng.js';

const STORE: Store = {
  id: 'store_bench',
  object: 'store',
  name: 'Bench Store',
  alias: 'bench',
  phone: '6281234567890',
  email: null,
  country: 'ID',
  currency: 'USD',
  timezone: 'Asia/Jakarta',
  address: null,
  tax: { inclusive: false, percent: 10 },
  service_charge: null,
};

/** Lazily generated orders: memory holds one at a time, like a paginated read. */
async function* syntheticOrders(count: number): AsyncGenerator<Order> {
  const prng = createPrng(42);
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    const id = `ord_${String(1_000_000_000_000_000 + i)}`;
    const lineCount = prng.int(1, 5);
    const lines: OrderLineItem[] = [];
    for (let j = 0; j < lineCount; j++) {
      const quantity = prng.int(1, 4);
      const price = prng.int(100, 50_000);
      const withOption = prng.chance(0.3);
      lines.push({
        id: `${id}_${j}`,
        object: 'order_line_item',
        product_id: `prod_${prng.int(1, 5000)}`,
        variant_id: prng.chance(0.5) ? `var_${prng.int(1, 20000)}` : null,
        name: `Product ${prng.int(1, 5000)}`,
        sku: `00${prng.int(1000, 99999)}`,
        quantity,
        quantity_float: quantity,
        unit: 'pcs',
        unit_value: 1,
        price,
        total_amount: price * quantity,
        options: withOption
          ? [
              {
                question_id: 'q_size',
                question_text: 'Size',
                question_type: 'SINGLE',
                answers: ['Large'],
                prices: [200],
                quantities: [1],
                option_ids: ['o_large'],
                text: '',
                image_urls: [],
              },
            ]
          : [],
        image_urls: [],
      });
    }
    const items = lines.reduce((s, l) => s + l.total_amount, 0);
    const discount = prng.chance(0.3) ? prng.int(1, Math.max(1, Math.floor(items / 10))) : 0;
    const service = prng.chance(0.5) ? prng.int(500, 3000) : 0;
    const tip = prng.chance(0.2) ? prng.int(100, 2000) : 0;
    const beforeTax = items - discount + service + tip;
    const tax = Math.round(beforeTax / 10);
    const created = new Date(start + i * 60_000).toISOString();
    yield {
      id,
      object: 'order',
      number: String(10_000 + i),
      name: `#${10_000 + i}`,
      store: { id: STORE.id, name: STORE.name, alias: STORE.alias },
      order_status: 'confirmed',
      payment_status: 'paid',
      payment_method: 'bank_transfer',
      fulfillment_status: 'fulfilled',
      remark: prng.chance(0.1) ? '=1+1 please' : '',
      internal_note: '',
      attribution: null,
      customer: {
        id: `cus_${prng.int(1, 20000)}`,
        object: 'customer',
        name: 'Customer Name',
        email: 'c@example.com',
        phone: `62812${prng.int(1_000_000, 9_999_999)}`,
        address: null,
        created_at: created,
        updated_at: created,
      },
      line_items: lines,
      answers: [],
      discounts: discount ? [{ id: 'd1', name: 'Promo', amount: discount, type: 'fixed' }] : [],
      service: service
        ? {
            title: 'Delivery',
            name: 'courier',
            price: service,
            distance: null,
            distance_unit: null,
            location: null,
          }
        : null,
      schedule: null,
      items_quantity: lines.reduce((s, l) => s + l.quantity, 0),
      items_amount: items,
      answers_amount: 0,
      discounts_amount: discount,
      service_amount: service,
      service_charge_amount: 0,
      tip_amount: tip,
      adjustment_amount: 0,
      total_before_tax: beforeTax,
      tax_amount: tax,
      total_amount: beforeTax + tax,
      currency: 'USD',
      created_at: created,
      updated_at: created,
    };
  }
}

async function fetchStore(url: string, token: string): Promise<Store> {
  const res = await fetch(`${url}/api/v2/me`, { headers: { authorization: `Bearer ${token}` } });
  return (await res.json()) as Store;
}

/** `--serve N`: a sandbox with N generated orders; prints its URL and token, then serves until killed. */
async function serve(count: number, latencyMs: number, rateLimitRps: number): Promise<void> {
  const sandbox = await startSandbox({
    generate: { orders: count, products: 300, customers: 2000, seed: 7, currency: 'MYR' },
    ...(latencyMs > 0 ? { latencyMs } : {}),
    ...(rateLimitRps > 0 ? { rateLimitRps } : {}),
  });
  console.log(JSON.stringify({ url: sandbox.url, token: sandbox.token }));
}

/** Starts a sandbox process and waits for its URL. */
async function startSandboxProcess(
  self: string,
  count: number,
  latencyMs: number,
  rateLimitRps: number,
): Promise<{ url: string; token: string; stop: () => void; seconds: number }> {
  const t0 = performance.now();
  const args = [self, '--serve', String(count), String(latencyMs), String(rateLimitRps)];
  const proc = spawn(process.execPath, [...process.execArgv, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  for await (const line of lines) {
    if (line.startsWith('{')) {
      const { url, token } = JSON.parse(line) as { url: string; token: string };
      return { url, token, stop: () => proc.kill(), seconds: (performance.now() - t0) / 1000 };
    }
  }
  throw new Error(`the sandbox process exited (${proc.exitCode}) before listening`);
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Orders read from the sandbox through the real client, counting pages. */
async function* sandboxOrders(url: string, token: string, counter: { pages: number }): AsyncGenerator<Order> {
  const client = new MerchantClient({ baseUrl: url, token });
  try {
    for await (const page of client.orders.list().pages()) {
      counter.pages++;
      yield* page.data;
    }
  } finally {
    await client.close();
  }
}

/**
 * CPU (user + system) of this process's main thread, from Linux's /proc (clock ticks of 10 ms);
 * null elsewhere. process.cpuUsage() counts every thread (the XLSX writer's worker, zlib's pool).
 */
function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** `xlsx-single`: XLSX with the workbook written on the export's own thread (exportOrders' `thread: false`). */
type BenchFormat = 'xlsx' | 'xlsx-single' | 'csv';

async function child(bench: BenchFormat, count: number, url?: string, token?: string): Promise<void> {
  const format = bench === 'csv' ? 'csv' : 'xlsx';
  const dir = await mkdtemp(join(tmpdir(), 'mbulk-bench-'));
  const counter = { pages: 0 };
  const me = url && token ? await fetchStore(url, token) : STORE;
  const path = join(dir, `orders.${format}`);
  const samples: number[] = [];
  const quarter = Math.max(1, Math.floor(count / 4));
  let finishing = false;
  let finishingPeak = 0;
  const sampler = setInterval(() => {
    if (finishing) finishingPeak = Math.max(finishingPeak, process.memoryUsage.rss());
  }, 100);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    const result = await exportOrders({
      orders: url && token ? sandboxOrders(url, token, counter) : syntheticOrders(count),
      store: me,
      path,
      format,
      thread: bench !== 'xlsx-single',
      onProgress: (p) => {
        if (p.phase === 'writing' && p.ordersRead % quarter === 0) samples.push(process.memoryUsage.rss());
        if (p.phase === 'finishing') finishing = true;
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    let bytes = 0;
    for (const p of new Set(Object.values(result.paths).flat())) bytes += (await stat(p)).size;
    console.log(
      JSON.stringify({
        format,
        orders: result.orders,
        lines: result.lines,
        checks: result.checks,
        pages: counter.pages,
        seconds,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        mainThreadCpuSeconds: mainThreadCpuSeconds(),
        finishingPeak,
        peakRss: process.resourceUsage().maxRSS * 1024,
        samples,
        bytes,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface ChildResult {
  orders: number;
  lines: number;
  pages: number;
  seconds: number;
  cpuSeconds: number;
  mainThreadCpuSeconds: number | null;
  finishingPeak: number;
  peakRss: number;
  samples: number[];
  bytes: number;
}

/** The naive script against the sandbox: wall time (with Python's start-up, as a user runs it) and peak RSS. */
function naiveScript(
  url: string,
  token: string,
): { seconds: number; cpuSeconds: number; peakRss: number; bytes: number } | null {
  const script = fileURLToPath(new URL('./naive-export-orders.py', import.meta.url));
  const out = join(tmpdir(), `mbulk-bench-naive-${process.pid}.csv`);
  const t0 = performance.now();
  const run = spawnSync('python3', [script, url, token, out], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seconds = (performance.now() - t0) / 1000;
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || !line.startsWith('{')) {
    console.log(`naive script: failed (exit ${run.status}${run.error ? `, ${run.error.message}` : ''})`);
    return null;
  }
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  const figures = JSON.parse(line) as { peakRss: number; cpu: number };
  return { seconds, cpuSeconds: figures.cpu, peakRss: figures.peakRss, bytes };
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '100000').split(',').map(Number);
  const formats = (process.argv[3] ?? 'csv,xlsx').split(',') as BenchFormat[];
  const source = process.argv[4] ?? 'sandbox';
  const regimes: [number, number][] =
    process.argv[5] === undefined || source !== 'sandbox'
      ? source === 'sandbox'
        ? [
            [0, 0],
            [20, 50],
          ]
        : [[0, 0]]
      : [[Number(process.argv[5]), Number(process.argv[6] ?? 0)]];
  const self = fileURLToPath(import.meta.url);
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(
    `orders export bench (Node ${process.version}); sizes ${sizes.join(', ')}; formats ${formats.join(', ')}; source ${source}; load average ${load()}`,
  );
  const naiveRow = (
    n: { seconds: number; cpuSeconds: number; peakRss: number; bytes: number },
    size: number,
  ): string =>
    [
      'script'.padEnd(7),
      String(size).padEnd(8),
      '-'.padEnd(8),
      '-'.padEnd(6),
      `${n.seconds.toFixed(1)} s`.padEnd(8),
      `${n.cpuSeconds.toFixed(1)} s`.padEnd(8),
      String(Math.round(size / n.seconds)).padEnd(9),
      mb(n.peakRss).padEnd(9),
      '-'.padEnd(35),
      mb(n.bytes),
    ].join(' ');
  for (const [latencyMs, rateLimitRps] of regimes)
    for (const size of sizes) {
      if (source === 'sandbox')
        console.log(
          `\n## sandbox latency ${latencyMs} ms, rate limit ${rateLimitRps > 0 ? `${rateLimitRps}/s` : 'none'} (load average ${load()})`,
        );
      console.log(
        'format  orders   lines    pages  wall     CPU      orders/s  peak RSS  RSS at 25/50/75/100% | finishing  output',
      );
      const sandbox =
        source === 'sandbox' ? await startSandboxProcess(self, size, latencyMs, rateLimitRps) : null;
      if (sandbox) console.log(`(sandbox with ${size} orders ready in ${sandbox.seconds.toFixed(1)} s)`);
      try {
        const naive: number[] = [];
        const naiveCpu: number[] = [];
        const runNaive = (): void => {
          if (!sandbox) return;
          const n = naiveScript(sandbox.url, sandbox.token);
          if (!n) return;
          naive.push(n.seconds);
          naiveCpu.push(n.cpuSeconds);
          console.log(naiveRow(n, size));
        };
        runNaive();
        const ratios: string[] = [];
        const walls: [string, number][] = [];
        const cpus: [string, number, number | null][] = [];
        for (const format of formats) {
          const extra = sandbox ? [sandbox.url, sandbox.token] : [];
          const run = spawnSync(
            process.execPath,
            [...process.execArgv, self, '--child', format, String(size), ...extra],
            { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
          );
          const line = run.stdout.trim().split('\n').at(-1) ?? '';
          if (run.status !== 0 || !line.startsWith('{')) {
            console.log(`${format} ${size}: failed (exit ${run.status})`);
            continue;
          }
          const r = JSON.parse(line) as ChildResult;
          walls.push([format, r.seconds]);
          cpus.push([format, r.cpuSeconds, r.mainThreadCpuSeconds]);
          console.log(
            [
              format.padEnd(7),
              String(r.orders).padEnd(8),
              String(r.lines).padEnd(8),
              String(r.pages || '-').padEnd(6),
              `${r.seconds.toFixed(1)} s`.padEnd(8),
              `${r.cpuSeconds.toFixed(1)} s`.padEnd(8),
              String(Math.round(r.orders / r.seconds)).padEnd(9),
              mb(r.peakRss).padEnd(9),
              `${r.samples.map(mb).join(' / ')} | ${r.finishingPeak ? mb(r.finishingPeak) : '-'}`.padEnd(35),
              mb(r.bytes).padEnd(7),
            ].join(' '),
          );
        }
        runNaive();
        if (naive.length > 0) {
          const fastest = Math.min(...naive);
          for (const [format, seconds] of walls) {
            const target = format === 'csv' ? 1.0 : 1.5;
            ratios.push(`${format} ${(seconds / fastest).toFixed(2)} (target ≤ ${target.toFixed(1)})`);
          }
          console.log(
            `ratios to the naive script (the faster of ${naive.map((n) => n.toFixed(1)).join(' and ')} s): ${ratios.join(', ')}; ` +
              `peak RSS target < 300 MB; load average ${load()}`,
          );
          // CPU (user + system) of each process: what load moves least. The script's is its own
          // process's; ours includes the bench child's tsx loader (~0.3-0.5 s that mbulk's bundle does not pay).
          const fewestCpu = Math.min(...naiveCpu);
          console.log(
            `CPU to the naive script's (the lesser of ${naiveCpu.map((n) => n.toFixed(1)).join(' and ')} s): ` +
              cpus
                .map(
                  ([format, cpu, main]) =>
                    `${format} ${cpu.toFixed(1)} s = ${(cpu / fewestCpu).toFixed(2)}` +
                    (main === null ? '' : ` (main thread ${main.toFixed(1)} s)`),
                )
                .join(', '),
          );
        }
      } finally {
        sandbox?.stop();
      }
    }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as BenchFormat, Number(process.argv[4]), process.argv[5], process.argv[6]);
} else if (process.argv[2] === '--serve') {
  await serve(Number(process.argv[3]), Number(process.argv[4] ?? 0), Number(process.argv[5] ?? 0));
} else {
  await main();
}
