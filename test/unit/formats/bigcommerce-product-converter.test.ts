import { describe, expect, it } from 'vitest';
import { detectProductFormat } from '../../../src/formats/detect-format.js';
import { BigCommerceProductConverter } from '../../../src/formats/bigcommerce/bigcommerce-product-converter.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

function convert(header: string[], data: CellValue[][]) {
  const s = sheet('products', header, data);
  const converter = new BigCommerceProductConverter(s.columns, s.sheet);
  for (const row of s.rows) converter.addRow(row);
  const converted = converter.finish();
  const mapping = mapProductRows(
    { columns: converted.columns, rows: converted.rows, sheet: s.sheet },
    { decimals: 2 },
  );
  return { converted, product: (ref: string) => mapping.products.find((p) => p.key.value === ref) };
}

const BULK = [
  'Item Type',
  'Product ID',
  'Product Name',
  'Product Type',
  'Product Code/SKU',
  'Product Description',
  'Price',
  'Cost Price',
  'Retail Price',
  'Sale Price',
  'Product Visible?',
  'Track Inventory',
  'Current Stock Level',
  'Category',
  'Product Image URL - 1',
  'Product Image URL - 2',
];

describe('BigCommerce products export (issue 38)', () => {
  it('the Bulk Edit template: recognised; Sale Price is the price and Price the original; Category paths with > (a \\/ kept in a name); image URL columns in order; SKU and Rule rows left out, each listed', () => {
    const s = sheet('products', BULK, []);
    expect(detectProductFormat(s.columns).format).toBe('bigcommerce');
    const { converted, product } = convert(BULK, [
      [
        'Product',
        '7',
        'Tee',
        'P',
        'TEE',
        '<p>Soft</p>',
        '20.00',
        '5.00',
        '25.00',
        '15.00',
        'Y',
        'by product',
        '4',
        'Shirts/Tees;Sweaters\\/Hoodies',
        'https://x.example/1.jpg',
        'https://x.example/2.jpg',
      ],
      ['SKU', '', '[S]Size=Small', '', 'TEE-S', '', '', '', '', '', '', '', '3', '', '', ''],
      ['Rule', '', '[S]Size=Small', '', '', '', '', '', '', '', '', '', '', '', '', ''],
      ['Product', '8', 'Guide', 'D', 'PDF', '', '9.00', '0.00', '0.00', '0.00', 'N', 'none', '0', '', '', ''],
    ]);
    expect(product('bigcommerce:7')?.fields).toMatchObject({
      name: 'Tee',
      sku: 'TEE',
      price: 1500,
      original_price: 2000,
      cost: 500,
      status: 'VISIBLE',
      type: 'PHYSICAL',
      inventory_enabled: true,
      inventory_quantity: 4,
      images: ['https://x.example/1.jpg', 'https://x.example/2.jpg'],
    });
    expect(product('bigcommerce:8')?.fields).toMatchObject({
      price: 900,
      status: 'HIDDEN',
      type: 'DIGITAL',
      inventory_enabled: false,
    });
    expect(product('bigcommerce:8')?.fields.original_price).toBeUndefined();
    expect(converted.categories?.get(2)).toEqual(['Shirts > Tees', 'Sweaters/Hoodies']);
    expect(converted.skipped.map((r) => r.rowNumber)).toEqual([3, 4]);
    expect(converted.skipped[0]?.message).toBe(
      'a Bulk Edit SKU row ([S]Size=Small): variants and price rules of this template are not imported',
    );
  });

  it('the Default template: Calculated Price is the price, Retail Price the original when higher; Category Details paths', () => {
    const header = [
      'Product ID',
      'Product Type',
      'Code',
      'Name',
      'Calculated Price',
      'Retail Price',
      'Sale Price',
      'Category Details',
      'Images',
    ];
    const { converted, product } = convert(header, [
      [
        '1',
        'P',
        'A',
        'Soap',
        '10.99',
        '12.99',
        '10.99',
        'Category Name: Skin, Category Path: Skin|Category Name: Men, Category Path: Skin/Men',
        'Product Image File: a.jpg, Product Image URL: http://x.example/a.jpg|Product Image File: b.jpg, Product Image URL: http://x.example/b.jpg',
      ],
      ['2', 'P', 'B', 'Balm', '179.95', '179.95', '0.00', '', ''],
    ]);
    expect(product('bigcommerce:1')?.fields).toMatchObject({
      price: 1099,
      original_price: 1299,
      images: ['http://x.example/a.jpg', 'http://x.example/b.jpg'],
    });
    expect(product('bigcommerce:2')?.fields.original_price).toBeUndefined();
    expect(converted.categories?.get(2)).toEqual(['Skin', 'Skin > Men']);
  });
});
