/**
 * Catalog import benchmark: N products × 3 variants (default N = 10,000) planned against a sandbox
 * store holding those N products, with 10% of them changed on the sheet.
 *
 *   npx tsx bench/catalog.bench.ts [products]      (e.g. 2000 for a quick run)
 *   npx tsx bench/catalog.bench.ts --sheets N DIR   (only write DIR/catalog.csv and DIR/catalog.xlsx)
 *   npx tsx bench/catalog.bench.ts 333334 --dry-run --no-xlsx --rate 50 --latency 20
 *       (issue 26: a 1M-variant plan, dry run, against a sandbox at 50 requests/s and 20 ms; prints
 *       the plan's time against the physical bound: ceil(N / 100) list pages / rate, or the pages'
 *       latency in sequence, whichever is larger)
 *
 * The sandbox runs in a child process (this file with `--sandbox N`), and each import (plan +
 * apply, as `mbulk import products FILE --apply` does it) runs in a fresh child (`--import-once`),
 * so each peak RSS printed is one import's own.
 *
 * Prints: read+validate rows/s (CSV and XLSX), live fetch time, plan time, apply time, write
 * count (must equal the changed products) and writes on a re-run (must be 0), and peak RSS.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MerchantClient } from '../src/api/merchant-client.js';
import { undiciRequestLike } from '../src/api/transport.js';
import { csvField } from '../src/sheets/csv-file-writer.js';
import { applyProductRun, planProductImport } from '../src/jobs/products/product-import.js';
import { readProductSheets } from '../src/jobs/products/product-sheets.js';
import { generateStore } from '../src/sandbox/generator.js';
import { startSandbox } from '../src/sandbox/server.js';
import type { ProductCreate } from '../src/schema/index.js';
import { sandboxChildAddress } from './sandbox-child-address.js';

const argv = process.argv.slice(2);
/** `--name value` options (issue 26's million-SKU run), taken out of the positional arguments. */
function option(name: string): number | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const [, value] = argv.splice(i, 2);
  return Number(value);
}
function flag(name: string): boolean {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
}
/** Sandbox latency (ms, ±50%) and rate limit (requests/s): 0 means none. */
const LATENCY = option('latency') ?? 0;
const RATE = option('rate') ?? 0;
const CHANGED_SHARE = option('changed') ?? 0.1;
const NEW_SHARE = option('new') ?? 0;
/** Plan only (`mbulk import products FILE` without --apply): the 1M-variant bench. */
const DRY_RUN = flag('dry-run');
const SKIP_XLSX = flag('no-xlsx');
const args = argv;
const mode = args[0]?.startsWith('--') ? args.shift() : undefined;
const N = Number(args[0] ?? 10_000);
/** Share of the store's products the sheet changes (`--changed 0.01`: issue 41's 1%; default 10%). */
const CHANGED_EVERY = Math.max(1, Math.round(1 / (CHANGED_SHARE > 0 ? CHANGED_SHARE : 0.1)));
/** Products on the sheet the store does not have (`--new 0.001`: issue 41's 0.1%; default none). */
const NEW = Math.round(N * NEW_SHARE);
const CHANGED = Math.floor(N / CHANGED_EVERY);
const COLUMNS = [
  'reference_id',
  'sku',
  'name',
  'description',
  'status',
  'type',
  'price',
  'original_price',
  'weight',
  'tags',
  'category_ids',
  'images',
  'inventory_enabled',
  'variant_sku',
  'variant_name',
  'variant_price',
  'variant_original_price',
  'variant_weight',
  'variant_inventory_quantity',
  'variant_description',
] as const;
const VARIANTS = ['Small', 'Medium', 'Large'];

function live(i: number): ProductCreate {
  const ref = `BN-${String(i).padStart(6, '0')}`;
  const price = 1000 + (i % 500) * 10;
  return {
    reference_id: ref,
    sku: ref,
    name: `Bench product ${i}`,
    description: `Product ${i}, a plain description.`,
    status: 'VISIBLE',
    type: 'PHYSICAL',
    price,
    original_price: 0,
    weight: 100 + (i % 50),
    tags: ['bench', `group-${i % 20}`],
    category_ids: [`cat_${i % 12}`],
    images: [`http://bench.local/__sandbox/images/${ref}.png`],
    inventory_enabled: true,
    variants: VARIANTS.map((v, n) => ({
      name: v,
      sku: `${ref}-${v[0] as string}`,
      price: price + n * 100,
      original_price: 0,
      weight: 100 + n,
      inventory_quantity: 10 + ((i + n) % 90),
      description: `${v} size`,
    })),
  };
}

const money = (minor: number) => (minor / 100).toFixed(2);

