import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  bigCommerceOptions,
  ruleAdjustment,
  ruleMatchesOptions,
} from '../../../src/formats/bigcommerce/bigcommerce-options.js';
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
  it('the Bulk Edit template: recognised; Sale Price is the price and Price the original; Category paths with > (a \\/ kept in a name); image URL columns in order; a SKU row is a variant', () => {
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
      images: ['https://x.example/1.jpg', 'https://x.example/2.jpg'],
    });
    // Stock tracked by product while it has variants: the export has none of theirs, said.
    expect(product('bigcommerce:7')?.fields.inventory_quantity).toBeUndefined();
    expect(product('bigcommerce:7')?.variants.map((v) => v.fields)).toEqual([
      expect.objectContaining({ name: 'Small', sku: 'TEE-S', price: 1500, original_price: 2000 }),
    ]);
    expect(converted.issues.map((i) => i.code)).toContain('bigcommerce_stock_by_product');
    expect(product('bigcommerce:8')?.fields).toMatchObject({
      price: 900,
      status: 'HIDDEN',
      type: 'DIGITAL',
      inventory_enabled: false,
    });
    expect(product('bigcommerce:8')?.fields.original_price).toBeUndefined();
    expect(converted.categories?.get(2)).toEqual(['Shirts > Tees', 'Sweaters/Hoodies']);
    expect(converted.skipped).toEqual([]);
  });

  // The layout of BigCommerce's documentation (support.bigcommerce.com, "Importing Product Options
  // (v2)" and "Complex Attributes"): SKU rows name their option values in Product Name, Rule rows
  // change the price of the variants they match, by SKU or by option values.
  it('SKU rows are variants named by their option values; Rule rows [ADD], [REMOVE] and [FIXED] their prices, in order, up to Stop Processing Rules; stock by option', () => {
    const header = [...BULK, 'Allow Purchases?', 'Stop Processing Rules'];
    const blank = (n: number) => Array.from({ length: n }, () => '');
    const row = (cells: Record<number, string>) => {
      const r = blank(header.length);
      for (const [i, v] of Object.entries(cells)) r[Number(i)] = v;
      return r;
    };
    // Columns: 0 Item Type, 1 Product ID, 2 Product Name, 4 Product Code/SKU, 6 Price, 7 Cost
    // Price, 9 Sale Price, 11 Track Inventory, 12 Current Stock Level, 16 Allow Purchases?, 17 Stop.
    const { converted, product } = convert(header, [
      row({
        0: 'Product',
        1: '9',
        2: 'Hoodie',
        3: 'P',
        4: 'HOOD',
        6: '40.00',
        9: '35.00',
        11: 'by option',
        12: '5',
      }),
      row({ 0: 'SKU', 2: '[RB]Size=Small,[S]Color=Red', 4: 'HOOD-S-R', 7: '12.00', 12: '3' }),
      row({ 0: 'SKU', 2: '[RB]Size=Large,[S]Color=Red', 4: 'HOOD-L-R', 12: '0' }),
      row({ 0: 'SKU', 2: '[RB]Size=Large,[S]Color=Blue', 4: 'HOOD-L-B', 12: '2' }),
      row({ 0: 'Rule', 2: '[RB]Size=Large', 6: '[ADD]2.50' }),
      row({ 0: 'Rule', 4: 'HOOD-L-B', 6: '[FIXED]30', 17: 'Y' }),
      row({ 0: 'Rule', 2: '[S]Color=Blue', 6: '[REMOVE]1' }),
      row({ 0: 'Rule', 4: 'HOOD-S-R', 6: '[REMOVE]0.50', 16: 'N' }),
      row({ 0: 'Rule', 4: 'HOOD-XL', 6: '[ADD]9' }),
    ]);
    const hoodie = product('bigcommerce:9');
    expect(hoodie?.fields).toMatchObject({
      name: 'Hoodie',
      sku: 'HOOD',
      price: 3500,
      inventory_enabled: true,
    });
    expect(hoodie?.variants.map((v) => v.fields)).toEqual([
      expect.objectContaining({
        name: 'Small / Red',
        sku: 'HOOD-S-R',
        price: 3450,
        original_price: 3950,
        cost: 1200,
        inventory_quantity: 3,
      }),
      expect.objectContaining({
        name: 'Large / Red',
        sku: 'HOOD-L-R',
        price: 3750,
        original_price: 4250,
        inventory_quantity: 0,
      }),
      // [ADD]2.50 then [FIXED]30, which stops the rules after it (the [REMOVE]1 for Blue is not applied).
      expect.objectContaining({ name: 'Large / Blue', sku: 'HOOD-L-B', price: 3000, inventory_quantity: 2 }),
    ]);
    expect(hoodie?.variants[2]?.fields.original_price).toBeUndefined();
    expect(hoodie?.variants[0]?.fields.cost).toBe(1200);
    expect(hoodie?.variants[1]?.fields.cost).toBeUndefined();
    // Every row is one of the product's: nothing left out; what a rule does that the API cannot hold, said.
    expect(converted.skipped).toEqual([]);
    expect(hoodie?.rows.map((r) => r.rowNumber)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const notes = converted.issues.map((i) => [i.code, i.rowNumber, i.message]);
    expect(notes).toContainEqual([
      'bigcommerce_rule_not_imported',
      9,
      'the rule for HOOD-S-R of "Hoodie" also sets not purchasable: no such variant field in the API, not imported',
    ]);
    expect(notes).toContainEqual([
      'bigcommerce_rule_unmatched',
      10,
      'the price rule for HOOD-XL of "Hoodie" matches none of its variants (SKU rows): not imported',
    ]);
    expect(converted.issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it("a rule stopped by an earlier one is said so (not 'matches none'); a rule's Price that is not [ADD], [REMOVE] or [FIXED] is said, naming its row and column", () => {
    const header = [...BULK, 'Allow Purchases?', 'Stop Processing Rules'];
    const row = (cells: Record<number, string>) => {
      const r = header.map(() => '');
      for (const [i, v] of Object.entries(cells)) r[Number(i)] = v;
      return r;
    };
    const { converted, product } = convert(header, [
      row({ 0: 'Product', 1: '9', 2: 'Hoodie', 4: 'HOOD', 6: '40.00', 11: 'by option' }),
      row({ 0: 'SKU', 2: '[RB]Size=Small,[S]Color=Red', 4: 'HOOD-S-R', 12: '3' }),
      row({ 0: 'SKU', 2: '[RB]Size=Large,[S]Color=Blue', 4: 'HOOD-L-B', 12: '2' }),
      row({ 0: 'Rule', 4: 'HOOD-L-B', 6: '[FIXED]30', 17: 'Y' }), // 5
      row({ 0: 'Rule', 2: '[S]Color=Blue', 6: '[REMOVE]1' }), // 6: matches HOOD-L-B, after its stop
      row({ 0: 'Rule', 4: 'HOOD-S-R', 6: '[ADD]5%' }), // 7: a price not read
      row({ 0: 'Rule', 4: 'HOOD-XL', 6: '[ADD]9' }), // 8: matches nothing
    ]);
    const issues = converted.issues.map((i) => [i.severity, i.code, i.rowNumber, i.column, i.message]);
    expect(issues).toContainEqual([
      'warning',
      'bigcommerce_rule_stopped',
      6,
      'G',
      'the price rule for Color=Blue of "Hoodie" comes after a rule with Stop Processing Rules Y for the variant it matches: not applied',
    ]);
    expect(
      issues.filter(([, code]) => code === 'bigcommerce_rule_unmatched').map(([, , row]) => row),
    ).toEqual([8]);
    expect(issues).toContainEqual([
      'warning',
      'bigcommerce_rule_price',
      7,
      'G',
      'the price rule for HOOD-S-R of "Hoodie" gives the price "[ADD]5%", not [ADD]x, [REMOVE]x or [FIXED]x: not applied, its variants are priced without it',
    ]);
    // As said: HOOD-S-R keeps the product's price; HOOD-L-B is [FIXED]30 alone.
    expect(product('bigcommerce:9')?.variants.map((v) => [v.fields.sku, v.fields.price])).toEqual([
      ['HOOD-S-R', 4000],
      ['HOOD-L-B', 3000],
    ]);
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

  it("the current export's Item layout (Product and Variant rows) is not taken for a merchant-bulk sheet in silence: a hint says what it is and which template to export", () => {
    const header = [
      'Item',
      'ID',
      'Name',
      'Type',
      'SKU',
      'Options',
      'Inventory Tracking',
      'Current Stock',
      'Price',
    ];
    const s = sheet('products', header, [
      ['Product', '111', 'Tee', 'Physical', 'TEE', '', 'variant', '', '20.00'],
      ['Variant', '112', '', '', 'TEE-S', 'Type=Rectangle|Name=Size|Value=S', '', '3', '20.00'],
    ]);
    const detected = detectProductFormat(s.columns, s.rows);
    expect(detected.format).toBe('mbulk');
    expect(detected.hint).toBe(
      "the header looks like BigCommerce's current products export (Item, ID, Name, Type, SKU, Options: Product and Variant rows), which is not read as BigCommerce's; export with the Bulk Edit or Default template instead (Products \u2192 Export)",
    );
  });

  // Rows of a real BigCommerce export (2015: SKU and Rule rows of a glass shop's options), as its
  // owner's tool reshaped them (columns renamed and moved; the Item Type, "  SKU" or "  Rule",
  // after the header's last column): test/fixtures/corpus/SOURCES.md. Their Product Name and Price
  // cells are BigCommerce's own.
  it('the option values and rule prices of a real export: several values of one option in a rule, a swatch image after a value, [ADD] and [REMOVE]', () => {
    const text = readFileSync(
      resolve('test/fixtures/corpus/bigcommerce/jeremiahmarks_optionsSample.csv'),
      'utf8',
    );
    const [header, ...rows] = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
    const at = (name: string) => (header ?? []).indexOf(name);
    const byId = new Map(
      rows.map((r) => [
        r[0],
        { name: r[at('Name')] ?? '', price: r[at('Price')] ?? '', item: r[19]?.trim() },
      ]),
    );
    expect(byId.get('132')).toMatchObject({ item: 'SKU' });
    expect(bigCommerceOptions(byId.get('132')?.name ?? '')).toEqual([
      ['Diameter', '3"'],
      ['Grit', '800'],
    ]);
    expect(byId.get('778')).toMatchObject({ item: 'Rule', price: '[ADD]12' });
    expect(ruleAdjustment(byId.get('778')?.price ?? '')).toEqual({ kind: 'add', amount: 12 });
    expect(ruleAdjustment(byId.get('1022')?.price ?? '')).toEqual({ kind: 'add', amount: -11 });
    const rule = bigCommerceOptions(byId.get('1932')?.name ?? '');
    expect(rule).toEqual([
      ['Glass Weight', '10 lb bag'],
      ['Colors', 'Premium- Pineapple'],
      ['Colors', 'Premium- Strawberry'],
      ['Colors', 'Premium- Tangerine'],
    ]);
    expect(
      ruleMatchesOptions(rule, [
        ['Glass Weight', '10 lb bag'],
        ['Colors', 'Premium- Strawberry'],
      ]),
    ).toBe(true);
    expect(
      ruleMatchesOptions(rule, [
        ['Glass Weight', '10 lb bag'],
        ['Colors', 'Clear'],
      ]),
    ).toBe(false);
    expect(
      ruleMatchesOptions(rule, [
        ['Glass Weight', '5 lb bag'],
        ['Colors', 'Premium- Tangerine'],
      ]),
    ).toBe(false);

    // The same values through the converter: the SKU rows are variants, the Diameter=24" rule
    // (its Item Type written "  Rule", as the export does) adds 12.00 to the 24" variants only.
    const header2 = [
      'Item Type',
      'Product ID',
      'Product Name',
      'Product Code/SKU',
      'Price',
      'Track Inventory',
    ];
    const v = (id: string) => [
      '  SKU',
      '',
      byId.get(id)?.name ?? '',
      rows.find((r) => r[0] === id)?.[1] ?? '',
      '',
      '',
    ];
    const { converted, product } = convert(header2, [
      ['Product', '40', 'Polishing Pads', 'PLP', '20.00', 'none'],
      v('132'),
      v('157'),
      v('161'),
      ['  Rule', '', byId.get('778')?.name ?? '', '', byId.get('778')?.price ?? '', ''],
    ]);
    expect(converted.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(
      product('bigcommerce:40')?.variants.map((x) => [x.fields.name, x.fields.sku, x.fields.price]),
    ).toEqual([
      ['3" / 800', 'PLP030800', 2000],
      ['21" / 1500', 'PLP211500', 2000],
      ['24" / 1500', 'PLP241500', 3200],
    ]);
  });
});

describe('a Product row without Product ID or Product Name', () => {
  it('is skipped with its SKU and Rule rows, each said as its own (not "before any Product row"); the next product is read as usual', () => {
    const row = (type: string, id: string, name: string, sku: string, price: string): CellValue[] => [
      type,
      id,
      name,
      'P',
      sku,
      '',
      price,
      '',
      '',
      '',
      'Y',
      'none',
      '',
      '',
      '',
      '',
    ];
    const { converted, product } = convert(BULK, [
      row('Product', '', '', 'X', '10.00'),
      row('SKU', '', '[RB]Size=S', 'X-S', ''),
      row('Rule', '', '[RB]Size=S', 'X-S', '[ADD]1'),
      row('Product', '8', 'Cap', 'CAP', '12.00'),
    ]);
    expect(converted.skipped.map((s) => [s.rowNumber, s.code, s.message])).toEqual([
      [
        2,
        'bigcommerce_unnamed_product',
        'a Product row without a Product ID or a Product Name: not imported, nor its SKU and Rule rows',
      ],
      [
        3,
        'bigcommerce_orphan_row',
        'a SKU row ([RB]Size=S) of the Product row 2, which has no Product ID and no Product Name: not imported',
      ],
      [
        4,
        'bigcommerce_orphan_row',
        'a Rule row ([RB]Size=S) of the Product row 2, which has no Product ID and no Product Name: not imported',
      ],
    ]);
    expect(product('bigcommerce:8')).toBeDefined();
  });
});
