import { describe, expect, it } from 'vitest';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import {
  unpackProduct,
  type ProductMapping,
  type ProductMappingOptions,
} from '../../../src/mapping/product-desired.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from './sheet-fixture.js';

const HEADER = [
  'reference_id',
  'sku',
  'name',
  'description',
  'price',
  'tags',
  'images',
  'variant_sku',
  'variant_name',
  'variant_price',
  'variant_description',
];
const PRODUCTS = 900;

/**
 * 900 products of three variant rows each, their rows far apart (every product's first row, then
 * every second row, then every third): no product's rows are next to each other, so a mapper that
 * parks products unparks and merges each of them twice. And scattered troubles: a conflicting value
 * on a product's last row, a variant SKU of another product, too many images, a row cut short,
 * an unkeyed row, and options for products parked long before.
 */
function catalog(): { products: ReturnType<typeof sheet>; options: ReturnType<typeof sheet> } {
  const rows: CellValue[][] = [];
  const images = (n: number) =>
    Array.from({ length: n }, (_, i) => `https://img.example/${n}-${i}.png`).join('|');
  for (let v = 0; v < 3; v++) {
    for (let p = 0; p < PRODUCTS; p++) {
      const ref = `R${p}`;
      const first = v === 0;
      rows.push([
        ref,
        first ? ref : '',
        first || p % 7 === 0 ? `Product ${p}` : '',
        first ? `About ${p}` : '',
        first ? `${10 + (p % 50)}.00` : '',
        first ? `t${p % 5}|all` : '',
        first && p === 11 ? images(12) : first ? images(1) : '',
        p === 20 && v === 2 ? 'R800-V0' : `R${p}-V${v}`,
        ['S', 'M', 'L'][v] ?? '',
        v === 1 && p % 9 === 0 ? '' : `${10 + v}.50`,
        v === 2 ? '' : `size ${v}`,
      ]);
    }
  }
  // Product 5's name again, different, at the very end: an error naming that cell.
  rows.push(['R5', '', 'Renamed', '', '', '', '', 'R5-V9', 'XL', '1.00', '']);
  rows.push(['', '', 'No key', '', '', '', '', '', '', '', '']);
  const products = sheet('products', HEADER, rows);
  // A row cut short (its product invalid as a whole).
  const cut = products.rows[PRODUCTS + 40];
  if (cut !== undefined) cut.cutShort = true;
  const options = sheet(
    'options',
    ['reference_id', 'option_text', 'option_type', 'option_choices'],
    [
      ['R3', 'Gift wrap', 'CHECKBOX', ''],
      ['R850', 'Engraving', 'TEXT', ''],
      ['R3', 'gift wrap', 'CHECKBOX', ''],
      ['R9999', 'Nothing', 'TEXT', ''],
    ],
  );
  return { products, options };
}

function mapped(options: Partial<ProductMappingOptions>): ProductMapping {
  const { products, options: optionSheet } = catalog();
  return mapProductRows(products, { decimals: 2, ...options }, optionSheet);
}

describe('a sheet mapped with its products packed (pack)', () => {
  for (const variant of [
    {},
    { blank: 'clear' as const },
    { duplicateSku: 'first' as const, images: 'first-10' as const },
  ]) {
    it(`gives, once unpacked, the products and issues of the mapping without it (${JSON.stringify(variant)})`, () => {
      const plain = mapped(variant);
      const packed = mapped({ ...variant, pack: true });
      // Only the last products used are left unpacked when the sheet ends.
      const open = packed.products.filter((p) => p.packed === undefined).length;
      expect(open).toBeLessThanOrEqual(300);
      expect(packed.products.length).toBe(plain.products.length);
      expect(packed.issues).toEqual(plain.issues);
      for (const p of packed.products) unpackProduct(p);
      expect(packed.products).toEqual(plain.products);
      expect(packed.products.every((p) => p.packed === undefined && p.unpacker === undefined)).toBe(true);
    });
  }

  it('still names the exact cell of a conflict on a product parked long before', () => {
    const packed = mapped({ pack: true });
    const r5 = packed.products.find((p) => p.key.value === 'R5');
    expect(r5?.invalid).toBe(true);
    expect(r5?.issues).toContainEqual(
      expect.objectContaining({
        code: 'conflicting_value',
        rowNumber: 3 * PRODUCTS + 2,
        column: 'C',
        message: expect.stringContaining(
          'name is "Product 5" on row 7 of this product but "Renamed" here',
        ) as string,
      }),
    );
    const r20 = packed.products.find((p) => p.key.value === 'R20');
    expect(r20?.issues.map((i) => i.code)).toContain('duplicate_variant_sku');
    const r3 = unpackProduct(packed.products.find((p) => p.key.value === 'R3') ?? packed.products[0]!);
    expect(r3.options?.map((o) => o.text)).toEqual(['Gift wrap']);
    expect(r3.rows.map((r) => `${r.sheet}:${r.rowNumber}`)).toEqual([
      'products:5',
      `products:${PRODUCTS + 5}`,
      `products:${2 * PRODUCTS + 5}`,
      'options:2',
      'options:4',
    ]);
  });
});
