import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Product } from '../../../src/schema/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { shopifyExpectations, wooExpectations, type ExpectedProduct } from './source-expectations.js';

// Issue 24: every real export of the fixtures migrated into an empty sandbox store, compared field
// by field with its source (read with papaparse, not through merchant-bulk), then imported again
// with no write.

const CORPUS = resolve('test/fixtures/corpus');
const dir = mkdtempSync(join(tmpdir(), 'mbulk-migrations-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  sandbox: RunningSandbox;
  cli: (...argv: string[]) => ReturnType<typeof runCli>;
  writes: () => { method: string; path: string }[];
  byRef: () => Map<string, Product>;
}

/** An empty sandbox store (USD, US), closed by the caller. */
async function emptyStore(): Promise<Run> {
  const sandbox = await startSandbox({});
  const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
  const cwd = mkdtempSync(join(dir, 'run-'));
  return {
    sandbox,
    cli: (...argv) => runCli(argv, env, cwd),
    writes: () => sandbox.requestLog().filter((e) => e.method !== 'GET' && e.path.startsWith('/api/')),
    byRef: () => new Map(sandbox.store.toSnapshot().products.map((p) => [p.reference_id ?? '', p])),
  };
}

interface PlanJson {
  runId: string;
  runDir: string;
  format: string;
  counts: Record<string, number>;
  rows: { read: number; inPlan: number; leftOut: number; markedSkip: number; invalid: number };
  stockUnknown?: { products: number; items: number; mode?: string };
  columns: { header: string; field: string | null }[];
}

/** A CSV's header as papaparse reads it (BOM, a blank first line, quotes). */
function headerOf(path: string): string[] {
  const text = readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .replace(/^\r?\n/, '');
  return (Papa.parse<string[]>(text, { preview: 1 }).data[0] ?? []).map((h) => h.trim());
}

const WOO_ORIGINAL = join(CORPUS, 'woocommerce/wc-product-export-28-7-2024-1722216242241.csv');

/**
 * Every real export in the fixtures, with the products the tool rightly refuses (named) and the
 * layout it shows. The Russian and German files are the WooCommerce export with translated headers.
 */
const EXPORTS: { file: string; format: string; expected: () => ExpectedProduct[]; invalid?: string[] }[] = [
  {
    file: 'shopify/faridrony55_apparel.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/faridrony55_apparel.csv')),
  },
  {
    file: 'shopify/packt_products_export_1.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/packt_products_export_1.csv')),
  },
  {
    file: 'shopify/product_template.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/product_template.csv')),
  },
  {
    file: 'shopify/ronne2406_products_export_1_extract.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/ronne2406_products_export_1_extract.csv')),
    // Two of its variants share the SKU '111: every variant needs its own.
    invalid: ['copy-of-new-collection-personalized-name-necklace-silver'],
  },
  {
    file: 'shopify/yadayada_products_export_1.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/yadayada_products_export_1.csv')),
    // Its variants' SKUs are also the SKUs of products of their own in the file (the repository
    // splits variants into products): a SKU belongs to one product or variant.
    invalid: ['mustache-wax'],
  },
  {
    file: 'shopify/velofant_products_export_1.csv',
    format: 'shopify',
    expected: () => shopifyExpectations(join(CORPUS, 'shopify/velofant_products_export_1.csv')),
  },
  {
    file: 'woocommerce/wc-product-export-28-7-2024-1722216242241.csv',
    format: 'woocommerce',
    expected: () => wooExpectations(WOO_ORIGINAL),
  },
  {
    file: 'woocommerce/wc-product-export-ru.csv',
    format: 'woocommerce',
    expected: () => wooExpectations(WOO_ORIGINAL),
  },
  {
    file: 'woocommerce/wc-product-export-de.csv',
    format: 'woocommerce',
    expected: () => wooExpectations(WOO_ORIGINAL),
  },
  {
    file: 'woocommerce/sample_products.csv',
    format: 'woocommerce',
    expected: () => wooExpectations(join(CORPUS, 'woocommerce/sample_products.csv')),
  },
  {
    file: 'woocommerce/gopoma_sample_products_x16_bom_crlf.csv',
    format: 'woocommerce',
    expected: () => wooExpectations(join(CORPUS, 'woocommerce/gopoma_sample_products_x16_bom_crlf.csv')),
  },
];

