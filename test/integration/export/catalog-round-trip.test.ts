import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { exportCustomers } from '../../../src/export/export-customers.js';
import { exportProducts } from '../../../src/export/export-products.js';
import { readProductSheets } from '../../../src/jobs/products/product-sheets.js';
import { mapCustomerRow, resolveCustomerColumns } from '../../../src/mapping/customer-sheet.js';
import type { DesiredCustomer } from '../../../src/mapping/customer-sheet.js';
import { LiveCustomerIndex, planCustomers } from '../../../src/plan/customer-plan.js';
import { indexLiveCatalog } from '../../../src/plan/live-catalog.js';
import { planProducts } from '../../../src/plan/plan-products.js';
import type { ProductPlan } from '../../../src/plan/product-plan.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { currencyDecimals } from '../../../src/schema/currency.js';
import type { Customer, Product, StoreSnapshot } from '../../../src/schema/index.js';
import { readSheet } from '../../../src/sheets/read-sheet.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'samples', 'store.json'), 'utf8')) as StoreSnapshot;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-export-rt-'));

let sandbox: RunningSandbox | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  await client?.close();
  await sandbox?.close();
  sandbox = undefined;
  client = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The sample store with the awkward values an export must carry back unchanged. */
function trickySample(): StoreSnapshot {
  const s = structuredClone(SAMPLE);
  const p = s.products[0] as Product;
  p.description = '- first bullet\n=SUM(A1:A2)\n+ plus line\n\n@mention';
  p.tags = ['-sale', '=x', 'plain'];
  p.name = '+Gula Melaka Latte';
  const v = p.variants[0];
  if (v) v.description = '@variant note\nsecond line';
  const o = p.options.find((x) => Array.isArray((x.settings as { options?: unknown })?.options));
  if (o) {
    const settings = o.settings as { options: { text: string; price?: number }[] };
    settings.options.push({ text: '10:30 slot | late', price: 150 }, { text: '-less sugar' });
    o.text = '=Sugar level';
  }
  const plain = s.products.find((x) => x.variants.length === 0) as Product;
  plain.original_price = 0;
  plain.sku = '000777';
  if (plain.inventory) plain.inventory.sku = '000777';
  return s;
}

async function connect(seed: StoreSnapshot) {
  sandbox = await startSandbox({ seed });
  client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const me = await client.me();
  return { s: sandbox, c: client, me, decimals: currencyDecimals(me.currency) };
}

async function live<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

async function planExportedProducts(
  c: MerchantClient,
  file: string,
  optionsFile: string | undefined,
  decimals: number,
): Promise<ProductPlan> {
  const sheets = await readProductSheets({ file, optionsFile, mapping: { decimals } });
  expect(sheets.mapping.issues).toEqual([]);
  const catalog = indexLiveCatalog(await live(c.products.list()));
  return planProducts(sheets.mapping.products, catalog, {
    decimals,
    columnRefs: sheets.mapping.columnRefs,
    unkeyedRows: sheets.mapping.unkeyedRows,
  });
}

function notNoop(plan: ProductPlan) {
  return plan.entries
    .filter((e) => e.action !== 'noop')
    .map((e) => ({ action: e.action, label: e.label, changes: e.changes, issues: e.issues }));
}

