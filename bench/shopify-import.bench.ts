/**
 * Shopify migration benchmark (issues 13 and 41): a generated Shopify product export of ROWS rows
 * (default 50,000: ROWS/4 products, each 3 variant rows (Color / Size) and 1 image-only row, with
 * HTML descriptions holding lists, a table, entities and a script) planned against a store that
 * already holds every other product (10% of those at another price).
 *
 *   npx tsx bench/shopify-import.bench.ts [rows]          (e.g. 1000000: issue 41's million rows)
 *
 * The plan is `mbulk import products FILE` (dry run) as the CLI makes it (planProductImport: the
 * sheet read, converted and validated while the live catalog is read from a sandbox in a child
 * process, without latency or rate limit, so the figure is our code), in a fresh child process, so
 * its peak RSS is the import's own. The store is prepared first (not timed) by the sandbox child.
 *
 * Target: read + convert + validate + plan at >= 20,000 rows/s; peak RSS < 500 MB at 50,000 rows,
 * < 1 GB at a million. The rate is wall time; the CPU seconds printed next to it are the child's
 * own (user + system, GC threads included) and stretch far less when other work shares the
 * machine. To profile the measured child: BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MerchantClient } from '../src/api/merchant-client.js';
import { planProductImport } from '../src/jobs/products/plan-product-import.js';
import { csvField } from '../src/sheets/csv-file-writer.js';
import { readProductSheets } from '../src/jobs/products/product-sheets.js';
import { emptyLiveCatalog } from '../src/plan/live-catalog.js';
import { planProducts } from '../src/plan/plan-products.js';
import { generateStore } from '../src/sandbox/generator.js';
import { startSandbox } from '../src/sandbox/server.js';
import type { ProductCreate } from '../src/schema/index.js';
import { sandboxChildAddress } from './sandbox-child-address.js';

const HEADER = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Vendor',
  'Type',
  'Tags',
  'Published',
  'Option1 Name',
  'Option1 Value',
  'Option2 Name',
  'Option2 Value',
  'Option3 Name',
  'Option3 Value',
  'Variant SKU',
  'Variant Grams',
  'Variant Inventory Tracker',
  'Variant Inventory Qty',
  'Variant Inventory Policy',
  'Variant Fulfillment Service',
  'Variant Price',
  'Variant Compare At Price',
  'Variant Requires Shipping',
  'Variant Taxable',
  'Variant Barcode',
  'Image Src',
  'Image Position',
  'Image Alt Text',
  'Gift Card',
  'SEO Title',
  'SEO Description',
  'Google Shopping / Gender',
  'Variant Image',
  'Variant Weight Unit',
  'Cost per item',
  'Status',
];
const COLORS = ['Red', 'Blue', 'Green'];
const MAPPING = { decimals: 2, money: 'units', decimalComma: false, blank: 'keep' } as const;

async function writeExport(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const line = (cells: Record<string, string>) =>
    `${HEADER.map((h) => csvField(cells[h] ?? '')).join(',')}\n`;
  out.write(`${HEADER.join(',')}\n`);
  for (let p = 0; p < rows / 4; p++) {
    const handle = `bench-product-${p}`;
    const body = `<h3>Bench product ${p}</h3><p>Soft &amp; warm, <strong>made</strong> to last.</p><ul><li>Cotton</li><li>Size ${p % 7}</li></ul><table><tr><td>Chest</td><td>${90 + (p % 20)} cm</td></tr></table><script>track(${p})</script>`;
    let chunk = '';
    for (let v = 0; v < 3; v++) {
      const base = {
        Handle: handle,
        'Option1 Value': COLORS[v] as string,
        'Option2 Value': v === 2 ? 'L' : 'M',
        'Variant SKU': `BP-${p}-${v}`,
        'Variant Grams': String(200 + v),
        'Variant Inventory Tracker': 'shopify',
        'Variant Inventory Qty': String((p + v) % 40),
        'Variant Inventory Policy': 'deny',
        'Variant Fulfillment Service': 'manual',
        'Variant Price': `${10 + (p % 90)}.${v}0`,
        'Variant Requires Shipping': 'true',
        'Variant Taxable': 'true',
        'Variant Weight Unit': 'g',
        'Cost per item': '4.00',
      };
      const first =
        v === 0
          ? {
              Title: `Bench product ${p}`,
              'Body (HTML)': body,
              Vendor: 'Bench',
              Type: 'Shirts',
              Tags: `bench, group-${p % 20}`,
              Published: 'true',
              'Option1 Name': 'Color',
              'Option2 Name': 'Size',
              'Image Src': `https://cdn.bench.example/${handle}-1.jpg`,
              'Image Position': '1',
              'Gift Card': 'false',
              Status: 'active',
            }
          : {};
      chunk += line({ ...base, ...first });
    }
    chunk += line({
      Handle: handle,
      'Image Src': `https://cdn.bench.example/${handle}-2.jpg`,
      'Image Position': '2',
    });
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The measured child: `mbulk import products FILE` (dry run) against the sandbox; prints figures. */
async function measure(file: string, url: string, token: string, runsRoot: string): Promise<void> {
  const client = new MerchantClient({ baseUrl: url, token });
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const planned = await planProductImport({ client, file, runsRoot, target: 'bench' });
  const total = (performance.now() - started) / 1000;
  // CPU seconds of this process over the same span: on a loaded machine wall time stretches, this less.
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  const rss = process.resourceUsage().maxRSS / 1024;
  const { plan, rows } = planned.file;
  const source = planned.file.source?.label ?? '?';
  const s = plan.summary;
  const { read, fetch, plan: planSeconds } = planned.timings;
  console.log(
    `rows ${rows.toLocaleString('en-US')} · format ${source} · products ${s.total.toLocaleString('en-US')} · live ${plan.liveCount.toLocaleString('en-US')}`,
  );
  console.log(`plan: create ${s.create} · update ${s.update} · noop ${s.noop} · invalid ${s.invalid}`);
  console.log(
    `read+convert+validate ${read.toFixed(2)} s · live read ${fetch.toFixed(2)} s (overlapping) · plan ${planSeconds.toFixed(2)} s · total ${total.toFixed(2)} s (CPU ${cpu.toFixed(2)} s)`,
  );
  console.log(
    `rate ${Math.round(rows / total).toLocaleString('en-US')} rows/s (target >= 20,000) · peak RSS ${rss.toFixed(0)} MB (target < 500 at 50,000 rows, < 1,024 at a million)`,
  );
}

