/**
 * Shopify migration benchmark (issue 13): a generated Shopify product export of ROWS rows
 * (default 50,000: ROWS/4 products, each 3 variant rows (Color / Size) and 1 image-only row, with
 * HTML descriptions holding lists, a table, entities and a script) planned against a generated
 * store that already holds every other product (10% of those at another price).
 *
 *   npx tsx bench/shopify-import.bench.ts [rows]
 *
 * Target: read + convert + validate + plan at ≥ 20,000 rows/s, peak RSS < 500 MB. The store is
 * prepared first (not timed); the measured import runs in a fresh child process, so its peak RSS
 * is the import's own. No HTTP: the live catalog is handed to the planner as the live read
 * would build it, so the figure is our code, not the network.
 *
 * The rate is wall time; the CPU seconds printed next to it are the child's own (user + system,
 * GC threads included) and stretch far less when other work shares the machine. To profile the
 * measured child: BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench shopify-import
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { csvField } from '../src/sheets/csv-file-writer.js';
import { readProductSheets } from '../src/jobs/products/product-sheets.js';
import { addLiveProduct, emptyLiveCatalog } from '../src/plan/live-catalog.js';
import { planProducts } from '../src/plan/plan-products.js';
import { SandboxStore } from '../src/sandbox/store.js';
import type { Product, ProductCreate } from '../src/schema/index.js';

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

/** Read + convert + validate (readProductSheets) and plan, against the given live products. */
async function measure(file: string, liveFile: string): Promise<void> {
  const catalog = emptyLiveCatalog();
  for (const p of JSON.parse(readFileSync(liveFile, 'utf8')) as Product[]) addLiveProduct(catalog, p);
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const sheets = await readProductSheets({ file, mapping: MAPPING });
  const read = (performance.now() - started) / 1000;
  const planStart = performance.now();
  const plan = planProducts(sheets.mapping.products, catalog, {
    decimals: 2,
    missing: 'ignore',
    replace: {},
    columnRefs: sheets.mapping.columnRefs,
  });
  const planSeconds = (performance.now() - planStart) / 1000;
  const total = read + planSeconds;
  // CPU seconds of this process over the same span: on a loaded machine wall time stretches, this less.
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  const rss = process.resourceUsage().maxRSS / 1024;
  const s = plan.summary;
  console.log(
    `rows ${sheets.rows.toLocaleString('en-US')} · format ${sheets.source.label} · products ${sheets.mapping.products.length.toLocaleString('en-US')}`,
  );
  console.log(`plan: create ${s.create} · update ${s.update} · noop ${s.noop} · invalid ${s.invalid}`);
  console.log(
    `read+convert+validate ${read.toFixed(2)} s · plan ${planSeconds.toFixed(2)} s · total ${total.toFixed(2)} s (CPU ${cpu.toFixed(2)} s)`,
  );
  console.log(
    `rate ${Math.round(sheets.rows / total).toLocaleString('en-US')} rows/s (target ≥ 20,000) · peak RSS ${rss.toFixed(0)} MB (target < 500)`,
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--measure') return measure(args[1] as string, args[2] as string);
  const rows = Number(args[0] ?? 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-bench-shopify-'));
  try {
    const file = join(dir, 'products_export_1.csv');
    await writeExport(file, rows);
    console.log(
      `export: ${rows.toLocaleString('en-US')} rows, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB`,
    );
    // The store: every other product, as the import would create it; 10% of those at another price.
    const sheets = await readProductSheets({ file, mapping: MAPPING });
    const plan = planProducts(sheets.mapping.products, emptyLiveCatalog(), {
      decimals: 2,
      missing: 'ignore',
      replace: {},
    });
    const store = new SandboxStore({ baseUrl: 'http://bench.local' });
    plan.entries.forEach((e, i) => {
      if (e.action !== 'create' || i % 2 === 1) return;
      const body = { ...(e.body as ProductCreate) };
      if (i % 20 === 0) body.price += 100;
      // Images already on the store's storage (a migration that ran before) are kept as they are.
      body.images = [];
      store.createProduct(body);
    });
    const liveFile = join(dir, 'live.json');
    writeFileSync(liveFile, JSON.stringify(store.toSnapshot().products));
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
        liveFile,
      ],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
