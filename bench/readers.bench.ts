/**
 * Sheet readers at scale: rows/s and peak RSS of readSheet (row iterator and batches) against the
 * libraries alone (papaparse `step` callbacks on a 1 MiB file stream; exceljs's streaming
 * WorkbookReader), each run in a fresh process so that peak RSS belongs to that run alone.
 *
 *   npx tsx bench/readers.bench.ts            # default sizes (about 1-2 minutes)
 *   npx tsx bench/readers.bench.ts 0.2        # scale every size by 0.2 (quick check)
 *   npx tsx bench/readers.bench.ts 1 3        # full size, best of 3 runs each (shared machines are noisy)
 *   npx tsx bench/readers.bench.ts 1 3 CSV    # only the inputs whose label contains "CSV"
 *
 * Files are generated once into $TMPDIR/mbulk-bench-readers and reused.
 */
import { spawnSync } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  writeSync,
  statSync,
  renameSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { readSheet, readSheetBatches } from '../src/sheets/read-sheet.js';

type Reader = 'papaparse-step' | 'exceljs-stream' | 'readSheet-rows' | 'readSheet-batches';
interface Measure {
  rows: number;
  ms: number;
  rssPeakMB: number;
  maxRssMB: number;
}

const dir = join(tmpdir(), 'mbulk-bench-readers');
const self = fileURLToPath(import.meta.url);

// ---------- data ----------

function skuLine(i: number): string {
  return `SKU-${String(i).padStart(7, '0')},${(i * 7919) % 1000}\n`;
}

/** Windows line endings (what Excel writes): the reader's line-break normaliser has nothing to do. */
function skuLineCrlf(i: number): string {
  return `SKU-${String(i).padStart(7, '0')},${(i * 7919) % 1000}\r\n`;
}

/** CRLF, with every tenth line ending in LF: the normaliser rewrites those (a file edited twice). */
function skuLineMixed(i: number): string {
  return `SKU-${String(i).padStart(7, '0')},${(i * 7919) % 1000}${i % 10 === 9 ? '\n' : '\r\n'}`;
}

const CATALOG_HEADER = [
  'reference_id',
  'name',
  'description',
  'sku',
  'status',
  'type',
  'price',
  'original_price',
  'cost',
  'weight',
  'tags',
  'category_ids',
  'inventory_quantity',
  'variant_name',
  'variant_sku',
  'variant_price',
  'variant_weight',
  'variant_inventory_quantity',
  'images',
  'unit',
];

function catalogRow(i: number): (string | number)[] {
  const p = Math.floor(i / 3);
  return [
    `REF-${p}`,
    `Product ${p} – organic cotton tee`,
    `Soft tee number ${p}, "classic" fit, machine washable`,
    `P-${p}`,
    i % 17 === 0 ? 'hidden' : 'active',
    'product',
    ((p % 5000) + 99) / 100,
    ((p % 5000) + 199) / 100,
    ((p % 3000) + 50) / 100,
    0.25,
    'summer|cotton|sale',
    `${p % 40}|${p % 7}`,
    (p * 13) % 500,
    `Size ${'SML'[i % 3]}`,
    `P-${p}-${'SML'[i % 3]}`,
    ((p % 5000) + 99) / 100,
    0.3,
    (i * 31) % 200,
    `https://cdn.example.com/p/${p}/1.jpg|https://cdn.example.com/p/${p}/2.jpg`,
    'piece',
  ];
}

function csvField(v: string | number): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function writeCsv(path: string, header: string, rows: number, line: (i: number) => string): void {
  if (existsSync(path)) return;
  const tmp = `${path}.part`;
  const fd = openSync(tmp, 'w');
  writeSync(fd, header);
  let buf = '';
  for (let i = 0; i < rows; i++) {
    buf += line(i);
    if (buf.length > 1 << 20) {
      writeSync(fd, buf);
      buf = '';
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
  renameSync(tmp, path);
}

async function writeXlsx(path: string, rows: number, columns: 2 | 20): Promise<void> {
  if (existsSync(path)) return;
  const tmp = `${path}.part.xlsx`;
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: tmp,
    useSharedStrings: true,
    useStyles: false,
  });
  const ws = wb.addWorksheet('products');
  ws.addRow(columns === 2 ? ['sku', 'quantity'] : CATALOG_HEADER).commit();
  for (let i = 0; i < rows; i++) {
    ws.addRow(
      columns === 2 ? [`SKU-${String(i).padStart(7, '0')}`, (i * 7919) % 1000] : catalogRow(i),
    ).commit();
    if (i % 5000 === 0) await new Promise((r) => setImmediate(r)); // let the writer flush
  }
  ws.commit();
  await wb.commit();
  renameSync(tmp, path);
}

// ---------- one measured run (child process) ----------

