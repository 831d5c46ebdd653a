import { describe, expect, it } from 'vitest';
import { WixProductConverter } from '../../../src/formats/wix/wix-product-converter.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

const HEADER = [
  'handleId',
  'fieldType',
  'name',
  'productImageUrl',
  'collection',
  'sku',
  'price',
  'surcharge',
  'visible',
  'inventory',
  'weight',
  'productOptionName1',
  'productOptionDescription1',
  'productOptionName2',
  'productOptionDescription2',
];

function convert(data: CellValue[][]) {
  const s = sheet('catalog_products', HEADER, data);
  const converter = new WixProductConverter(s.columns, s.sheet);
  for (const row of s.rows) converter.addRow(row);
  const converted = converter.finish();
  const mapping = mapProductRows(
    { columns: converted.columns, rows: converted.rows, sheet: s.sheet },
    { decimals: 2 },
  );
  return { converted, product: (ref: string) => mapping.products.find((p) => p.key.value === ref) };
}

describe('Wix Stores product export (issue 38)', () => {
  it('variant price = price + surcharge; weight kg → grams; media ids → static.wixstatic.com URLs; a colour value without its code; OutOfStock is 0, InStock no count', () => {
    const { converted, product } = convert([
      [
        'p1',
        'Product',
        'Tee',
        'a1_x~mv2.jpg;a1_y~mv2.png',
        'Shirts;Sale',
        '',
        '20.0',
        '',
        'true',
        '',
        '0.25',
        'Colour',
        '#b81616:Red;rgb(1,2,3):Cream',
        'Size',
        'S;L',
      ],
      ['p1', 'Variant', '', '', '', 'T-R-S', '', '', 'true', '4', '', '', '#b81616:Red', '', 'S'],
      [
        'p1',
        'Variant',
        '',
        '',
        '',
        'T-C-L',
        '',
        '2.5',
        'true',
        'OutOfStock',
        '0.3',
        '',
        'rgb(1,2,3):Cream',
        '',
        'L',
      ],
      ['p2', 'Product', 'Mug', '', '', 'MUG', '9.0', '', 'false', 'InStock', '', '', '', '', ''],
    ]);
    const tee = product('wix:p1');
    expect(tee?.fields).toMatchObject({
      name: 'Tee',
      price: 2000,
      weight: 250,
      status: 'VISIBLE',
      inventory_enabled: true,
      images: [
        'https://static.wixstatic.com/media/a1_x~mv2.jpg',
        'https://static.wixstatic.com/media/a1_y~mv2.png',
      ],
    });
    expect(tee?.variants.map((v) => v.fields)).toEqual([
      { name: 'Red / S', sku: 'T-R-S', price: 2000, inventory_quantity: 4 },
      { name: 'Cream / L', sku: 'T-C-L', price: 2250, weight: 300, inventory_quantity: 0 },
    ]);
    expect(product('wix:p2')?.fields).toMatchObject({ sku: 'MUG', price: 900, status: 'HIDDEN' });
    expect(product('wix:p2')?.fields.inventory_enabled).toBeUndefined();
    expect(converted.categories?.get(2)).toEqual(['Shirts', 'Sale']);
  });
});
