import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, harness, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.sandbox.close();
});

const runDir = (runId: string) => join(h.dir, '.mbulk/runs', runId);

describe('Shopify traps', () => {
  it('three options, image-only rows, Default Title, draft/archived/unpublished, unicode handle, gift card, >10 images, HTML', async () => {
    const file = join(FIXTURES, 'shopify-traps.csv');
    const applied = await h.cli('import', 'products', file, '--apply', '--no-category', '--yes', '--json');
    expect(applied.code).toBe(1); // the product with 11 images is invalid
    const live = h.byRef();

    const tee = live.get('tee-3opt');
    expect(tee?.variants.map((v) => v.name)).toEqual([
      'Red / S / Slim',
      'Red / M / Regular',
      'Blue / M / Slim',
    ]);
    expect(tee?.variants[0]).toMatchObject({
      sku: 'TEE-R-S-SL',
      price: 2000,
      original_price: 2500,
      cost: 850,
      weight: 200,
    });
    expect(tee?.variants[1]?.inventory?.quantity).toBe(0); // -2 oversold → 0, with a note
    expect(tee?.price).toBe(1900); // lowest variant price
    expect(tee?.inventory_enabled).toBe(true);
    expect(tee?.tags).toEqual(['summer', 'cotton', 'new']);
    expect(tee?.images).toHaveLength(3); // positions 1, 2, 3, the third on an image-only row
    expect(tee?.description).toBe(
      '**Details**\n\n• Cotton & linen\n• Made in **Portugal**\n\nSize | Chest\nS | 90 cm',
    );

    const mug = live.get('mug-default');
    expect(mug).toMatchObject({
      sku: 'MUG-1',
      price: 990,
      original_price: 1200,
      weight: 350,
      status: 'HIDDEN',
    });
    expect(mug?.variants).toEqual([]);
    expect(mug?.description).toBe('Plain _text_ with');
    expect(live.get('old-cap')?.status).toBe('HIDDEN'); // archived
    expect(live.get('hidden-scarf')?.status).toBe('HIDDEN'); // active but Published FALSE
    expect(live.get('café-crème-größe')?.variants.map((v) => v.name)).toEqual(['Groß', 'Klein']);
    expect(live.get('café-crème-größe')?.description).toBe('Café – crème');
    // Markdown link syntax written as text in Body (HTML) is no live link: no javascript: stored.
    const js = live.get('js-body');
    expect(js?.description).toBe('x costs 2\\*3 **now**');
    expect(js?.description).not.toContain('javascript:');
    // Shopify's leading ' on a number-like SKU is not part of it.
    expect(js?.sku).toBe('10');
    expect(live.has('gift-card')).toBe(false);
    expect(live.has('many-images')).toBe(false);
    expect(live.has('dup-variant')).toBe(false); // two variants named "S"

    const { runId } = applied.json<{ runId: string }>();
    const results = readFileSync(join(runDir(runId), 'results.csv'), 'utf8');
    expect(results).toMatch(/,11,left_out,.*gift_card/);
    expect(results).toMatch(/,12,left_out,.*gift_card/);
    expect(results).toMatch(/,4,created,/); // the image-only row is accounted for
    expect(results).toMatch(/,24,invalid,.*duplicate_variant/);
    expect(results).toMatch(/,25,invalid,.*duplicate_variant/);
    // failed.csv: the source's own columns, ready to fix and import again.
    const failed = readFileSync(join(runDir(runId), 'failed.csv'), 'utf8').replace(/^\uFEFF/, '');
    const source = readFileSync(file, 'utf8');
    expect(failed.split(/\r?\n/)[0]).toBe(`${source.split('\n')[0]},mbulk_error`);
    expect(failed.trim().split(/\r?\n/)).toHaveLength(1 + 11 + 2); // many-images and dup-variant rows
    expect(failed).toMatch(/^many-images,Many Images,/m);

    h.sandbox.clearRequestLog();
    const again = await h.cli('import', 'products', file, '--apply', '--no-category', '--yes', '--json');
    expect(again.code).toBe(1);
    expect(h.writes()).toEqual([]);
  });

  it('the plan names the format, notes lost HTML once, and lists every source column once', async () => {
    const plan = await h.cli('import', 'products', join(FIXTURES, 'shopify-traps.csv'));
    expect(plan.stdout).toMatch(/^Format: Shopify product export$/m);
    expect(plan.stdout).toMatch(/Columns not imported: Vendor, Option1 Name/);
    expect(plan.stdout).toMatch(/Type → category_ids/);
    expect(plan.stdout.match(/lost what the API cannot show: iframe/g)).toHaveLength(1);
  });
});