async function measure(reader: Reader, file: string): Promise<Measure> {
  let rssPeak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 20);
  const t0 = performance.now();
  let rows = 0;
  if (reader === 'papaparse-step') {
    await new Promise<void>((resolve, reject) => {
      Papa.parse(createReadStream(file, { highWaterMark: 1 << 20 }), {
        step: () => {
          rows++;
        },
        complete: () => resolve(),
        error: (e: Error) => reject(e),
      });
    });
    rows--; // header
  } else if (reader === 'exceljs-stream') {
    const wb = new ExcelJS.stream.xlsx.WorkbookReader(file, {});
    for await (const ws of wb) {
      for await (const _row of ws) rows++;
      break;
    }
    rows--; // header
  } else if (reader === 'readSheet-rows') {
    for await (const _row of readSheet(file)) rows++;
  } else {
    for await (const batch of readSheetBatches(file)) rows += batch.length;
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  return { rows, ms, rssPeakMB: rssPeak / 2 ** 20, maxRssMB: process.resourceUsage().maxRSS / 1024 };
}

function runChild(reader: Reader, file: string): Measure {
  const out = spawnSync(process.execPath, [...process.execArgv, self, '--child', reader, file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const line = out.stdout.trim().split('\n').at(-1) ?? '';
  if (out.status !== 0 || !line.startsWith('{')) throw new Error(`${reader} ${file} failed:\n${out.stderr}`);
  return JSON.parse(line) as Measure;
}

// ---------- main ----------

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const result = await measure(process.argv[3] as Reader, process.argv[4] as string);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const scale = Number(process.argv[2] ?? '1');
  const repeat = Math.max(1, Number(process.argv[3] ?? '1'));
  const only = process.argv[4];
  const n = (rows: number) => Math.max(1000, Math.round(rows * scale));
  mkdirSync(dir, { recursive: true });
  const files = {
    sku250k: join(dir, `sku-${n(250_000)}.csv`),
    sku1m: join(dir, `sku-${n(1_000_000)}.csv`),
    sku1mCrlf: join(dir, `sku-crlf-${n(1_000_000)}.csv`),
    sku1mMixed: join(dir, `sku-mixed-${n(1_000_000)}.csv`),
    catalogCsv: join(dir, `catalog20-${n(200_000)}.csv`),
    skuXlsx: join(dir, `sku-${n(200_000)}.xlsx`),
    catalogXlsx: join(dir, `catalog20-${n(50_000)}.xlsx`),
  };
  const g0 = performance.now();
  writeCsv(files.sku250k, 'sku,quantity\n', n(250_000), skuLine);
  writeCsv(files.sku1m, 'sku,quantity\n', n(1_000_000), skuLine);
  writeCsv(files.sku1mCrlf, 'sku,quantity\r\n', n(1_000_000), skuLineCrlf);
  writeCsv(files.sku1mMixed, 'sku,quantity\r\n', n(1_000_000), skuLineMixed);
  writeCsv(
    files.catalogCsv,
    CATALOG_HEADER.join(',') + '\n',
    n(200_000),
    (i) => catalogRow(i).map(csvField).join(',') + '\n',
  );
  const wanted = (label: string) => only === undefined || label.includes(only);
  if (wanted('XLSX sku,quantity')) await writeXlsx(files.skuXlsx, n(200_000), 2);
  if (wanted('XLSX 20 columns')) await writeXlsx(files.catalogXlsx, n(50_000), 20);
  console.log(`files ready in ${((performance.now() - g0) / 1000).toFixed(1)} s (${dir})`);

  const plan: Array<[string, string, Reader[]]> = [
    ['CSV sku,quantity', files.sku250k, ['papaparse-step', 'readSheet-rows', 'readSheet-batches']],
    ['CSV sku,quantity', files.sku1m, ['papaparse-step', 'readSheet-rows', 'readSheet-batches']],
    ['CSV sku,quantity CRLF', files.sku1mCrlf, ['readSheet-batches']],
    ['CSV sku,quantity CRLF+10% LF', files.sku1mMixed, ['readSheet-batches']],
    ['CSV 20 columns', files.catalogCsv, ['papaparse-step', 'readSheet-rows', 'readSheet-batches']],
    ['XLSX sku,quantity', files.skuXlsx, ['exceljs-stream', 'readSheet-rows', 'readSheet-batches']],
    ['XLSX 20 columns', files.catalogXlsx, ['exceljs-stream', 'readSheet-rows', 'readSheet-batches']],
  ];
  console.log('| input | file | reader | rows | seconds | rows/s | peak RSS (sampled) | maxRSS |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [label, file, readers] of plan) {
    if (!wanted(label)) continue;
    const size = `${(statSync(file).size / 2 ** 20).toFixed(1)} MiB`;
    for (const reader of readers) {
      let m = runChild(reader, file);
      for (let r = 1; r < repeat; r++) {
        const again = runChild(reader, file);
        if (again.ms < m.ms) m = again;
      }
      console.log(
        `| ${label} | ${size} | ${reader} | ${m.rows.toLocaleString('en-US')} | ${(m.ms / 1000).toFixed(2)} | ` +
          `${Math.round(m.rows / (m.ms / 1000)).toLocaleString('en-US')} | ${m.rssPeakMB.toFixed(0)} MB | ${m.maxRssMB.toFixed(0)} MB |`,
      );
    }
  }
}

await main();