/** The choices a migration of unknown stock and long image lists needs. */
const MIGRATE = ['--stock-unknown', 'untracked', '--images', 'first-10'];

function compare(live: Product | undefined, e: ExpectedProduct): void {
  const where = e.reference;
  expect(live, where).toBeDefined();
  const p = live as Product;
  expect(p.name, where).toBe(e.name);
  if (e.status !== undefined) expect(p.status, where).toBe(e.status);
  expect(p.tags, where).toEqual(e.tags);
  expect(p.images, where).toHaveLength(Math.min(10, e.images.length));
  if (e.hasDescription) {
    expect(p.description, where).not.toBe('');
    expect(p.description, where).not.toMatch(/<\/?[a-z][a-z0-9]*[\s>/]/i);
  }
  expect(
    p.variants.map((v) => v.name),
    where,
  ).toEqual(e.variants.map((v) => v.name));
  e.variants.forEach((v, i) => {
    const lv = p.variants[i];
    expect(lv?.price, `${where} ${v.name}`).toBe(v.price);
    if (v.sku !== undefined) expect(lv?.sku, `${where} ${v.name}`).toBe(v.sku);
  });
  if (e.variants.length === 0) {
    if (e.price !== undefined) expect(p.price, where).toBe(e.price);
    if (e.sku !== undefined) expect(p.sku, where).toBe(e.sku);
  }
  // Stock: as the export gives it; tracked without a quantity: untracked (--stock-unknown untracked).
  const quantities = e.variants.length === 0 ? [e.quantity] : e.variants.map((v) => v.quantity);
  if (!e.tracked) return;
  if (quantities.every((q) => q === undefined)) {
    expect(p.inventory_enabled, `${where}: stock unknown, so untracked`).toBe(false);
    return;
  }
  expect(p.inventory_enabled, where).toBe(true);
  if (e.variants.length === 0) expect(p.inventory?.quantity, where).toBe(e.quantity);
  else
    e.variants.forEach((v, i) =>
      expect(p.variants[i]?.inventory?.quantity, `${where} ${v.name}`).toBe(v.quantity),
    );
}

describe('a migration of every real export into an empty store', () => {
  it.each(EXPORTS)(
    '$file: as the source says, field by field; imported again, nothing is written',
    async ({ file, format, expected, invalid = [] }) => {
      const run = await emptyStore();
      try {
        const path = join(CORPUS, file);
        const applied = await run.cli('import', 'products', path, '--apply', '--yes', '--json', ...MIGRATE);
        expect(applied.code, applied.stderr).toBe(invalid.length > 0 ? 1 : 0);
        const result = applied.json<PlanJson>();
        expect(result.format).toBe(format);
        // Every source column is listed once: the field it feeds, or not imported (and why).
        expect(result.columns.map((c) => c.header)).toEqual(headerOf(path));
        expect(result.counts['invalid']).toBe(invalid.length);
        const products = expected();
        expect(result.counts['create']).toBe(products.length - invalid.length);
        const live = run.byRef();
        for (const e of products) {
          if (invalid.includes(e.reference)) expect(live.has(e.reference), e.reference).toBe(false);
          else compare(live.get(e.reference), e);
        }

        run.sandbox.clearRequestLog();
        const again = await run.cli('import', 'products', path, '--apply', '--yes', '--json', ...MIGRATE);
        expect(again.code, again.stderr).toBe(applied.code);
        expect(again.json<PlanJson>().counts['noop']).toBe(products.length - invalid.length);
        expect(run.writes()).toEqual([]);
      } finally {
        await run.sandbox.close();
      }
    },
  );
});