describe('export products → import plans zero changes', () => {
  const stores: [string, () => StoreSnapshot][] = [
    ['samples/store.json (with awkward text)', trickySample],
    [
      'generated JPY store',
      () => generateStore({ products: 60, customers: 5, orders: 0, currency: 'JPY', seed: 7 }),
    ],
    [
      'generated KWD store',
      () => generateStore({ products: 30, customers: 5, orders: 0, currency: 'KWD', seed: 3 }),
    ],
  ];
  for (const [name, seed] of stores) {
    for (const format of ['csv', 'xlsx'] as const) {
      it(`${name}, ${format}`, async () => {
        const snapshot = seed();
        const { c, decimals } = await connect(snapshot);
        const file = join(dir, `${name.replace(/\W+/g, '_')}.${format}`);
        const result = await exportProducts({
          products: c.products.list(),
          store: await c.me(),
          path: file,
          format,
        });
        const products = snapshot.products;
        expect(result.products).toBe(products.length);
        const variants = products.reduce((n, p) => n + p.variants.length, 0);
        expect(result.variants).toBe(variants);
        expect(result.rows).toBe(products.reduce((n, p) => n + Math.max(1, p.variants.length), 0));
        expect(result.optionRows).toBe(products.reduce((n, p) => n + p.options.length, 0));
        expect(result.optionRows).toBeGreaterThan(0);
        expect(result.warnings).toEqual([]);
        if (format === 'csv') expect(result.paths.options).toBe(file.replace(/\.csv$/, '-options.csv'));

        const plan = await planExportedProducts(c, file, result.paths.options, decimals);
        expect(notNoop(plan)).toEqual([]);
        expect(plan.entries).toHaveLength(products.length);

        // The same export against a changed store plans exactly that change back.
        const target = products.find((p) => p.variants.length > 0) as Product;
        const v0 = target.variants[0];
        await c.products.update(target.id, {
          tags: [...target.tags, 'added-live'],
          variants: target.variants.map((v) => ({
            id: v.id,
            name: v.name,
            price: v === v0 ? v.price + 1 : v.price,
          })),
        });
        const again = await planExportedProducts(c, file, result.paths.options, decimals);
        const changed = notNoop(again);
        expect(changed).toHaveLength(1);
        expect(changed[0]?.action).toBe('update');
        expect(changed[0]?.changes.map((x) => x.path).sort()).toEqual(
          ['tags', `variants[${v0?.sku ?? v0?.name ?? ''}].price`].sort(),
        );
      });
    }
  }

  for (const format of ['csv', 'xlsx'] as const) {
    it(`money in minor units, imported with blank: clear, ${format}`, async () => {
      const { c, decimals } = await connect(trickySample());
      const file = join(dir, `minor.${format}`);
      const r = await exportProducts({
        products: c.products.list(),
        store: await c.me(),
        path: file,
        format,
        money: 'minor',
      });
      const sheets = await readProductSheets({
        file,
        optionsFile: r.paths.options,
        mapping: { decimals, money: 'minor', blank: 'clear' },
      });
      expect(sheets.mapping.issues).toEqual([]);
      const first = sheets.mapping.products[0];
      expect(first?.fields.price).toBe(SAMPLE.products[0]?.price);
      const catalog = indexLiveCatalog(await live(c.products.list()));
      const plan = planProducts(sheets.mapping.products, catalog, { decimals });
      expect(notNoop(plan)).toEqual([]);
    });
  }

  it('keeps neutralised text as text in the file and leading zeros of skus', async () => {
    const { c } = await connect(trickySample());
    const file = join(dir, 'tricky.csv');
    await exportProducts({ products: c.products.list(), store: await c.me(), path: file, format: 'csv' });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`"'- first bullet`);
    expect(text).toContain("'+Gula Melaka Latte");
    expect(text).toContain(',000777,');
    const options = readFileSync(file.replace(/\.csv$/, '-options.csv'), 'utf8');
    expect(options).toContain('10\\:30 slot \\| late:1.50');
    expect(options).toContain("'=Sugar level");
  });
});

async function planExportedCustomers(c: MerchantClient, file: string, country: string) {
  const reader = readSheet(file);
  const info = await reader.open();
  const { columns, issues } = resolveCustomerColumns(info.sheet, info.columns);
  expect(issues).toEqual([]);
  const desired: DesiredCustomer[] = [];
  for await (const row of reader) {
    const mapped = mapCustomerRow(row, columns, { country });
    expect(mapped.issues).toEqual([]);
    if (mapped.customer) desired.push(mapped.customer);
  }
  const index = LiveCustomerIndex.fromCustomers(await live<Customer>(c.customers.list()));
  return planCustomers(desired, index, { columns });
}

describe('export customers → import plans zero changes', () => {
  const stores: [string, () => StoreSnapshot][] = [
    ['samples/store.json', () => structuredClone(SAMPLE)],
    ['generated store', () => generateStore({ products: 1, customers: 150, orders: 0, seed: 11 })],
    [
      'generated ID store',
      () => generateStore({ products: 1, customers: 80, orders: 0, seed: 5, country: 'ID' }),
    ],
  ];
  for (const [name, seed] of stores) {
    for (const format of ['csv', 'xlsx'] as const) {
      it(`${name}, ${format}`, async () => {
        const snapshot = seed();
        const { c, me } = await connect(snapshot);
        const file = join(dir, `customers_${name.replace(/\W+/g, '_')}.${format}`);
        const r = await exportCustomers({ customers: c.customers.list(), store: me, path: file, format });
        expect(r.customers).toBe(snapshot.customers.length);
        const plan = await planExportedCustomers(c, file, me.country);
        expect(plan.issues).toEqual([]);
        expect(plan.entries.filter((e) => e.action !== 'noop')).toEqual([]);
        expect(plan.counts.noop).toBe(snapshot.customers.length);

        // A live change is planned back by the unchanged export.
        const first = snapshot.customers[0] as Customer;
        await c.customers.update(first.id, { name: `${first.name} Changed` });
        const again = await planExportedCustomers(c, file, me.country);
        expect(again.counts.update).toBe(1);
        expect(again.entries.find((e) => e.action === 'update')?.changes).toEqual([
          { field: 'name', before: `${first.name} Changed`, after: first.name },
        ]);
      });
    }
  }
});
