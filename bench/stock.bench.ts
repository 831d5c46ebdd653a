/**
 * Stock import at scale (issue 5): a stock sheet of 200,000 rows against a sandbox store of
 * 50,000 products x 4 variants (200,000 inventory items) with 1% of the quantities changed, through
 * the real job (planStockImport + applyStockRun); then a re-run (must write nothing); then
 * read+validate+plan alone, best of N; then a 1,000,000-row sheet (read+validate+plan) to show that
 * memory does not grow with the file.
 *
 *   npx tsx bench/stock.bench.ts                       # defaults (about 1-3 minutes)
 *   npx tsx bench/stock.bench.ts --products 10000 --big 200000          # quick check
 *   npx tsx bench/stock.bench.ts [--products 50000] [--variants 4] [--rows N] [--changed 0.01]
 *        [--batch 100] [--big 1000000] [--repeat 3] [--seed 1] [--latency 0] [--rate 0] [--skip-big]
 *
 * A million SKUs (issue 26): 333,334 products x 3 variants, a 1M-row sheet, 1% changed, at 50
 * requests/s and 20 ms latency; prints end to end against the physical bound (list pages of both
 * status partitions + ceil(changed / 100) batch writes at the rate limit, or the larger
 * partition's pages in sequence, whichever is larger). --repeat 0 skips the plan-alone child:
 *   npx tsx bench/stock.bench.ts --products 333334 --variants 3 --rate 50 --latency 20 --repeat 0
 * With a latency or a rate, a bare client then reads the VISIBLE partition (the larger one here)
 * page after page (--chain-pages N: the first N only) to measure a page's round trip on this
 * machine, the sequential bound's real figure (the injected latency leaves out moving ~260 KB a
 * page). The sandbox keeps every product as its JSON from the moment it is generated or loaded
 * (src/sandbox/README.md, "Products in memory"), so the first run meets the server the bare client
 * (run last) meets; --cold-sandbox no longer changes that (it skipped a warming pass that rendered
 * each product's JSON before the first run, when the sandbox rendered it when first served).
 * BENCH_TRACE=1 prints the importing process's rate control once a second (requests/s,
 * learned ceiling, 429s) on stderr; BENCH_CHILD_NODE_ARGS="--trace-gc" (or --cpu-prof …) passes
 * node options to the importing children.
 *
 * Processes, so that each RSS figure belongs to one thing:
 * - `sandbox` child: builds the store (generateStore, then every product reshaped to exactly
 *   --variants variants, all tracking inventory), writes the matching stock sheet, serves it on
 *   127.0.0.1 and answers `stats` on stdin from its request log (the witness for write requests);
 * - `import` child: the measured importing process (plan + apply, or the re-run);
 * - `plan` child: fetches the live index once, then times read+validate+plan on its own;
 * - `big` children: a 1M-item index built in memory (no HTTP), then a 250k-row and a 1M-row sheet.
 * Targets: read+validate+plan >= 150,000 rows/s; write requests = ceil(changed / batch); 0 on a
 * re-run; peak RSS of the importing process < 400 MB (< 1 GB past 200k items); RSS flat from 250k
 * to 1M rows; with --rate, end to end <= 1.15 x the bound.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import type { RateProgress } from '../src/api/rate-controller.js';
import type { LiveInventoryIndex } from '../src/plan/live-inventory-index.js';

const self = fileURLToPath(import.meta.url);
const dir = join(tmpdir(), 'mbulk-bench-stock');
const MiB = 2 ** 20;

interface Args {
  products: number;
  variants: number;
  rows: number;
  changed: number;
  batch: number;
  big: number;
  repeat: number;
  seed: number;
  latency: number;
  /** Sandbox rate limit in requests per second (0: none). */
  rate: number;
  skipBig: boolean;
  /** Leave each product's JSON to be rendered when first served (see the header). */
  coldSandbox: boolean;
  /** Pages of the bare sequential read that measures a page's round trip (--chain-pages). */
  chainPages: number;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const v = Number((argv[i + 1] ?? '').replace(/_/g, ''));
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} needs a non-negative number`);
    return v;
  };
  const products = get('products', 50_000);
  const variants = Math.max(1, get('variants', 4));
  return {
    products,
    variants,
    rows: Math.min(get('rows', products * variants), products * variants),
    changed: get('changed', 0.01),
    batch: Math.max(1, get('batch', 100)),
    big: get('big', 1_000_000),
    repeat: get('repeat', 3),
    seed: get('seed', 1),
    latency: get('latency', 0),
    rate: get('rate', 0),
    skipBig: argv.includes('--skip-big'),
    coldSandbox: argv.includes('--cold-sandbox'),
    chainPages: get('chain-pages', 0) || Infinity,
  };
}

const maxRssMB = () => process.resourceUsage().maxRSS / 1024;
const rssMB = () => process.memoryUsage().rss / MiB;
const heapMB = () => process.memoryUsage().heapUsed / MiB;

/** Samples RSS every 20 ms (maxRSS from the kernel is the authoritative peak). */
function rssSampler(): { peak: () => number; stop: () => void } {
  let peak = rssMB();
  const timer = setInterval(() => (peak = Math.max(peak, rssMB())), 20);
  return {
    peak: () => Math.max(peak, rssMB()),
    stop: () => clearInterval(timer),
  };
}

/** Deterministic permutation 0..n-1 (xorshift Fisher-Yates): the sheet's row order. */
function shuffled(n: number, seed: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const j = x % (i + 1);
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  return order;
}

/** Row p of a sheet changes when this is true: exactly round(rows * fraction) rows, spread out. */
function changes(p: number, rows: number, fraction: number): boolean {
  const c = Math.round(rows * fraction);
  return Math.floor(((p + 1) * c) / rows) > Math.floor((p * c) / rows);
}

class LineFile {
  private readonly fd: number;
  private buf = '';
  constructor(readonly path: string) {
    this.fd = openSync(`${path}.part`, 'w');
  }
  line(s: string): void {
    this.buf += s;
    if (this.buf.length > MiB) {
      writeSync(this.fd, this.buf);
      this.buf = '';
    }
  }
  close(): void {
    writeSync(this.fd, this.buf);
    closeSync(this.fd);
    renameSync(`${this.path}.part`, this.path);
  }
}

// ------------------------------------------------------------------------------------------------
// sandbox child

async function childSandbox(a: Args, sheet: string): Promise<void> {
  const t0 = performance.now();
  const { generateStore } = await import('../src/sandbox/generator.js');
  const { startSandbox } = await import('../src/sandbox/server.js');
  const snapshot = generateStore({ products: a.products, customers: 0, orders: 0, seed: a.seed });
  // Reshape: exactly `variants` variants per product, all tracking inventory. Extra variants copy
  // the product's first variant (or its own inventory) with new ids and SKUs.
  let extra = 0;
  const items: { sku: string; quantity: number }[] = [];
  for (const p of snapshot.products) {
    p.inventory_enabled = true;
    const base = p.variants[0];
    const template = base?.inventory ?? p.inventory;
    if (template === null || template === undefined) throw new Error(`product ${p.id} has no inventory`);
    p.variants.length = Math.min(p.variants.length, a.variants);
    for (let k = p.variants.length; k < a.variants; k++) {
      const n = ++extra;
      const id = `var_x${n.toString(36).padStart(7, '0')}`;
      const sku = `${p.sku ?? p.id}-X${k}`;
      const name = `Extra ${k}`;
      p.variants.push({
        id,
        object: 'variant',
        product_id: p.id,
        name,
        sku,
        description: null,
        price: base?.price ?? p.price,
        original_price: base?.original_price ?? null,
        cost: base?.cost ?? p.cost,
        weight: base?.weight ?? p.weight,
        inventory: {
          ...template,
          item_id: `inv_x${n.toString(36).padStart(7, '0')}`,
          item_type: 'variant',
          item_name: `${p.name} - ${name}`,
          variant_id: id,
          sku,
          quantity: (n * 7919) % 500,
        },
      });
    }
    p.inventory = null;
    for (const v of p.variants) {
      if (v.inventory === null) throw new Error(`variant ${v.id} has no inventory`);
      items.push({ sku: v.inventory.sku ?? (v.sku as string), quantity: v.inventory.quantity });
    }
  }
  const built = performance.now();
  const visible = snapshot.products.filter((p) => p.status === 'VISIBLE').length;
  const sandbox = await startSandbox({
    seed: snapshot,
    ...(a.latency > 0 ? { latencyMs: a.latency } : {}),
    ...(a.rate > 0 ? { rateLimitRps: a.rate } : {}),
  });
  const loaded = performance.now();
  // What a served product keeps: its JSON (see --cold-sandbox).
  if (!a.coldSandbox) for (const p of snapshot.products) sandbox.store.getProductJson(p.id);
  const warmed = performance.now();

  // The sheet: `rows` items in a shuffled order, 1% of them with a new quantity.
  const order = shuffled(items.length, a.seed);
  const out = new LineFile(sheet);
  out.line('sku,quantity\n');
  let changed = 0;
  for (let p = 0; p < a.rows; p++) {
    const item = items[order[p] as number] as { sku: string; quantity: number };
    let q = item.quantity;
    if (changes(p, a.rows, a.changed)) {
      q += 1 + (p % 7);
      changed++;
    }
    out.line(`${item.sku},${q}\n`);
  }
  out.close();
  const ready = {
    ready: true,
    url: sandbox.url,
    token: sandbox.token,
    items: items.length,
    visible,
    hidden: snapshot.products.length - visible,
    rows: a.rows,
    changed,
    buildSeconds: (built - t0) / 1000,
    loadSeconds: (loaded - built) / 1000,
    warmSeconds: a.coldSandbox ? undefined : (warmed - loaded) / 1000,
    maxRssMB: maxRssMB(),
  };
  items.length = 0;
  process.stdout.write(`${JSON.stringify(ready)}\n`);

  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'stats') {
      const log = sandbox.requestLog();
      const writes = log.filter((e) => e.method !== 'GET');
      process.stdout.write(
        `${JSON.stringify({
          gets: log.length - writes.length,
          productPages: log.filter((e) => e.method === 'GET' && e.path.startsWith('/api/v2/products?'))
            .length,
          // Writes the store took (a 429 changed nothing: the client retried it).
          writes: writes.filter((e) => e.status >= 200 && e.status < 300).length,
          refusedWrites: writes.filter((e) => e.status === 429).length,
          batchPosts: writes.filter((e) => e.path.startsWith('/api/v2/inventory_items/batch_update')).length,
          writeStatuses: [...new Set(writes.map((e) => e.status))],
        })}\n`,
      );
    } else if (line === 'exit') break;
  }
  await sandbox.close();
  process.stdin.destroy();
}

// ------------------------------------------------------------------------------------------------
// import child: the measured importing process

interface ImportFigures {
  fetchSeconds: number;
  products: number;
  readPlanSeconds: number;
  rowsPerSecond: number;
  planSeconds: number;
  applySeconds: number;
  totalSeconds: number;
  rows: number;
  changes: number;
  unchanged: number;
  issues: number;
  requests: number;
  applied: number;
  failed: number;
  mode: string;
  maxRssPlanMB: number;
  maxRssMB: number;
  sampledPeakMB: number;
  /**
   * The importing process's CPU (user + system) by phase, in seconds: the live fetch, the sheet's
   * rows planned after it, the rest of the plan (plan file, report, lock), the apply. Load moves
   * wall times far more than these (compare the after-the-fetch phases at two catalog sizes).
   */
  cpu: { fetch: number; readPlan: number; planRest: number; apply: number };
}

async function childImport(url: string, token: string, sheet: string, batch: number): Promise<void> {
  const { MerchantClient } = await import('../src/api/merchant-client.js');
  const { applyStockRun, planStockImport } = await import('../src/jobs/stock/stock-import.js');
  const sampler = rssSampler();
  let lastTrace = 0;
  const trace = process.env.BENCH_TRACE
    ? (p: RateProgress) => {
        const now = performance.now();
        if (now - lastTrace < 1000) return;
        lastTrace = now;
        process.stderr.write(
          `trace ${((now - t0) / 1000).toFixed(1)}s rps=${p.rps} limit=${p.rpsLimit?.toFixed(1)} conc=${p.concurrency} inflight=${p.inFlight} req=${p.requests} 429=${p.rateLimited}\n`,
        );
      }
    : undefined;
  const client = new MerchantClient({ baseUrl: url, token, ...(trace ? { onProgress: trace } : {}) });
  const runsRoot = join(dir, 'runs');
  const t0 = performance.now();
  let fetchEnd = t0;
  let readEnd = t0;
  const cpuSeconds = (): number => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1e6;
  };
  const cpu0 = cpuSeconds();
  let cpuFetchEnd = cpu0;
  let cpuReadEnd = cpu0;
  let products = 0;
  let rows = 0;
  const planned = await planStockImport({
    client,
    file: sheet,
    runsRoot,
    target: 'bench',
    batchSize: batch,
    onProgress: (p) => {
      if (p.phase === 'fetch') {
        fetchEnd = performance.now();
        cpuFetchEnd = cpuSeconds();
        products = Number(/(\d+) products/.exec(p.message ?? '')?.[1] ?? 0);
      } else if (p.phase === 'read') {
        readEnd = performance.now();
        cpuReadEnd = cpuSeconds();
        rows = p.done;
      }
    },
  });
  const t1 = performance.now();
  const cpu1 = cpuSeconds();
  const maxRssPlanMB = maxRssMB();
  const applied = await applyStockRun(planned.run, { client });
  const t2 = performance.now();
  const cpu2 = cpuSeconds();
  await client.close();
  sampler.stop();
  const plan = planned.file.plan;
  const figures: ImportFigures = {
    fetchSeconds: (fetchEnd - t0) / 1000,
    products,
    readPlanSeconds: (readEnd - fetchEnd) / 1000,
    rowsPerSecond: rows / ((readEnd - fetchEnd) / 1000),
    planSeconds: (t1 - t0) / 1000,
    applySeconds: (t2 - t1) / 1000,
    totalSeconds: (t2 - t0) / 1000,
    rows: plan.rows,
    changes: plan.changes.length,
    unchanged: plan.unchanged,
    issues: plan.issues.length + plan.skipped.length,
    requests: applied.requests,
    applied: applied.applied,
    failed: applied.failed,
    mode: applied.mode,
    maxRssPlanMB,
    maxRssMB: maxRssMB(),
    sampledPeakMB: sampler.peak(),
    cpu: {
      fetch: cpuFetchEnd - cpu0,
      readPlan: cpuReadEnd - cpuFetchEnd,
      planRest: cpu1 - cpuReadEnd,
      apply: cpu2 - cpu1,
    },
  };
  rmSync(planned.run.dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

// ------------------------------------------------------------------------------------------------
// plan child: read+validate+plan alone, the live index already in memory

interface PlanFigures {
  fetchSeconds: number;
  /** CPU of this (client) process while fetching: JSON + zod parsing of the product pages. */
  fetchCpuSeconds: number;
  items: number;
  papaRowsPerSecond: number;
  runs: { seconds: number; rowsPerSecond: number; changes: number }[];
  maxRssMB: number;
}

async function readPlanOnce(
  file: string,
  index: LiveInventoryIndex,
  checkpoints: number[] = [],
  onCheckpoint: (rows: number) => void = () => {},
): Promise<{ rows: number; seconds: number; changes: number; issues: number }> {
  const { readSheet } = await import('../src/sheets/read-sheet.js');
  const { resolveStockColumns } = await import('../src/mapping/stock-sheet.js');
  const { StockPlanner } = await import('../src/plan/stock-plan.js');
  index.resetSeen();
  const t0 = performance.now();
  const reader = readSheet(file);
  const info = await reader.open();
  const { columns } = resolveStockColumns(info.sheet, info.columns);
  const planner = new StockPlanner(index, columns);
  let rows = 0;
  let next = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) planner.add(row);
    rows += batch.length;
    while (next < checkpoints.length && rows >= (checkpoints[next] as number))
      onCheckpoint(checkpoints[next++] as number);
  }
  const plan = planner.finish();
  const seconds = (performance.now() - t0) / 1000;
  return { rows, seconds, changes: plan.changes.length, issues: plan.issues.length + plan.skipped.length };
}

async function papaRows(file: string): Promise<number> {
  const t0 = performance.now();
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    Papa.parse(createReadStream(file, { highWaterMark: MiB }), {
      step: () => {
        rows++;
      },
      complete: () => resolve(),
      error: (e: Error) => reject(e),
    });
  });
  return (rows - 1) / ((performance.now() - t0) / 1000);
}

async function childPlan(url: string, token: string, sheet: string, repeat: number): Promise<void> {
  const { MerchantClient } = await import('../src/api/merchant-client.js');
  const { readLiveInventory } = await import('../src/jobs/stock/live-inventory.js');
  const client = new MerchantClient({ baseUrl: url, token });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const index = await readLiveInventory(client);
  const fetchSeconds = (performance.now() - t0) / 1000;
  const c1 = process.cpuUsage(c0);
  const fetchCpuSeconds = (c1.user + c1.system) / 1e6;
  await client.close();
  const papaRowsPerSecond = await papaRows(sheet);
  const runs: PlanFigures['runs'] = [];
  for (let r = 0; r < repeat; r++) {
    const m = await readPlanOnce(sheet, index);
    runs.push({ seconds: m.seconds, rowsPerSecond: m.rows / m.seconds, changes: m.changes });
  }
  const figures: PlanFigures = {
    fetchSeconds,
    fetchCpuSeconds,
    items: index.size,
    papaRowsPerSecond,
    runs,
    maxRssMB: maxRssMB(),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

// ------------------------------------------------------------------------------------------------
// big children: a big index in memory, a big sheet

const bigSku = (i: number) => `BIG-${String(i).padStart(7, '0')}`;
const bigQuantity = (i: number) => (i * 7919) % 1000;

function writeBigSheet(path: string, rows: number, items: number, seed: number, fraction: number): void {
  if (existsSync(path)) return;
  const order = shuffled(items, seed);
  const out = new LineFile(path);
  out.line('sku,quantity\n');
  for (let p = 0; p < rows; p++) {
    const i = order[p] as number;
    out.line(`${bigSku(i)},${bigQuantity(i) + (changes(p, rows, fraction) ? 1 + (p % 7) : 0)}\n`);
  }
  out.close();
}

interface BigFigures {
  items: number;
  indexSeconds: number;
  rssAfterIndexMB: number;
  heapAfterIndexMB: number;
  checkpoints: { rows: number; rssMB: number; heapMB: number; maxRssMB: number }[];
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  changes: number;
  issues: number;
  maxRssMB: number;
}

async function childBig(file: string, items: number, marks: number[]): Promise<void> {
  const { LiveInventoryIndex } = await import('../src/plan/live-inventory-index.js');
  const t0 = performance.now();
  const index = new LiveInventoryIndex();
  const updatedAt = '2026-10-01T00:00:00.000Z';
  for (let i = 0; i < items; i++) {
    const product = i >> 2;
    index.add({
      itemId: `inv_${i.toString(36).padStart(8, '0')}`,
      sku: bigSku(i),
      quantity: bigQuantity(i),
      productId: `prod_${product.toString(36).padStart(8, '0')}`,
      variantId: `var_${i.toString(36).padStart(8, '0')}`,
      name: `Product ${product} / Variant ${i & 3}`,
      enabled: true,
      updatedAt,
    });
  }
  const indexSeconds = (performance.now() - t0) / 1000;
  global.gc?.();
  const rssAfterIndexMB = rssMB();
  const heapAfterIndexMB = heapMB();
  const checkpoints: BigFigures['checkpoints'] = [];
  const m = await readPlanOnce(file, index, marks, (rows) =>
    checkpoints.push({ rows, rssMB: rssMB(), heapMB: heapMB(), maxRssMB: maxRssMB() }),
  );
  const figures: BigFigures = {
    items,
    indexSeconds,
    rssAfterIndexMB,
    heapAfterIndexMB,
    checkpoints,
    rows: m.rows,
    seconds: m.seconds,
    rowsPerSecond: m.rows / m.seconds,
    changes: m.changes,
    issues: m.issues,
    maxRssMB: maxRssMB(),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

// ------------------------------------------------------------------------------------------------
// parent

function runChild<T>(args: string[], label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const extra = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...extra, ...process.execArgv, self, '--child', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      if (process.env.BENCH_TRACE && text.startsWith('trace ')) process.stderr.write(text);
      else err += text;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // The last JSON line (a child run with --trace-gc prints its GC lines on stdout too).
      const lines = out.trim().split('\n');
      if (process.env.BENCH_TRACE)
        for (const l of lines) if (l.startsWith('[')) process.stderr.write(`${l}\n`);
      const line = lines.filter((l) => l.startsWith('{')).at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{'))
        reject(new Error(`${label} failed (exit ${code}):\n${err}${out}`));
      else resolve(JSON.parse(line) as T);
    });
  });
}

interface SandboxReady {
  url: string;
  token: string;
  items: number;
  visible: number;
  hidden: number;
  rows: number;
  changed: number;
  buildSeconds: number;
  loadSeconds: number;
  /** Rendering every product's JSON (absent with --cold-sandbox). */
  warmSeconds?: number;
  maxRssMB: number;
}
interface SandboxStats {
  gets: number;
  productPages: number;
  writes: number;
  refusedWrites: number;
  batchPosts: number;
  writeStatuses: number[];
}

async function startSandboxChild(a: Args, sheet: string) {
  const child = spawn(
    process.execPath,
    // The sandbox holds the whole generated store (several GB at a million items): a bigger heap
    // for it alone; the importing process keeps the default.
    ['--max-old-space-size=12288', ...process.execArgv, self, '--child', 'sandbox', JSON.stringify(a), sheet],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextJson = async <T>(): Promise<T> => {
    const r = await lines.next();
    if (r.done) throw new Error('the sandbox child exited');
    return JSON.parse(r.value as string) as T;
  };
  const ready = await nextJson<SandboxReady>();
  return {
    ready,
    stats: async (): Promise<SandboxStats> => {
      child.stdin.write('stats\n');
      return nextJson<SandboxStats>();
    },
    close: async (): Promise<void> => {
      child.stdin.write('exit\n');
      await new Promise((r) => child.once('close', r));
    },
  };
}

interface BareChain {
  pages: number;
  meanMs: number;
  medianMs: number;
}

/**
 * The round trip of one list page as a bare client sees it on this machine: the larger partition
 * read page after page with undici, no parsing (the next cursor is cut from the end of the body),
 * no validation, no rate control. Run after the imports, so the sandbox serves every page from its
 * warm JSON cache: the figure is on the low side, never in our favour.
 */
async function bareChain(url: string, token: string, maxPages: number): Promise<BareChain> {
  const { Agent, request } = await import('undici');
  const { peekNextCursor } = await import('../src/api/paginate.js');
  const agent = new Agent();
  const times: number[] = [];
  let cursor: string | null = null;
  try {
    while (times.length < maxPages) {
      const t = performance.now();
      const query = `limit=100&status=VISIBLE${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await request(`${url}/api/v2/products?${query}`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}` },
      });
      // Bytes, not text: decoding a 260 KB page into one string costs ~1.5 ms here, which a client
      // can leave until after the next request left (as MerchantClient does); only the end is read.
      const bytes = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode === 429) {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      times.push(performance.now() - t);
      // The client's own peek (undefined when the page says null: the last page).
      const next = peekNextCursor(bytes.toString('utf8', Math.max(0, bytes.length - 1024)));
      if (next === undefined) break;
      cursor = next;
    }
  } finally {
    await agent.close();
  }
  const sorted = [...times].sort((x, y) => x - y);
  return {
    pages: times.length,
    meanMs: times.reduce((x, y) => x + y, 0) / Math.max(1, times.length),
    medianMs: sorted[sorted.length >> 1] ?? 0,
  };
}

/**
 * The physical bound of the import (issue 26): the requests it cannot avoid (every list page of
 * both status partitions, then ceil(changed / batch) batch writes) at the rate limit, or the
 * latency of the longest chain of requests that must follow each other (the larger partition's
 * pages, cursor after cursor, then the writes), whichever is larger.
 */
function requestBound(s: SandboxReady, writes: number, a: Args) {
  const pagesOf = (n: number) => Math.max(1, Math.ceil(n / 100));
  const pages = pagesOf(s.visible) + pagesOf(s.hidden);
  const requests = pages + writes;
  const rateSeconds = a.rate > 0 ? requests / a.rate : 0;
  const writeSeconds = a.rate > 0 ? writes / a.rate : 0;
  const largestPartitionPages = Math.max(pagesOf(s.visible), pagesOf(s.hidden));
  const latencySeconds = ((largestPartitionPages + writes) * a.latency) / 1000;
  const unpartitionedLatencySeconds = ((pagesOf(s.visible + s.hidden) + writes) * a.latency) / 1000;
  return {
    rate: a.rate,
    pages,
    largestPartitionPages,
    requests,
    rateSeconds,
    writeSeconds,
    latencySeconds,
    unpartitionedLatencySeconds,
    seconds: Math.max(rateSeconds, latencySeconds),
  };
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
/** A ratio against a target: three decimals, so that 1.152 does not print as the 1.15 it misses. */
const ratio3 = (n: number) => n.toFixed(3);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
/** Peak RSS target of the importing process: 400 MB up to 200k items, 1 GB at a million (issue 26). */
const rssTarget = (items: number) => (items > 200_000 ? 1000 : 400);

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    const [kind, ...rest] = argv.slice(1);
    if (kind === 'sandbox') return childSandbox(JSON.parse(rest[0] as string) as Args, rest[1] as string);
    if (kind === 'import')
      return childImport(rest[0] as string, rest[1] as string, rest[2] as string, Number(rest[3]));
    if (kind === 'plan')
      return childPlan(rest[0] as string, rest[1] as string, rest[2] as string, Number(rest[3]));
    if (kind === 'big')
      return childBig(rest[0] as string, Number(rest[1]), (rest[2] ?? '').split(',').map(Number));
    throw new Error(`unknown child ${String(kind)}`);
  }
  const a = parseArgs(argv);
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  console.log(
    `stock bench: ${int(a.products)} products x ${a.variants} variants, sheet of ${int(a.rows)} rows, ` +
      `${a.changed * 100}% changed, batch ${a.batch}, latency ${a.latency} ms; node ${process.version}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );

  const sheet = join(dir, `stock-${a.products}x${a.variants}-${a.rows}-s${a.seed}.csv`);
  const sandbox = await startSandboxChild(a, sheet);
  const s = sandbox.ready;
  console.log(
    `sandbox child: store built in ${f1(s.buildSeconds)} s, loaded in ${f1(s.loadSeconds)} s, ` +
      (s.warmSeconds === undefined
        ? 'cold (--cold-sandbox: no warming pass; each product is kept as its JSON anyway), '
        : `every product's JSON rendered in ${f1(s.warmSeconds)} s, `) +
      `${int(s.items)} items, ` +
      `peak RSS ${f1(s.maxRssMB)} MB; sheet ${sheet} (${int(s.rows)} rows, ${int(s.changed)} changed)`,
  );
  const expected = Math.ceil(s.changed / a.batch);
  const bound = requestBound(s, expected, a);

  let first: ImportFigures;
  let again: ImportFigures;
  let plan: PlanFigures | undefined;
  let chain: BareChain | undefined;
  const log: SandboxStats[] = [];
  try {
    log.push(await sandbox.stats());
    first = await runChild<ImportFigures>(['import', s.url, s.token, sheet, String(a.batch)], 'import');
    log.push(await sandbox.stats());
    again = await runChild<ImportFigures>(['import', s.url, s.token, sheet, String(a.batch)], 're-run');
    log.push(await sandbox.stats());
    if (a.repeat > 0)
      plan = await runChild<PlanFigures>(['plan', s.url, s.token, sheet, String(a.repeat)], 'plan');
    if (a.rate > 0 || a.latency > 0) chain = await bareChain(s.url, s.token, a.chainPages);
  } finally {
    await sandbox.close();
  }
  /** What the sandbox logged during step k (0: first run, 1: re-run). */
  const during = (k: number) => {
    const from = log[k] as SandboxStats;
    const to = log[k + 1] as SandboxStats;
    return {
      writes: to.writes - from.writes,
      refusedWrites: to.refusedWrites - from.refusedWrites,
      batchPosts: to.batchPosts - from.batchPosts,
      productPages: to.productPages - from.productPages,
      writeStatuses: to.writeStatuses,
    };
  };
  const stats1 = during(0);
  const stats2 = during(1);
  const writes2 = stats2.writes;

  console.log('\n## Import (planStockImport + applyStockRun), importing process separate from the sandbox\n');
  console.log(
    '| run | live fetch | products / pages | read+validate+plan | rows/s | plan total | apply | changes | write requests (client / sandbox log) | peak RSS (plan / whole run) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [label, f, w, pages] of [
    ['first', first, stats1.writes, stats1.productPages],
    ['re-run', again, stats2.writes, stats2.productPages],
  ] as const) {
    console.log(
      `| ${label} | ${f2(f.fetchSeconds)} s | ${int(f.products)} / ${int(pages)} | ${f2(f.readPlanSeconds)} s | ${int(f.rowsPerSecond)} | ` +
        `${f2(f.planSeconds)} s | ${f2(f.applySeconds)} s | ${int(f.changes)} | ${f.requests} / ${w} | ${f1(f.maxRssPlanMB)} / ${f1(f.maxRssMB)} MB |`,
    );
  }
  console.log(
    '\nAfter the live fetch, by phase: wall (CPU of the importing process), the fixed costs of a run that must not grow faster than the read:\n',
  );
  console.log(
    '| run | live fetch | rows planned after it | plan file, report | apply | after the fetch, total |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [label, f] of [
    ['first', first],
    ['re-run', again],
  ] as const) {
    const rest = f.planSeconds - f.fetchSeconds - f.readPlanSeconds;
    const after = f.readPlanSeconds + rest + f.applySeconds;
    const cpuAfter = f.cpu.readPlan + f.cpu.planRest + f.cpu.apply;
    console.log(
      `| ${label} | ${f2(f.fetchSeconds)} s (${f2(f.cpu.fetch)} s) | ${f2(f.readPlanSeconds)} s (${f2(f.cpu.readPlan)} s) | ` +
        `${f2(rest)} s (${f2(f.cpu.planRest)} s) | ${f2(f.applySeconds)} s (${f2(f.cpu.apply)} s) | ${f2(after)} s (${f2(cpuAfter)} s) |`,
    );
  }
  const bestPlan = plan?.runs.reduce((b, r) => (r.rowsPerSecond > b.rowsPerSecond ? r : b));
  if (plan) {
    console.log(
      `\nread+validate+plan alone (index in memory, ${int(plan.items)} items fetched in ${f2(plan.fetchSeconds)} s, ${f2(plan.fetchCpuSeconds)} s of it client CPU): ` +
        plan.runs.map((r) => `${int(r.rowsPerSecond)}`).join(', ') +
        ` rows/s; papaparse alone on the same file: ${int(plan.papaRowsPerSecond)} rows/s; peak RSS ${f1(plan.maxRssMB)} MB`,
    );
  }
  // The sequential bound with the round trip a bare client measured (transfer of ~260 KB pages
  // and the server's own overhead included), when measured: the larger of the two bounds counts.
  const pagesOfLargest = bound.largestPartitionPages;
  const measuredSeconds = chain ? (pagesOfLargest * chain.meanMs + expected * a.latency) / 1000 : 0;
  const final = Math.max(bound.seconds, measuredSeconds);
  const finalNoWrites = Math.max(
    bound.seconds - bound.writeSeconds,
    measuredSeconds - (expected * a.latency) / 1000,
  );
  console.log(
    `\n## Against the physical bound (${bound.rate > 0 ? `${bound.rate} requests/s` : 'no rate limit'}, ${a.latency} ms latency)\n`,
  );
  console.log(
    `requests needed: ${int(bound.pages)} list pages (${int(s.visible)} VISIBLE + ${int(s.hidden)} HIDDEN products, 100 a page) + ` +
      `${int(expected)} batch writes = ${int(bound.requests)}; rate bound ${f2(bound.rateSeconds)} s, ` +
      `latency bound ${f2(bound.latencySeconds)} s (largest partition's pages in sequence at the injected latency; ${f2(bound.unpartitionedLatencySeconds)} s for one unfiltered listing) ` +
      `-> request bound ${f2(bound.seconds)} s`,
  );
  if (chain) {
    console.log(
      `sequential bound as measured: a bare client (undici, no parsing) read ${int(chain.pages)} VISIBLE pages in sequence at ` +
        `${f2(chain.meanMs)} ms a page (median ${f2(chain.medianMs)}), so the largest partition's ${int(pagesOfLargest)} pages take ` +
        `${f2((pagesOfLargest * chain.meanMs) / 1000)} s + the writes -> ${f2(measuredSeconds)} s; bound ${f2(final)} s`,
    );
  }
  if (bound.seconds > 0) {
    const ratios = (t: number, b: number, b2: number) => `${f2(t / b)}${chain ? ` | ${f2(t / b2)}` : ''}`;
    console.log(
      `| run | end to end | ÷ request bound${chain ? ' | ÷ bound incl. measured sequential' : ''} | pages read | writes |\n` +
        `|---|---|---|${chain ? '---|' : ''}---|---|\n` +
        `| first | ${f2(first.totalSeconds)} s | ${ratios(first.totalSeconds, bound.seconds, final)} | ${int(stats1.productPages)} | ${stats1.writes} |\n` +
        `| re-run | ${f2(again.totalSeconds)} s | ${ratios(again.totalSeconds, bound.seconds - bound.writeSeconds, finalNoWrites)} (bounds without writes) | ${int(stats2.productPages)} | ${stats2.writes} |`,
    );
  }

  let big: BigFigures | undefined;
  let quarter: BigFigures | undefined;
  if (!a.skipBig && a.big > 0) {
    const bigFile = join(dir, `big-${a.big}-s${a.seed}.csv`);
    const quarterFile = join(dir, `big-${a.big}-first-${Math.round(a.big / 4)}-s${a.seed}.csv`);
    writeBigSheet(bigFile, a.big, a.big, a.seed, a.changed);
    writeBigSheet(quarterFile, Math.round(a.big / 4), a.big, a.seed, a.changed);
    const marks = [1, 2, 3, 4].map((k) => Math.round((a.big * k) / 4)).join(',');
    quarter = await runChild<BigFigures>(['big', quarterFile, String(a.big), marks], 'big (quarter)');
    big = await runChild<BigFigures>(['big', bigFile, String(a.big), marks], 'big');
    console.log(
      `\n## ${int(a.big)}-row sheet, read+validate+plan against a ${int(a.big)}-item index built in memory\n`,
    );
    console.log(
      '| sheet | index built | RSS after index | rows read | RSS now | heap used | peak RSS so far |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [label, b] of [
      [`${int(quarter.rows)} rows`, quarter],
      [`${int(big.rows)} rows`, big],
    ] as const) {
      for (const c of b.checkpoints) {
        console.log(
          `| ${label} | ${f1(b.indexSeconds)} s | ${f1(b.rssAfterIndexMB)} MB | ${int(c.rows)} | ${f1(c.rssMB)} MB | ${f1(c.heapMB)} MB | ${f1(c.maxRssMB)} MB |`,
        );
      }
    }
    console.log(
      `\n${int(big.rows)} rows in ${f2(big.seconds)} s = ${int(big.rowsPerSecond)} rows/s (${int(big.changes)} changes, ${big.issues} issues), ` +
        `peak RSS ${f1(big.maxRssMB)} MB; the ${int(quarter.rows)}-row file: ${int(quarter.rowsPerSecond)} rows/s, peak RSS ${f1(quarter.maxRssMB)} MB`,
    );
  }

  console.log('\n## Targets\n');
  const planRate = bestPlan?.rowsPerSecond ?? first.rowsPerSecond;
  console.log(
    `- read+validate+plan >= 150,000 rows/s: in the job ${int(first.rowsPerSecond)}, alone best ${bestPlan ? int(bestPlan.rowsPerSecond) : '(not run)'} -> ${mark(planRate >= 150_000)}`,
  );
  if (bound.seconds > 0)
    console.log(
      `- end to end <= 1.15 x the request bound (${f2(bound.seconds)} s): ${f2(first.totalSeconds)} s = ${ratio3(first.totalSeconds / bound.seconds)} x (1.15 x is ${f2(1.15 * bound.seconds)} s) -> ${mark(first.totalSeconds <= 1.15 * bound.seconds)}`,
    );
  if (chain && measuredSeconds > bound.seconds)
    console.log(
      `- end to end <= 1.15 x the bound with the measured sequential read (${f2(final)} s): ${f2(first.totalSeconds)} s = ${ratio3(first.totalSeconds / final)} x -> ${mark(first.totalSeconds <= 1.15 * final)}`,
    );
  console.log(
    `- write requests = ceil(${s.changed} / ${a.batch}) = ${expected}: client ${first.requests}, sandbox log ${stats1.writes} applied, ${stats1.refusedWrites} refused with 429 and retried (${stats1.batchPosts} batch POSTs, statuses ${stats1.writeStatuses.join(',')}) -> ${mark(first.requests === expected && stats1.writes === expected && first.applied === s.changed)}`,
  );
  console.log(
    `- re-run writes nothing: ${again.changes} changes, client ${again.requests}, sandbox log ${writes2} -> ${mark(again.changes === 0 && again.requests === 0 && writes2 === 0)}`,
  );
  console.log(
    `- peak RSS of the importing process < ${rssTarget(s.items)} MB: ${f1(first.maxRssMB)} MB (re-run ${f1(again.maxRssMB)} MB) -> ${mark(Math.max(first.maxRssMB, again.maxRssMB) < rssTarget(s.items))}`,
  );
  if (big && quarter) {
    const at = (b: BigFigures, rows: number) => b.checkpoints.find((c) => c.rows === rows);
    const q = at(big, Math.round(a.big / 4)) ?? big.checkpoints[0];
    const last = big.checkpoints.at(-1);
    const growth = (last?.rssMB ?? 0) - (q?.rssMB ?? 0);
    const peakGrowth = big.maxRssMB - quarter.maxRssMB;
    console.log(
      `- RSS flat with the file (the ${int(a.big)}-item index alone is ${f1(big.rssAfterIndexMB)} MB): ` +
        `${int(a.big)}-row sheet at ${int(q?.rows ?? 0)} rows ${f1(q?.rssMB ?? 0)} MB, at ${int(last?.rows ?? 0)} rows ${f1(last?.rssMB ?? 0)} MB (${growth >= 0 ? '+' : ''}${f1(growth)} MB); ` +
        `peak ${f1(quarter.maxRssMB)} MB (${int(quarter.rows)}-row file) vs ${f1(big.maxRssMB)} MB (${int(big.rows)}-row file) -> ` +
        `${mark(growth < 50 && peakGrowth < 50)}`,
    );
  }
  console.log(`\ntotal ${f1((performance.now() - started) / 1000)} s`);
}

await main();