/** The sandbox child: a store holding every other product of the export; prints `{url, token}`. */
async function sandboxChild(file: string): Promise<void> {
  // The store: every other product, as the import would create it; 10% of those at another price.
  const sheets = await readProductSheets({ file, mapping: MAPPING });
  const plan = planProducts(sheets.mapping.products, emptyLiveCatalog(), {
    decimals: 2,
    missing: 'ignore',
    replace: {},
  });
  const sandbox = await startSandbox({
    seed: generateStore({ products: 0, customers: 0, orders: 0, currency: 'USD' }),
  });
  plan.entries.forEach((e, i) => {
    if (e.action !== 'create' || i % 2 === 1) return;
    const body = { ...(e.body as ProductCreate) };
    if (i % 20 === 0) body.price += 100;
    // Images already on the store's storage (a migration that ran before) are kept as they are.
    body.images = [];
    sandbox.store.createProduct(body);
  });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, token: sandbox.token })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
}

/** Starts this file with `--sandbox FILE` and reads `{url, token}` from its first line. */
async function startChildSandbox(file: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--sandbox', file],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const { url, token } = await sandboxChildAddress(child);
  return { url, token, close: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--measure')
    return measure(args[1] as string, args[2] as string, args[3] as string, args[4] as string);
  if (args[0] === '--sandbox') return sandboxChild(args[1] as string);
  const rows = Number(args[0] ?? 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-bench-shopify-'));
  let sandbox: Awaited<ReturnType<typeof startChildSandbox>> | undefined;
  try {
    const file = join(dir, 'products_export_1.csv');
    await writeExport(file, rows);
    console.log(
      `export: ${rows.toLocaleString('en-US')} rows, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB · load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const t = performance.now();
    sandbox = await startChildSandbox(file);
    console.log(`store (sandbox child) ready in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const r = spawnSync(
      process.execPath,
      [
        // e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the measured child.
        ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--measure',
        file,
        sandbox.url,
        sandbox.token,
        join(dir, 'runs'),
      ],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) process.exitCode = 1;
  } finally {
    sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
