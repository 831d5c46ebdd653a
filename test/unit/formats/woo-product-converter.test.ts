import { describe, expect, it } from 'vitest';
import { WooProductConverter } from '../../../src/formats/woocommerce/woo-product-converter.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

const HEADER = [
  'ID',
  'Type',
  'SKU',
  'Name',
  'Published',
  'Description',
  'In stock?',
  'Stock',
  'Regular price',
  'Images',
  'Parent',
  'Attribute 1 value(s)',
];

/** Converts a small WooCommerce export and maps the result as the import does. */
function convert(data: CellValue[][]) {
  const s = sheet('wc-product-export', HEADER, data);
  const converter = new WooProductConverter(s.columns, s.sheet);
  for (const row of s.rows) converter.addRow(row);
  const converted = converter.finish();
  const mapping = mapProductRows(
    { columns: converted.columns, rows: converted.rows, sheet: s.sheet },
    { decimals: 2 },
  );
  return { converted, mapping, product: (ref: string) => mapping.products.find((p) => p.key.value === ref) };
}

const urls = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `https://x.example/${from + i}.jpg`);

describe("WooCommerce's last quirks (issue 38)", () => {
  it("the exporter's \\n is a line break, its \\\\n a literal \\n, in plain text and in HTML", () => {
    const { product } = convert([
      ['1', 'simple', 'A', 'Plain', '1', 'First line.\\n\\nSecond line.', '1', '', '5', '', '', ''],
      [
        '2',
        'simple',
        'B',
        'Html',
        '1',
        '<p>One</p>\\n<p>Two<br />\\nThree\\nFour</p>',
        '1',
        '',
        '5',
        '',
        '',
        '',
      ],
      ['3', 'simple', 'C', 'Literal', '1', 'C:\\\\new folder', '1', '', '5', '', '', ''],
    ]);
    expect(product('woo:1')?.fields.description).toBe('First line.\n\nSecond line.');
    expect(product('woo:2')?.fields.description).toBe('One\n\nTwo\nThree\nFour');
    // The backslash of the literal \n is escaped for the Markdown subset: the storefront shows C:\new folder.
    expect(product('woo:3')?.fields.description).toBe('C:\\\\new folder');
  });

  it("variations' images follow the product's, in order, each once, up to 10; the others are listed as not imported", () => {
    const { converted, product } = convert([
      ['10', 'variable', 'V', 'Tee', '1', '', '1', '', '', urls(2).join(', '), '', ''],
      [
        '11',
        'variation',
        '',
        'Tee - Red',
        '1',
        '',
        '1',
        '3',
        '5',
        `${urls(1, 1).join('')}, ${urls(5, 2).join(', ')}`,
        'id:10',
        'Red',
      ],
      ['12', 'variation', '', 'Tee - Blue', '1', '', '1', '3', '5', urls(6, 7).join(', '), 'id:10', 'Blue'],
    ]);
    expect(product('woo:10')?.fields.images).toEqual(urls(10));
    const note = converted.issues.find((i) => i.code === 'variation_images_dropped');
    expect(note?.message).toBe(
      `"Tee" has 13 images with its variations' and a product has at most 10; 3 variation images not imported: ${urls(3, 10).join(' ')}`,
    );
    expect(note?.rowNumber).toBe(2);
  });

  it('a variable product whose variations are all virtual or downloadable is DIGITAL; one physical variation keeps it PHYSICAL', () => {
    const { product } = convert([
      ['20', 'variable', 'E', 'Ebook', '1', '', '1', '', '', '', '', ''],
      ['21', 'variation, virtual', '', 'Ebook - PDF', '1', '', '1', '', '5', '', 'id:20', 'PDF'],
      [
        '22',
        'variation, downloadable, virtual',
        '',
        'Ebook - EPUB',
        '1',
        '',
        '1',
        '',
        '5',
        '',
        'id:20',
        'EPUB',
      ],
      ['30', 'variable', 'M', 'Music', '1', '', '1', '', '', '', '', ''],
      ['31', 'variation, downloadable', '', 'Music - MP3', '1', '', '1', '', '5', '', 'id:30', 'MP3'],
      ['32', 'variation', '', 'Music - Vinyl', '1', '', '1', '', '25', '', 'id:30', 'Vinyl'],
    ]);
    expect(product('woo:20')?.fields.type).toBe('DIGITAL');
    expect(product('woo:30')?.fields.type).toBeUndefined();
  });

  it('out of stock without a stock number: tracked with stock 0, not untracked (on sale)', () => {
    const { product } = convert([
      ['40', 'simple', 'S', 'Sold out', '1', '', '0', '', '5', '', '', ''],
      ['41', 'simple', 'T', 'Not managed', '1', '', '1', '', '5', '', '', ''],
      ['50', 'variable', 'W', 'Woolly', '1', '', '1', '', '', '', '', ''],
      ['51', 'variation', '', 'Woolly - S', '1', '', '0', '', '5', '', 'id:50', 'S'],
      ['52', 'variation', '', 'Woolly - M', '1', '', '1', '4', '5', '', 'id:50', 'M'],
    ]);
    expect(product('woo:40')?.fields).toMatchObject({ inventory_enabled: true, inventory_quantity: 0 });
    expect(product('woo:41')?.fields.inventory_enabled).toBeUndefined();
    expect(product('woo:50')?.fields.inventory_enabled).toBe(true);
    expect(product('woo:50')?.variants.map((v) => v.fields.inventory_quantity)).toEqual([0, 4]);
  });
});
