import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, harness, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.sandbox.close();
});

interface PlanJson {
  runId: string;
  format: string;
  counts: Record<string, number>;
  columns: { header: string; field: string | null }[];
}

describe('real platform exports, as they are', () => {
  // Every real export is migrated into an empty store, compared with its source and imported again
  // in migrations.test.ts; here, what the sample store (MYR) adds: its prices.
  it("a migration brings the other platform's prices: over 10× the store's median, --apply refuses until --allow-price-jumps", async () => {
    const path = join(FIXTURES, 'shopify/packt_products_export_1.csv');
    const plan = await h.cli('import', 'products', path, '--json');
    expect(plan.code, plan.stderr).toBe(0);
    const p = plan.json<PlanJson & { priceJumps?: unknown[] }>();
    expect(p.counts['invalid rows']).toBe(0);
    // Every source column is listed once, mapped or not imported.
    const header = readFileSync(path, 'utf8').split(/\r?\n/)[0] as string;
    expect(p.columns.map((c) => c.header)).toHaveLength(header.split(',').length);
    // A 750.00 bowl against the sample store's median of 53.90.
    expect((p.priceJumps ?? []).length).toBeGreaterThan(0);
    const refused = await h.cli('import', 'products', path, '--apply', '--no-category', '--yes', '--json');
    expect(refused.code, refused.stderr).toBe(3);
    expect(h.writes()).toEqual([]);
    const applied = await h.cli(
      'import',
      'products',
      path,
      '--apply',
      '--no-category',
      '--yes',
      '--allow-price-jumps',
      '--json',
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(h.writes().filter((w) => w.method === 'POST')).toHaveLength(20);
  });

  it('Shopify template: 12 Color / Size variants, image-only row, draft and archived, Markdown description', async () => {
    const applied = await h.cli(
      'import',
      'products',
      join(FIXTURES, 'shopify/product_template.csv'),
      '--apply',
      '--no-category',
      '--yes',
    );
    expect(applied.code, applied.stderr).toBe(0);
    const live = h.byRef();
    const shirt = live.get('example-shirt');
    expect(shirt?.variants.map((v) => v.name).slice(0, 3)).toEqual(['Green / S', 'Green / M', 'Green / L']);
    expect(shirt?.variants).toHaveLength(12);
    expect(shirt?.status).toBe('VISIBLE');
    expect(shirt?.tags).toEqual(['Made to Order', 'Shirt Tag']);
    expect(shirt?.description).not.toMatch(/<\/?p>/);
    const pants = live.get('example-pants');
    expect(pants?.images).toHaveLength(4); // one of them only on an image-only row
    expect(pants?.status).toBe('HIDDEN'); // draft
    expect(live.get('example-hat')?.status).toBe('HIDDEN'); // archived
    expect(live.get('example-hat')?.variants).toEqual([]); // Default Title → product-level
  });

  it('WooCommerce sample: variable product with variations named by attribute values, sale price, grouped/external rows left out in results.csv', async () => {
    const applied = await h.cli(
      'import',
      'products',
      join(FIXTURES, 'woocommerce/sample_products.csv'),
      '--apply',
      '--no-category',
      '--yes',
      '--json',
    );
    expect(applied.code, applied.stderr).toBe(0);
    const live = h.byRef();
    const hoodie = live.get('woo:45');
    expect(hoodie?.variants.map((v) => v.name)).toEqual([
      'Blue / Yes',
      'Red / No',
      'Green / No',
      'Blue / No',
    ]);
    expect(hoodie?.variants.find((v) => v.name === 'Red / No')).toMatchObject({
      price: 4200,
      original_price: 4500,
    });
    const beanie = live.get('woo:48');
    expect(beanie).toMatchObject({ price: 1800, original_price: 2000, status: 'VISIBLE' });
    const runDir = join(h.dir, '.mbulk/runs', applied.json<{ runId: string }>().runId);
    const results = readFileSync(join(runDir, 'results.csv'), 'utf8');
    expect(results).toMatch(/,24,left_out,.*grouped_product/);
    expect(results).toMatch(/,25,left_out,.*external_product/);
    expect(results.trim().split('\n')).toHaveLength(26); // header + every one of the 25 rows
  });
});

describe('categories, so that the storefront lists what a migration creates (issue 38)', () => {
  const WOO = join(FIXTURES, 'woocommerce/sample_products.csv');
  interface CategoryJson {
    runDir: string;
    refused?: string;
    counts: Record<string, number>;
    categories: {
      without: number;
      byCategory: Record<string, number>;
      live: Record<string, number>;
      suggested: Record<string, string>;
      unknownIds: string[];
    };
  }

  it("the plan counts new products without a category, lists the store's ids with a map suggested by name; --apply refuses (exit 3, 0 writes) until a choice", async () => {
    const plan = await h.cli('import', 'products', WOO, '--json', '--allow-price-jumps');
    expect(plan.code, plan.stderr).toBe(0);
    const json = plan.json<CategoryJson>();
    expect(json.categories.without).toBe(json.counts['create']);
    expect(json.categories.live).toMatchObject({ cat_apparel: 6, cat_accessories: 3 });
    expect(json.categories.suggested).toEqual({ 'Clothing > Accessories': 'cat_accessories' });
    const text = await h.cli('import', 'products', WOO);
    expect(text.stderr).toContain(
      `Categories: ${json.counts['create']} new products would have no category, so they are not listed on the storefront: --apply refuses (nothing is written) until you choose --category-map FILE`,
    );
    expect(text.stdout).toMatch(/^Store categories: cat_apparel \(6 products\), /m);
    expect(text.stdout).toContain(
      'Suggested --category-map (by name): {"categories":{"Clothing > Accessories":"cat_accessories"}}',
    );
    expect(text.stdout).toMatch(/Categories → category_ids/);

    const refused = await h.cli(
      'import',
      'products',
      WOO,
      '--apply',
      '--yes',
      '--json',
      '--allow-price-jumps',
    );
    expect(refused.code).toBe(3);
    expect(refused.json<CategoryJson>().refused).toContain('no category:');
    expect(h.writes()).toEqual([]);
    const saved = await h.cli('apply', refused.json<{ runId: string }>().runId, '--yes');
    expect(saved.code).toBe(3);
    expect(h.writes()).toEqual([]);
    // --no-category: created unlisted, and the plan says so.
    const unlisted = await h.cli('import', 'products', WOO, '--no-category', '--allow-price-jumps');
    expect(unlisted.stderr).toContain(
      `Categories: ${json.counts['create']} new products would have no category, so they are not listed on the storefront (--no-category)`,
    );
  });

  it("--category-map (by path, last name or parent) and --default-category: every created product gets a category, each category's count in the plan, an id the store does not use warned; again: 0 writes", async () => {
    const map = join(h.dir, 'categories.json');
    writeFileSync(
      map,
      JSON.stringify({
        categories: {
          Clothing: 'cat_apparel',
          Accessories: ['cat_accessories', 'cat_sale'],
          'Clothing > Tshirts': 'cat_tees',
        },
      }),
    );
    const flags = ['--category-map', map, '--default-category', 'cat_best-sellers', '--allow-price-jumps'];
    const text = await h.cli('import', 'products', WOO, ...flags);
    expect(text.stdout).toMatch(
      /^Categories: cat_tees gets 5 new products, .*cat_best-sellers gets 2 new products$/m,
    );
    expect(text.stderr).toContain('Categories not in --category-map: "Music" (2 products)');
    expect(text.stderr).toContain(
      'warning: category id "cat_tees" is used by no product of the store: check it (written as given)',
    );
    const applied = await h.cli('import', 'products', WOO, '--apply', '--yes', '--json', ...flags);
    expect(applied.code, applied.stderr).toBe(0);
    const json = applied.json<CategoryJson>();
    expect(json.categories.without).toBe(0);
    const live = [...h.byRef().values()].filter((p) => p.reference_id?.startsWith('woo:'));
    expect(live.length).toBe(json.counts['create']);
    expect(live.filter((p) => p.category_ids.length === 0)).toEqual([]);
    const byName = new Map(live.map((p) => [p.name, p.category_ids]));
    expect(byName.get('Polo')).toEqual(['cat_tees']); // Clothing > Tshirts: by its path
    expect(byName.get('Belt')).toEqual(['cat_accessories', 'cat_sale']); // Clothing > Accessories: by its last name
    expect(byName.get('Hoodie')).toEqual(['cat_apparel']); // Clothing > Hoodies: by its parent
    expect(byName.get('Album')).toEqual(['cat_best-sellers']); // Music: not in the map, the default
    expect(json.categories.byCategory).toEqual({
      cat_tees: 5,
      cat_apparel: 4,
      cat_accessories: 5,
      cat_sale: 5,
      'cat_best-sellers': 2,
    });
    expect(json.categories.unknownIds).toEqual(['cat_tees']);
    h.sandbox.clearRequestLog();
    const again = await h.cli('import', 'products', WOO, '--apply', '--yes', '--json', ...flags);
    expect(again.code, again.stderr).toBe(0);
    expect(h.writes()).toEqual([]);
  });
});
