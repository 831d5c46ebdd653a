import { describe, expect, it } from 'vitest';
import { ShopifyProductConverter } from '../../../src/formats/shopify/shopify-product-converter.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

const HEADER = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Option1 Name',
  'Option1 Value',
  'Variant SKU',
  'Variant Inventory Tracker',
  'Variant Inventory Qty',
  'Variant Price',
  'Variant Barcode',
  'Image Src',
  'Image Position',
  'Gift Card',
  'Type',
];

/** 300 products (variants, image-only rows, a gift card, a duplicate variant, oversold stock, quirks). */
function exportRows(): CellValue[][] {
  const rows: CellValue[][] = [];
  for (let p = 0; p < 300; p++) {
    const h = `p-${p}`;
    rows.push([
      h,
      `Product ${p}`,
      `<p>About <b>${p}</b></p><script>x()</script>`,
      'Size',
      'S',
      p === 7 ? "'10" : `${h}-S`,
      'shopify',
      p === 9 ? '-2' : '3',
      '5.00',
      p === 8 ? '8.5E+11' : '',
      `https://img.example/${h}-2.jpg`,
      '2',
      p === 3 ? 'true' : 'false',
      `Type ${p % 4}`,
    ]);
    rows.push([
      h,
      '',
      '',
      '',
      p === 11 ? 'S' : 'M',
      `${h}-M`,
      'shopify',
      '1',
      p % 5 === 0 ? '4.00' : '6.00',
      '',
      '',
      '',
      '',
      '',
    ]);
    rows.push([h, '', '', '', '', '', '', '', '', '', `https://img.example/${h}-1.jpg`, '1', '', '']);
  }
  return rows;
}

function run(data: CellValue[][], how: 'finish' | 'stream') {
  const s = sheet('products_export', HEADER, data);
  const converter = new ShopifyProductConverter(s.columns, s.sheet);
  for (const row of s.rows) converter.addRow(row);
  const out = how === 'finish' ? converter.finish() : converter.stream();
  const rows = [...out.rows];
  return { ...out, rows, categories: [...(out.categories ?? new Map<number, string[]>())] };
}

describe('a Shopify export converted one product at a time (stream)', () => {
  it('gives the rows, issues, skipped rows and categories of finish(), in the same order', () => {
    const data = exportRows();
    const whole = run(data, 'finish');
    const streamed = run(data, 'stream');
    // The gift card and the product with two variants of one name give no rows.
    expect(streamed.rows.length).toBe(900 - 6);
    expect(streamed).toEqual(whole);
    expect(whole.issues.map((i) => i.code)).toEqual(
      expect.arrayContaining([
        'gift_card_skipped',
        'duplicate_variant',
        'negative_stock',
        'shopify_apostrophe_removed',
        'excel_scientific',
      ]),
    );
  });

  it('makes each product only when its rows are asked for', () => {
    const s = sheet('products_export', HEADER, exportRows());
    const converter = new ShopifyProductConverter(s.columns, s.sheet);
    for (const row of s.rows) converter.addRow(row);
    const out = converter.stream();
    const it = out.rows[Symbol.iterator]();
    expect(it.next().value).toMatchObject({
      rowNumber: 2,
      cells: { reference_id: 'p-0', name: 'Product 0' },
    });
    // One product converted so far: its issues alone, none of the later products'.
    expect(out.issues).toEqual([]);
  });

  it("an export with a product's rows apart comes out as finish() gives it (sorted by row)", () => {
    const data = exportRows();
    // p-5's image-only row moved to the end, p-6's second variant to the start.
    const moved = [
      data[5 * 3 + 1] as CellValue[],
      ...data.filter((_, i) => i !== 5 * 3 + 2 && i !== 6 * 3 + 1),
      data[5 * 3 + 2] as CellValue[],
    ];
    expect(run(moved, 'stream')).toEqual(run(moved, 'finish'));
  });
});
