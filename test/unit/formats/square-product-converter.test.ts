import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors/usage-error.js';
import { detectProductFormat } from '../../../src/formats/detect-format.js';
import { SquareProductConverter } from '../../../src/formats/square/square-product-converter.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

const HEADER = [
  'Token',
  'Item Name',
  'Variation Name',
  'SKU',
  'Description',
  'Categories',
  'Square Online Item Visibility',
  'Item Type',
  'Weight (lb)',
  'Price',
  'Online Sale Price',
  'Archived',
  'Option Name 1',
  'Option Value 1',
  'Option Name 2',
  'Option Value 2',
  'Default Unit Cost',
  'Current Quantity Main St',
  'Current Quantity Warehouse',
];

function convert(data: CellValue[][], location?: string) {
  const s = sheet('catalog', HEADER, data);
  const converter = new SquareProductConverter(s.columns, s.sheet, { location });
  for (const row of s.rows) converter.addRow(row);
  const converted = converter.finish();
  const mapping = mapProductRows(
    { columns: converted.columns, rows: converted.rows, sheet: s.sheet },
    { decimals: 2 },
  );
  return { converted, product: (ref: string) => mapping.products.find((p) => p.key.value === ref) };
}

const ROWS: CellValue[][] = [
  // An item of two variations (two options), one on sale, stock at two locations.
  [
    'T1',
    'Tee',
    'Red, S',
    'TEE-R-S',
    '<p>Soft <b>cotton</b></p>',
    'Shirts > Tees, Sale',
    'visible',
    'Physical good',
    '0.5',
    '20.00',
    '',
    'N',
    'Colour',
    'Red',
    'Size',
    'S',
    '8.00',
    '3',
    '4',
  ],
  [
    'T2',
    'Tee',
    'Red, M',
    'TEE-R-M',
    '',
    'Shirts > Tees, Sale',
    'visible',
    'Physical good',
    '0.5',
    '20.00',
    '15.00',
    'N',
    'Colour',
    'Red',
    'Size',
    'M',
    '8.00',
    '',
    '-2',
  ],
  // An item whose one variation is Square's default: a product without variants.
  [
    'M1',
    'E-book',
    'Regular',
    'EBOOK',
    'Read me',
    'Books',
    'hidden',
    'Digital good',
    '',
    '9.50',
    '',
    'N',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
  ],
  // Archived: hidden whatever its visibility.
  ['A1', 'Old mug', '', 'MUG', '', '', 'visible', '', '', '5', '', 'Y', '', '', '', '', '', '7', ''],
];

describe('Square item library export (issue 38)', () => {
  it('is recognised by its header', () => {
    const s = sheet('catalog', HEADER, []);
    expect(detectProductFormat(s.columns).format).toBe('square');
  });

  it('variations by Item Name, named by their option values; sale price with Price as the original; lb → grams; stock summed over the locations (oversold: 0); categories; archived and hidden → HIDDEN; Digital good → DIGITAL', () => {
    const { converted, product } = convert(ROWS);
    const tee = product('square:Tee');
    expect(tee?.fields).toMatchObject({
      name: 'Tee',
      description: 'Soft **cotton**',
      status: 'VISIBLE',
      type: 'PHYSICAL',
      price: 1500, // the lowest variation price
      inventory_enabled: true,
    });
    expect(tee?.variants.map((v) => v.fields)).toEqual([
      { name: 'Red / S', sku: 'TEE-R-S', price: 2000, cost: 800, weight: 227, inventory_quantity: 7 },
      {
        name: 'Red / M',
        sku: 'TEE-R-M',
        price: 1500,
        original_price: 2000,
        cost: 800,
        weight: 227,
        inventory_quantity: 0,
      },
    ]);
    expect(product('square:E-book')?.fields).toMatchObject({
      sku: 'EBOOK',
      price: 950,
      status: 'HIDDEN',
      type: 'DIGITAL',
    });
    expect(product('square:E-book')?.variants).toEqual([]);
    expect(product('square:E-book')?.fields.inventory_enabled).toBeUndefined();
    expect(product('square:Old mug')?.fields).toMatchObject({ status: 'HIDDEN', inventory_quantity: 7 });
    expect(converted.categories?.get(2)).toEqual(['Shirts > Tees', 'Sale']);
    expect(converted.issues.map((i) => i.code)).toEqual(['square_key_from_name', 'negative_stock']);
    expect(converted.issues[0]?.message).toBe(
      "3 items keyed by Item Name (reference_id square:ITEM NAME: Square's export has no item id), so renaming one in Square makes it a new product on the next import; stock is the sum of 2 locations (Main St, Warehouse): --location NAME takes one location's",
    );
  });

  it('--location takes one location: a variation without a number there has no count; an unknown location is a usage error naming the locations', () => {
    const { product } = convert(ROWS, 'main st');
    expect(product('square:Tee')?.variants.map((v) => v.fields.inventory_quantity)).toEqual([3, undefined]);
    expect(() => convert(ROWS, 'Back room')).toThrow(UsageError);
    expect(() => convert(ROWS, 'Back room')).toThrow(
      '--location "Back room" is not a location of this Square export; its locations: "Main St", "Warehouse"',
    );
  });
  it('two Square items of the same name (rows apart) are not merged: the later one is an error naming both rows', () => {
    const row = (token: string, name: string, sku: string, price: string): CellValue[] => [
      token,
      name,
      'Regular',
      sku,
      '',
      '',
      'visible',
      '',
      '',
      price,
      '',
      'N',
      '',
      '',
      '',
      '',
      '',
      '2',
      '',
    ];
    const { converted, product } = convert([
      row('M1', 'Mug', 'MUG-BLUE', '5'),
      row('P1', 'Plate', 'PLATE', '7'),
      row('M2', 'Mug', 'MUG-RED', '6'),
    ]);
    const errors = converted.issues.filter((i) => i.severity === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'square_duplicate_item_name',
        rowNumber: 4,
        header: 'Item Name',
        message:
          'two Square items are named "Mug" (rows 2 and 4); rename one in Square and export again, or give the later item\'s rows another Item Name in this file',
      }),
    ]);
    expect(product('square:Mug')?.fields).toMatchObject({ sku: 'MUG-BLUE', price: 500 });
    expect(product('square:Mug')?.variants).toEqual([]);
    expect(product('square:Plate')?.fields).toMatchObject({ sku: 'PLATE' });

    // The advice holds: the later item's rows renamed in the file are a product of their own.
    const renamed = convert([
      row('M1', 'Mug', 'MUG-BLUE', '5'),
      row('P1', 'Plate', 'PLATE', '7'),
      row('M2', 'Red Mug', 'MUG-RED', '6'),
    ]);
    expect(renamed.converted.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(renamed.product('square:Mug')?.fields).toMatchObject({ sku: 'MUG-BLUE', price: 500 });
    expect(renamed.product('square:Red Mug')?.fields).toMatchObject({ sku: 'MUG-RED', price: 600 });
  });
});