describe('WooCommerce traps', () => {
  it('variations before and after their parent, sale prices, grouped/external left out, orphan variation refused', async () => {
    const file = join(FIXTURES, 'woocommerce-traps.csv');
    const applied = await h.cli('import', 'products', file, '--apply', '--no-category', '--yes', '--json');
    expect(applied.code).toBe(1); // the orphan variation
    const live = h.byRef();
    const hoodie = live.get('woo:200');
    // Position order: Blue / S (1) before Red / L (2), though Red / L comes first in the file.
    expect(hoodie?.variants.map((v) => v.name)).toEqual(['Blue / S', 'Red / L']);
    expect(hoodie?.variants[0]).toMatchObject({ sku: 'HOOD-S-BLUE', price: 3800, weight: 450 });
    expect(hoodie?.variants[1]).toMatchObject({ sku: 'HOOD-L-RED', price: 3000, original_price: 4000 });
    expect(hoodie).toMatchObject({
      price: 3000,
      status: 'VISIBLE',
      tags: ['winter', 'warm'],
      description: 'Warm **hoodie**',
    });
    expect(hoodie?.images).toHaveLength(2);
    expect(live.get('woo:210')).toMatchObject({
      price: 1800,
      original_price: 2000,
      status: 'HIDDEN',
      description: 'Only a _short_ one',
      weight: 100,
    });
    expect(live.get('woo:211')).toMatchObject({ type: 'DIGITAL', status: 'HIDDEN', price: 1500 });
    expect(live.has('woo:220')).toBe(false);
    expect(live.has('woo:221')).toBe(false);
    const results = readFileSync(
      join(runDir(applied.json<{ runId: string }>().runId), 'results.csv'),
      'utf8',
    );
    expect(results).toMatch(/,7,left_out,.*grouped_product/);
    expect(results).toMatch(/,8,left_out,.*external_product/);
    expect(results).toMatch(/,9,invalid,.*variation_without_parent/);
  });
});

describe('Shopify prices with --decimal-comma', () => {
  it('reads 12,50 as 12.50 (the cell goes to the money decoder as written), and picks the lowest variant price', async () => {
    const file = join(h.dir, 'decimal-comma.csv');
    writeFileSync(
      file,
      [
        'Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price',
        'dc-mug,Mug,Size,Large,DC-L,"12,50"',
        'dc-mug,,,Small,DC-S,"9,90"',
      ].join('\n') + '\n',
    );
    const applied = await h.cli(
      'import',
      'products',
      file,
      '--decimal-comma',
      '--apply',
      '--no-category',
      '--yes',
      '--json',
    );
    expect(applied.code, applied.stderr).toBe(0);
    const mug = h.byRef().get('dc-mug');
    expect(mug?.price).toBe(990);
    expect(mug?.variants.map((v) => v.price)).toEqual([1250, 990]);
  });
});

describe('any other sheet: --map, --map-file, header row', () => {
  const MAP = 'Code=reference_id,Product title=name,Retail=price';

  it('finds the header below a title row and merged headings, and says on which row', async () => {
    const plan = await h.cli(
      'import',
      'products',
      join(FIXTURES, 'titled-sheet.csv'),
      '--map',
      MAP,
      '--json',
    );
    expect(plan.code, plan.stderr).toBe(0);
    const p = plan.json<{
      headerRow: number;
      counts: Record<string, number>;
      columns: { header: string; field: string | null }[];
    }>();
    expect(p.headerRow).toBe(4);
    expect(p.counts['create']).toBe(2);
    expect(p.columns).toEqual([
      { header: 'Code', letter: 'A', field: 'reference_id' },
      { header: 'Product title', letter: 'B', field: 'name' },
      { header: 'Retail', letter: 'C', field: 'price' },
      { header: 'Qty on hand', letter: 'D', field: null, note: 'not a product column' },
    ]);
    const text = await h.cli('import', 'products', join(FIXTURES, 'titled-sheet.csv'), '--map', MAP);
    expect(text.stdout).toMatch(/header on row 4/);
  });

  it('--header-row forces the row; --map-file reads templates/column-map.json; results keep row numbers', async () => {
    const mapFile = join(h.dir, 'map.json');
    writeFileSync(
      mapFile,
      JSON.stringify({ columns: { Code: 'reference_id', 'Product title': 'name', Retail: 'price' } }),
    );
    const applied = await h.cli(
      'import',
      'products',
      join(FIXTURES, 'titled-sheet.csv'),
      '--map-file',
      mapFile,
      '--header-row',
      '4',
      '--apply',
      '--no-category',
      '--yes',
      '--json',
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(h.byRef().get('SUP-1')).toMatchObject({ name: 'Green Tea', price: 420 });
    const results = readFileSync(
      join(runDir(applied.json<{ runId: string }>().runId), 'results.csv'),
      'utf8',
    );
    expect(results).toMatch(/,5,created,/);
    expect(results).toMatch(/,6,created,/);
    const template = await h.cli(
      'import',
      'products',
      join(FIXTURES, 'titled-sheet.csv'),
      '--map-file',
      resolve('templates/column-map.json'),
      '--json',
    );
    expect(template.code, template.stderr).toBe(2); // the template names other headers
    expect(template.stderr).toMatch(/not in the header/);
  });

  it('usage errors: a field that does not exist, a header the sheet lacks, a blank header row', async () => {
    const file = join(FIXTURES, 'titled-sheet.csv');
    const badField = await h.cli('import', 'products', file, '--map', 'Code=barcode');
    expect(badField.code).toBe(2);
    expect(badField.stderr).toMatch(/"barcode", which is not a product column/);
    const badHeader = await h.cli('import', 'products', file, '--map', 'EAN=variant_sku');
    expect(badHeader.code).toBe(2);
    expect(badHeader.stderr).toMatch(/"EAN", not in the header/);
    const blank = await h.cli('import', 'products', file, '--map', MAP, '--header-row', '2');
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/row 2, given as the header row, is blank/);
  });

  it('a header that resembles a Shopify export gets a hint', async () => {
    const file = join(h.dir, 'almost.csv');
    writeFileSync(file, 'Handle,Variant SKU,Variant Price\nmug,MUG-1,9.90\n');
    const plan = await h.cli('import', 'products', file);
    expect(plan.stderr + plan.stdout).toMatch(/looks like a Shopify product export, but Title is missing/);
    const forced = await h.cli('import', 'products', file, '--from', 'shopify', '--json');
    expect(forced.json<{ format: string }>().format).toBe('shopify');
  });
});
