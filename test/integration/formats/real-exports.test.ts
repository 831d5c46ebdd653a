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

const EXPORTS = [
  ['shopify/product_template.csv', 'shopify', 3],
  ['shopify/packt_products_export_1.csv', 'shopify', 20],
  ['woocommerce/sample_products.csv', 'woocommerce', 16],
  ['woocommerce/gopoma_sample_products_x16_bom_crlf.csv', 'woocommerce', 16],
  ['woocommerce/wc-product-export-28-7-2024-1722216242241.csv', 'woocommerce', 75],
] as const;

describe('real platform exports, as they are', () => {
  it.each(EXPORTS)(
    '%s: recognised, plans with no invalid row, applies, and a second import writes nothing',
    async (file, format, products) => {
      const path = join(FIXTURES, file);
      const plan = await h.cli('import', 'products', path, '--json');
      expect(plan.code, plan.stderr).toBe(0);
      const p = plan.json<PlanJson>();
      expect(p.format).toBe(format);
      expect(p.counts['invalid rows']).toBe(0);
      expect(p.counts['create']).toBe(products);
      // Every source column is listed once, mapped or not imported.
      const header = readFileSync(path, 'utf8')
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)[0] as string;
      expect(p.columns.map((c) => c.header)).toHaveLength(header.split(',').length);
      expect(h.writes()).toEqual([]);

      // A migration brings the other platform's prices: where one is over 10× the sample store's
      // median price, --apply refuses (exit 3, nothing written) until --allow-price-jumps.
      const jumps = (plan.json<{ priceJumps?: unknown[] }>().priceJumps ?? []).length;
      // Only the packt export has such prices (a 750.00 bowl against a median of 53.90).
      expect(jumps > 0).toBe(file === 'shopify/packt_products_export_1.csv');
      if (jumps > 0) {
        const refused = await h.cli('import', 'products', path, '--apply', '--yes', '--json');
        expect(refused.code, refused.stderr).toBe(3);
        expect(h.writes()).toEqual([]);
      }
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
      expect(h.writes().filter((w) => w.method === 'POST')).toHaveLength(products);

      h.sandbox.clearRequestLog();
      const again = await h.cli('import', 'products', path, '--apply', '--yes', '--json');
      expect(again.code, again.stderr).toBe(0);
      expect(again.json<PlanJson>().counts['noop']).toBe(products);
      expect(h.writes()).toEqual([]);
    },
  );

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
