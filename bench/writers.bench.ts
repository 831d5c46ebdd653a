/**
 * Streaming writers: N rows × 30 columns (text ids/SKUs/phones, money, integers, numbers, dates,
 * booleans) to XLSX and CSV. Prints time and RSS at the halfway point and at the end; RSS must not grow
 * with the row count.
 *
 *   npx tsx bench/writers.bench.ts [rows=100000] [xlsx|csv|both=both]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSheetWriter } from '../src/sheets/create-sheet-writer.js';
import { type ColumnSpec, type ColumnType } from '../src/sheets/sheet-writer.js';

const rows = Number(process.argv[2] ?? 100_000);
const which = process.argv[3] ?? 'both';

const layout: Array<[string, ColumnType]> = [
  ['order_id', 'text'],
  ['order_number', 'text'],
  ['created_at', 'datetime'],
  ['created_at_iso', 'text'],
  ['status', 'text'],
  ['payment_status', 'text'],
  ['fulfillment_status', 'text'],
  ['customer_id', 'text'],
  ['customer_name', 'text'],
  ['customer_phone', 'text'],
  ['customer_email', 'text'],
  ['line_id', 'text'],
  ['sku', 'text'],
  ['item_name', 'text'],
  ['options', 'text'],
  ['quantity', 'integer'],
  ['unit_price', 'money'],
  ['line_total', 'money'],
  ['discount', 'money'],
  ['service', 'money'],
  ['service_charge', 'money'],
  ['tip', 'money'],
  ['adjustment', 'money'],
  ['tax', 'money'],
  ['weight', 'number'],
  ['tax_rate', 'number'],
  ['paid', 'boolean'],
  ['is_pickup', 'boolean'],
  ['delivery_date', 'date'],
  ['remark', 'text'],
];
const columns: ColumnSpec[] = layout.map(([key, type]) => ({ key, header: key, type }));

function row(i: number): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 37_000).toISOString();
  return {
    order_id: `ord_${(1_000_000_000_000_000 + i).toString()}`,
    order_number: `${100000 + i}`,
    created_at: at,
    created_at_iso: at,
    status: 'completed',
    payment_status: 'paid',
    fulfillment_status: i % 3 === 0 ? 'fulfilled' : 'unfulfilled',
    customer_id: `cus_${i % 5000}`,
    customer_name: `Customer ${i % 5000} Ñandú`,
    customer_phone: `6012${(3_000_000 + (i % 999_999)).toString()}`,
    customer_email: `c${i % 5000}@example.com`,
    line_id: `li_${i}`,
    sku: `000${i % 10_000}`,
    item_name: `Product ${i % 1000}, size M`,
    options: 'Colour: Red (+1.50) | Size: M',
    quantity: 1 + (i % 4),
    unit_price: 1290 + (i % 500),
    line_total: (1290 + (i % 500)) * (1 + (i % 4)),
    discount: i % 7 === 0 ? 100 : 0,
    service: 0,
    service_charge: 50,
    tip: i % 11,
    adjustment: i % 13 === 0 ? -5 : 0,
    tax: 77,
    weight: 0.25 * (i % 8),
    tax_rate: 6,
    paid: true,
    is_pickup: i % 2 === 0,
    delivery_date: '2026-02-01',
    remark:
      i % 100 === 0 ? '=HYPERLINK("http://x","y")' : i % 10 === 0 ? 'leave at the door, "please"' : null,
  };
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function run(format: 'xlsx' | 'csv', dir: string): Promise<void> {
  const path = join(dir, `orders.${format}`);
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const cpu = (): string => {
    const used = process.cpuUsage(cpuStart);
    return `${((used.user + used.system) / 1e6).toFixed(1)} s CPU`;
  };
  let peak = 0;
  const writer = createSheetWriter(path, { format, currencyDecimals: 2, timezone: 'Asia/Kuala_Lumpur' });
  const sheet = await writer.addSheet({ name: 'orders', columns });
  const marks = new Set([Math.floor(rows / 2), rows]);
  for (let i = 1; i <= rows; i++) {
    const wait = sheet.write(row(i));
    if (wait) await wait;
    if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage.rss());
    if (marks.has(i)) {
      console.log(
        `${format} ${i.toLocaleString('en-US')} rows: ${((performance.now() - start) / 1000).toFixed(1)} s (${cpu()}), ` +
          `RSS now ${mb(process.memoryUsage.rss())}, peak ${mb(peak)}, heap ${mb(process.memoryUsage().heapUsed)}`,
      );
    }
  }
  await writer.close();
  peak = Math.max(peak, process.memoryUsage.rss());
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `${format} done: ${rows.toLocaleString('en-US')} rows × ${columns.length} columns in ${seconds.toFixed(1)} s (${cpu()}) ` +
      `(${Math.round(rows / seconds).toLocaleString('en-US')} rows/s), file ${mb((await stat(path)).size)}, peak RSS ${mb(peak)}`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'mbulk-bench-writers-'));
try {
  console.log(`node ${process.version}, baseline RSS ${mb(process.memoryUsage.rss())}`);
  if (which === 'both' || which === 'csv') await run('csv', dir);
  if (which === 'both' || which === 'xlsx') await run('xlsx', dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
