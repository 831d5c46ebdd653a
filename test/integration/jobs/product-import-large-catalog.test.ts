import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { readProductSheets } from '../../../src/jobs/products/product-sheets.js';
import { indexLiveCatalog } from '../../../src/plan/live-catalog.js';
import { planProducts } from '../../../src/plan/plan-products.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Product, ProductCreate } from '../../../src/schema/index.js';
import { csvField } from '../../../src/sheets/csv-file-writer.js';

/**
 * Issue 41's catalog at a smaller size (not timed): 3,334 products × 3 variants (10,002 variants),
 * 1% of them changed on the sheet, 0.1% new, plus a few rows of every other kind (an identifier
 * another product holds, a product matched by its sku alone, a hide, a delete). The import reads the
 * live catalog while the sheet is read and keeps only the bodies of the products it may write; its
 * plan must be the plan of the whole catalog held in memory (planProducts on every live product,
 * the path it replaces), its before-states the products as read, and a re-run must write nothing.
 */
const N = 3334;
const VARIANTS = ['Small', 'Medium', 'Large'];
const COLUMNS = [
  'reference_id',
  'sku',
  'name',
  'description',
  'price',
  'tags',
  'command',
  'variant_sku',
  'variant_name',
  'variant_price',
  'variant_inventory_quantity',
];

const ref = (i: number) => `LC-${String(i).padStart(5, '0')}`;

function live(i: number): ProductCreate {
  const price = 1000 + (i % 400) * 10;
  return {
    // Every 500th product has no reference_id: the sheet finds it by its sku.
    ...(i % 500 === 0 ? {} : { reference_id: ref(i) }),
    sku: ref(i),
    name: `Large catalog product ${i}`,
    description: `Product ${i}.`,
    status: 'VISIBLE',
    type: 'PHYSICAL',
    price,
    tags: ['bench', `group-${i % 7}`],
    inventory_enabled: true,
    variants: VARIANTS.map((v, n) => ({
      name: v,
      sku: `${ref(i)}-${v[0] as string}`,
      price: price + n * 100,
      inventory_quantity: 10 + ((i + n) % 50),
    })),
  };
}

const money = (minor: number) => (minor / 100).toFixed(2);

function sheetRows(i: number): string[][] {
  const p = live(i);
  const changed = i % 100 === 0;
  const command = i === 7 ? 'hide' : i === 8 ? 'delete' : '';
  // Product 9 names product 10's sku: another product's identifier, an invalid row.
  const sku = i === 9 ? ref(10) : (p.sku ?? '');
  return (p.variants ?? []).map((v, n) => [
    i % 500 === 0 ? '' : ref(i),
    sku,
    p.name,
    changed && i % 200 === 0 ? `Product ${i}, described anew.` : (p.description ?? ''),
    money(changed ? p.price + 55 : p.price),
    (p.tags ?? []).join('|'),
    command,
    v.sku ?? '',
    v.name,
    money(changed && n === 1 ? v.price + 5 : v.price),
    String(changed && n === 2 ? (v.inventory_quantity ?? 0) + 1 : v.inventory_quantity),
  ]);
}

function writeSheet(file: string, extra: number): void {
  let text = `${COLUMNS.join(',')}\n`;
  for (let i = 1; i <= N + extra; i++) {
    for (const r of sheetRows(i)) text += `${r.map((c) => csvField(c)).join(',')}\n`;
  }
  writeFileSync(file, text);
}

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup() {
  const s = await startSandbox({
    seed: generateStore({ products: 0, customers: 0, orders: 0, currency: 'MYR' }),
  });
  sandbox = s;
  for (let i = 1; i <= N; i++) s.store.createProduct(live(i));
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-large-catalog-'));
  const file = join(dir, 'catalog.csv');
  // 0.1% new: three products the store does not have.
  writeSheet(file, 3);
  const client = new MerchantClient({ baseUrl: s.url, token: s.token });
  return { s, dir, file, client, runsRoot: join(dir, 'runs') };
}

