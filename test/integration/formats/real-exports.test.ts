import { readFileSync } from 'node:fs';
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
    const refused = await h.cli('import', 'products', path, '--apply', '--yes', '--json');
    expect(refused.code, refused.stderr).toBe(3);
    expect(h.writes()).toEqual([]);
    const applied = await h.cli(
      'import',
      'products',
      path,
      '--apply',
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