/** Sheet rows of product i (3 rows); a changed product has a new price on its product and first variant. */
function sheetRows(i: number): string[][] {
  const p = live(i);
  const changed = i <= N && i % CHANGED_EVERY === 0;
  const price = changed ? p.price + 55 : p.price;
  return (p.variants ?? []).map((v, n) => [
    p.reference_id ?? '',
    p.sku ?? '',
    p.name,
    p.description ?? '',
    p.status ?? '',
    p.type ?? '',
    money(price),
    money(p.original_price ?? 0),
    String(p.weight),
    (p.tags ?? []).join('|'),
    (p.category_ids ?? []).join('|'),
    (p.images ?? []).join('|'),
    'true',
    v.sku ?? '',
    v.name,
    money(changed && n === 0 ? v.price + 55 : v.price),
    money(v.original_price ?? 0),
    String(v.weight),
    String(v.inventory_quantity),
    v.description ?? '',
  ]);
}

async function writeCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  let buf = `${COLUMNS.join(',')}\n`;
  for (let i = 1; i <= N + NEW; i++) {
    for (const r of sheetRows(i)) buf += `${r.map((cell) => csvField(cell)).join(',')}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

async function writeXlsx(file: string): Promise<void> {
  // Loaded here only: the importing child (this file too) must not pay exceljs's start-up, as a CSV job does not.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false });
  const ws = wb.addWorksheet('products');
  ws.addRow([...COLUMNS]).commit();
  const numeric = new Set([6, 7, 8, 15, 16, 17, 18]);
  for (let i = 1; i <= N + NEW; i++) {
    for (const r of sheetRows(i)) ws.addRow(r.map((v, c) => (numeric.has(c) ? Number(v) : v))).commit();
  }
  ws.commit();
  await wb.commit();
}

/** Peak RSS so far, for the phase lines. */
function peak(): string {
  return `bench process peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-catalog-bench-'));
  const csv = join(dir, 'catalog.csv');
  const xlsx = join(dir, 'catalog.xlsx');
  const rows = (N + NEW) * VARIANTS.length;
  console.log(
    `catalog bench: ${N} products × ${VARIANTS.length} variants in the store, ${rows} rows on the sheet, ${CHANGED} changed, ${NEW} new · load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} · ${cpus().length} cores`,
  );

  let t = performance.now();
  // Written by a child process, so that the RSS below is the importer's alone.
  const gen = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--sheets',
      String(N),
      dir,
      '--changed',
      String(CHANGED_SHARE),
      '--new',
      String(NEW_SHARE),
      ...(SKIP_XLSX ? ['--no-xlsx'] : []),
    ],
    {
      stdio: 'inherit',
    },
  );
  if (gen.status !== 0) throw new Error('writing the sheets failed');
  console.log(
    `  sheets written in ${((performance.now() - t) / 1000).toFixed(1)} s (CSV ${mb(statSync(csv).size)}${SKIP_XLSX ? '' : `, XLSX ${mb(statSync(xlsx).size)}`})`,
  );

  // Read + validate (the job's reader and mapper), each format on its own.
  const mapping = { decimals: 2 };
  const formats: (readonly [string, string])[] = [['CSV', csv]];
  if (!SKIP_XLSX) formats.push(['XLSX', xlsx]);
  for (const [label, file] of DRY_RUN ? [] : formats) {
    const rates: string[] = [];
    let r = await readProductSheets({ file, mapping });
    for (let pass = 0; pass < 2; pass++) {
      if (pass > 0) r = await readProductSheets({ file, mapping });
      rates.push(`${Math.round(r.rows / r.seconds)} rows/s (${r.seconds.toFixed(2)} s)`);
    }
    const errors = r.mapping.issues.filter((i) => i.severity === 'error').length;
    console.log(
      `  read+validate ${label}: ${r.rows} rows: first pass ${rates[0] ?? ''}, second pass ${rates[1] ?? ''} (${r.mapping.products.length} products, ${errors} errors) · ${peak()}`,
    );
  }

  // The store: the same N products, unchanged, in a child process.
  t = performance.now();
  const sandbox = await startChildSandbox();
  console.log(
    `  sandbox (child process) seeded with ${N} products in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const runsRoot = join(dir, 'runs');
  const importOnce = (file: string): ImportFigures => {
    const r = spawnSync(
      process.execPath,
      [
        // BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" (or --heap-prof …): the importing child's.
        ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--import-once',
        file,
        sandbox.url,
        sandbox.token,
        runsRoot,
        ...(DRY_RUN ? ['--dry-run'] : []),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
    );
    if (r.status !== 0) throw new Error(`import child failed (${String(r.status)})`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as ImportFigures;
  };
  try {
    if (DRY_RUN) {
      // The plan alone (`mbulk import products catalog.csv`), against the physical bound.
      await sandbox.clearRequestLog();
      const p = importOnce(csv);
      const lists = (await sandbox.requestLog()).filter(
        (e) => e.method === 'GET' && e.path.startsWith('/api/v2/products'),
      ).length;
      const pages = Math.max(1, Math.ceil(N / 100));
      const bound = Math.max(RATE > 0 ? pages / RATE : 0, (pages * LATENCY) / 1000);
      console.log(
        `  plan (dry run), ${RATE > 0 ? `${RATE} requests/s` : 'no rate limit'}, ${LATENCY} ms latency: ` +
          `read+validate ${p.read.toFixed(2)} s (${Math.round(p.rows / p.read)} rows/s) · live fetch ${p.fetch.toFixed(2)} s ` +
          `(${p.liveCount} products, ${lists} list requests; the bound needs ${pages}) · plan ${p.plan.toFixed(2)} s ` +
          `(update ${p.summary.update} · noop ${p.summary.noop} · create ${p.summary.create} · invalid ${p.summary.invalid}) · ` +
          `end to end ${p.planTotal.toFixed(2)} s · CPU ${p.planCpu.toFixed(2)} s · peak RSS ${mb(p.peakRss)}`,
      );
      if (bound > 0)
        console.log(
          `  bound ${bound.toFixed(2)} s (${pages} pages at ${RATE || '∞'}/s, or ${pages} x ${LATENCY} ms in sequence): ` +
            `end to end ÷ bound = ${(p.planTotal / bound).toFixed(2)} (target <= 1.2), peak RSS < 1 GB: ${p.peakRss < 1e9 ? 'ok' : 'MISSED'}`,
        );
      return;
    }
    // One import as `mbulk import products catalog.csv --apply` does it, in a fresh process.
    await sandbox.clearRequestLog();
    const first = importOnce(csv);
    const log = await sandbox.requestLog();
    const lists = log.filter((e) => e.method === 'GET' && e.path.startsWith('/api/v2/products')).length;
    // Writes the store applied; a write refused with 429 (rate limit) and sent again is counted apart.
    const writes = log.filter((e) => e.method !== 'GET' && e.status < 300).length;
    const refused = log.filter((e) => e.method !== 'GET' && e.status === 429).length;
    console.log(
      `  import CSV: read+validate ${first.read.toFixed(2)} s (${Math.round(first.rows / first.read)} rows/s) · live fetch ${first.fetch.toFixed(2)} s (${first.liveCount} products, ${lists} list requests) · plan ${first.plan.toFixed(2)} s (update ${first.summary.update} · noop ${first.summary.noop} · create ${first.summary.create} · invalid ${first.summary.invalid})`,
    );
    const expected = CHANGED + NEW;
    const pages = Math.max(1, Math.ceil(N / 100));
    const listBound = Math.max(RATE > 0 ? pages / RATE : 0, (pages * LATENCY) / 1000);
    const writeBound = RATE > 0 ? expected / RATE : 0;
    console.log(
      `  apply: ${first.updated} updated, ${first.created} created, ${first.failed} failed in ${first.apply.toFixed(2)} s (concurrency 8; CPU: plan ${first.planCpu.toFixed(2)} s, apply ${first.applyCpu.toFixed(2)} s) · write requests applied ${writes} (changed + new products ${expected}) ${writes === expected ? 'OK' : 'MISMATCH'}, ${refused} refused with 429 and sent again · other requests while applying ${first.applyReads} · peak RSS ${mb(first.peakRss)}`,
    );
    if (listBound > 0)
      console.log(
        `  plan + apply ${(first.planTotal + first.apply).toFixed(2)} s against the bound ${(listBound + writeBound).toFixed(2)} s (${pages} pages + ${expected} writes at ${RATE || '∞'}/s): ratio ${((first.planTotal + first.apply) / (listBound + writeBound)).toFixed(2)} (target <= 1.2); plan alone ${first.planTotal.toFixed(2)} s ÷ ${listBound.toFixed(2)} s = ${(first.planTotal / listBound).toFixed(2)}`,
      );
    await sandbox.clearRequestLog();
    const again = importOnce(csv);
    const rerunWrites = (await sandbox.requestLog()).filter((e) => e.method !== 'GET').length;
    console.log(
      `  re-run CSV: noop ${again.summary.noop}/${again.summary.total} · write requests ${rerunWrites} ${rerunWrites === 0 ? 'OK' : 'MISMATCH'} · peak RSS ${mb(again.peakRss)}`,
    );

    if (SKIP_XLSX) return;
    await sandbox.clearRequestLog();
    const x = importOnce(xlsx);
    const xlsxWrites = (await sandbox.requestLog()).filter((e) => e.method !== 'GET').length;
    console.log(
      `  re-run XLSX: read+validate ${x.read.toFixed(2)} s (${Math.round(x.rows / x.read)} rows/s) · noop ${x.summary.noop}/${x.summary.total} · write requests ${xlsxWrites} ${xlsxWrites === 0 ? 'OK' : 'MISMATCH'} · peak RSS ${mb(x.peakRss)}`,
    );
  } finally {
    sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ImportFigures {
  rows: number;
  read: number;
  fetch: number;
  plan: number;
  /** Everything `mbulk import products FILE` does before it could apply: read, fetch, plan, run directory. */
  planTotal: number;
  apply: number;
  liveCount: number;
  summary: { total: number; create: number; update: number; noop: number; invalid: number };
  updated: number;
  created: number;
  failed: number;
  /** Requests other than writes the apply sent (write-time checks). */
  applyReads: number;
  peakRss: number;
  /** CPU seconds (user + system) of the importing process: the plan's, and the apply's. */
  planCpu: number;
  applyCpu: number;
}

/** The child: plan + apply one file (what `mbulk import products FILE --apply` does) and print figures. */
async function importOnceChild(file: string, url: string, token: string, runsRoot: string): Promise<void> {
  const client = new MerchantClient({ baseUrl: url, token });
  const t0 = performance.now();
  const planned = await planProductImport({ client, file, runsRoot, target: 'bench' });
  const planTotal = (performance.now() - t0) / 1000;
  const planUsage = process.cpuUsage();
  let reads = 0;
  const applied = DRY_RUN
    ? { seconds: 0, updated: 0, created: 0, failed: 0, requests: 0 }
    : await (async () => {
        const counting = new MerchantClient({
          baseUrl: url,
          token,
          fetch: (u, init) => {
            if (init.method === 'GET') reads++;
            return undiciRequestLike(u, init);
          },
        });
        return applyProductRun(planned.run, { client: counting, concurrency: 8 });
      })();
  const figures: ImportFigures = {
    rows: planned.file.rows,
    ...planned.timings,
    planTotal,
    apply: applied.seconds,
    liveCount: planned.file.plan.liveCount,
    summary: planned.file.plan.summary,
    updated: applied.updated,
    created: applied.created,
    failed: applied.failed,
    applyReads: reads,
    peakRss: process.resourceUsage().maxRSS * 1024,
    planCpu: (planUsage.user + planUsage.system) / 1e6,
    applyCpu: (() => {
      const all = process.cpuUsage(planUsage);
      return (all.user + all.system) / 1e6;
    })(),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

interface LogEntry {
  method: string;
  path: string;
  status: number;
}

/** Starts this file with `--sandbox N` and reads `{url, token}` from its first line. */
async function startChildSandbox() {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--sandbox',
      String(N),
      '--latency',
      String(LATENCY),
      '--rate',
      String(RATE),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const { url, token } = await sandboxChildAddress(child);
  return {
    url,
    token,
    async requestLog(): Promise<LogEntry[]> {
      const res = await fetch(`${url}/__sandbox/requests`, { headers: { connection: 'close' } });
      const body = (await res.json()) as LogEntry[] | { data: LogEntry[] };
      return Array.isArray(body) ? body : body.data;
    },
    async clearRequestLog(): Promise<void> {
      await fetch(`${url}/__sandbox/requests`, { method: 'DELETE', headers: { connection: 'close' } });
    },
    close(): void {
      child.kill('SIGTERM');
    },
  };
}

/** The child: a sandbox holding the N products; lives until its parent closes stdin or kills it. */
async function sandboxChild(): Promise<void> {
  const seed = generateStore({ products: 0, customers: 0, orders: 0, currency: 'MYR' });
  const sandbox = await startSandbox({
    seed,
    ...(LATENCY > 0 ? { latencyMs: LATENCY } : {}),
    ...(RATE > 0 ? { rateLimitRps: RATE } : {}),
  });
  for (let i = 1; i <= N; i++) sandbox.store.createProduct(live(i));
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, token: sandbox.token })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
}

if (mode === '--sandbox') await sandboxChild();
else if (mode === '--import-once') {
  const [file, url, token, runsRoot] = args as [string, string, string, string];
  await importOnceChild(file, url, token, runsRoot);
} else if (mode === '--sheets') {
  const dir = args[1] ?? '.';
  await writeCsv(join(dir, 'catalog.csv'));
  if (!SKIP_XLSX) await writeXlsx(join(dir, 'catalog.xlsx'));
} else await main();