/** The plan of the whole catalog held in memory: every live product indexed, then planProducts. */
async function wholeCatalogPlan(client: MerchantClient, file: string, missing: 'ignore' | 'hide') {
  const products: Product[] = [];
  for await (const p of client.products.list({})) products.push(p);
  const sheets = await readProductSheets({ file, mapping: { decimals: 2, currency: 'MYR' } });
  const { mapping } = sheets;
  const plan = planProducts(mapping.products, indexLiveCatalog(products), {
    decimals: 2,
    missing,
    replace: {},
    imageMemory: new Map(),
    columnRefs: mapping.columnRefs,
    unkeyedRows: mapping.unkeyedRows,
    unkeyedOptionRows: mapping.unkeyedOptionRows,
    categories: { required: false },
    platformExport: false,
  });
  const byId = new Map(products.map((p) => [p.id, p]));
  const before: Record<string, Product> = {};
  for (const e of plan.entries) {
    if (e.action !== 'noop' && e.action !== 'skip' && e.action !== 'invalid' && e.productId !== null)
      before[e.productId] = byId.get(e.productId) as Product;
  }
  return { plan, before };
}

const writesOf = (s: RunningSandbox) =>
  s.requestLog().filter((e) => e.method !== 'GET' && !e.path.startsWith('/__'));

describe('a 10k-variant catalog import', () => {
  it('plans what the whole catalog in memory plans, keeps the written products as read, and writes nothing on a re-run', async () => {
    const { s, file, client, runsRoot } = await setup();
    const expected = await wholeCatalogPlan(client, file, 'ignore');
    expect(expected.plan.summary).toMatchObject({ update: 33, create: 3, hide: 1, delete: 1, invalid: 2 });

    const planned = await planProductImport({ client, file, runsRoot, target: 'test', allowDeletes: true });
    expect(planned.file.plan).toEqual(expected.plan);
    // Byte for byte as plan.json holds it: the same entries, fields in the same order.
    expect(JSON.stringify(planned.file.plan)).toBe(JSON.stringify(expected.plan));
    expect(planned.file.before).toEqual(expected.before);
    // Every body it keeps came from the listing: no product read on its own.
    expect(s.requestLog().filter((e) => /^\/api\/v2\/products\/[^/?]+$/.test(e.path))).toEqual([]);

    s.clearRequestLog();
    const applied = await applyProductRun(planned.run, { client, concurrency: 8, allowDeletes: true });
    expect(applied).toMatchObject({ updated: 33, created: 3, hidden: 1, deleted: 1, failed: 0 });
    expect(writesOf(s)).toHaveLength(38);

    // The same sheet again: every product as the sheet says (the invalid row aside), nothing written.
    s.clearRequestLog();
    const again = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(again.file.plan.entries.filter((e) => e.action !== 'noop' && e.action !== 'invalid')).toEqual([
      // the deleted product is gone: its delete row is a warning, and the hidden one stays hidden
    ]);
    expect(Object.keys(again.file.before)).toEqual([]);
    const rerun = await applyProductRun(again.run, { client, concurrency: 8 });
    expect(rerun).toMatchObject({ updated: 0, created: 0, failed: 0 });
    expect(writesOf(s)).toEqual([]);
    await client.close();
  });

  it('with --missing hide, plans the hides of the products the sheet leaves out as the whole catalog does', async () => {
    const { s, dir, client, runsRoot } = await setup();
    const file = join(dir, 'part.csv');
    // The sheet stops 40 products short of the store: those are hidden.
    let text = `${COLUMNS.join(',')}\n`;
    for (let i = 1; i <= N - 40; i++)
      for (const r of sheetRows(i)) text += `${r.map((c) => csvField(c)).join(',')}\n`;
    writeFileSync(file, text);
    const expected = await wholeCatalogPlan(client, file, 'hide');
    expect(expected.plan.summary.hide).toBe(41);
    const planned = await planProductImport({
      client,
      file,
      runsRoot,
      target: 'test',
      missing: 'hide',
      allowDeletes: true,
    });
    expect(planned.file.plan).toEqual(expected.plan);
    expect(planned.file.before).toEqual(expected.before);
    // Every body it keeps came from the listing: no product read on its own.
    expect(s.requestLog().filter((e) => /^\/api\/v2\/products\/[^/?]+$/.test(e.path))).toEqual([]);
    await client.close();
  });
});
