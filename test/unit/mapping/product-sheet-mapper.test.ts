import { describe, expect, it } from 'vitest';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { ProductMappingOptions } from '../../../src/mapping/product-desired.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from './sheet-fixture.js';

const OPTS: ProductMappingOptions = { decimals: 2 };

function map(header: string[], data: CellValue[][], opts: Partial<ProductMappingOptions> = {}) {
  return mapProductRows(sheet('products', header, data), { ...OPTS, ...opts });
}

function codes(result: { issues: { code: string }[] }): string[] {
  return result.issues.map((i) => i.code);
}

describe('grouping rows into products', () => {
  it('groups variant rows by reference_id, also when they are not adjacent, and keeps source rows', () => {
    const r = map(
      ['reference_id', 'name', 'price', 'variant_name', 'variant_sku', 'variant_price'],
      [
        ['R1', 'Shirt', '19.90', 'Small', 'S1', '19.90'],
        ['R2', 'Cap', '9.00', '', '', ''],
        ['R1', '', '', 'Large', 'S2', '21.00'],
      ],
    );
    expect(r.issues).toEqual([]);
    expect(r.products).toHaveLength(2);
    const shirt = r.products[0]!;
    expect(shirt.key).toEqual({ by: 'reference_id', value: 'R1' });
    expect(shirt.command).toBe('upsert');
    expect(shirt.fields).toEqual({ reference_id: 'R1', name: 'Shirt', price: 1990 });
    expect(shirt.variants.map((v) => v.fields)).toEqual([
      { name: 'Small', sku: 'S1', price: 1990 },
      { name: 'Large', sku: 'S2', price: 2100 },
    ]);
    expect(shirt.variants.map((v) => v.row.rowNumber)).toEqual([2, 4]);
    expect(shirt.rows).toEqual([
      { sheet: 'products', rowNumber: 2 },
      { sheet: 'products', rowNumber: 4 },
    ]);
    const cap = r.products[1]!;
    expect(cap.variants).toEqual([]);
    expect(r.rowCount).toBe(3);
  });

  it('keys by id first, then reference_id, then sku, and joins rows that share any of them', () => {
    const r = map(
      ['id', 'reference_id', 'sku', 'name'],
      [
        ['', 'R1', '', 'A'],
        ['p1', 'R1', '', ''],
        ['', '', 'K9', 'B'],
        ['', 'R9', 'K9', ''],
      ],
    );
    expect(r.issues).toEqual([]);
    expect(r.products.map((p) => p.key)).toEqual([
      { by: 'id', value: 'p1' },
      { by: 'reference_id', value: 'R9' },
    ]);
    expect(r.products[0]!.fields).toEqual({ id: 'p1', reference_id: 'R1', name: 'A' });
    expect(r.products[1]!.fields).toEqual({ reference_id: 'R9', sku: 'K9', name: 'B' });
  });

  it('reports a conflicting product value on the later row, naming both values and the cell', () => {
    const r = map(
      ['reference_id', 'name', 'price'],
      [
        ['R1', 'Shirt', '19.90'],
        ['R1', 'Shirt', '19.90'],
        ['R1', 'Blouse', ''],
      ],
    );
    expect(r.issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'conflicting_value',
        sheet: 'products',
        rowNumber: 4,
        column: 'B',
        header: 'name',
        value: 'Blouse',
      }),
    ]);
    expect(r.issues[0]!.message).toContain('"Shirt" on row 2');
    expect(r.issues[0]!.message).toContain('"Blouse"');
    expect(r.products[0]!.invalid).toBe(true);
  });

  it('rejects a row without any key, outside every product', () => {
    const r = map(['reference_id', 'sku', 'name'], [['', '', 'Orphan']]);
    expect(r.products).toEqual([]);
    expect(r.issues).toEqual([
      expect.objectContaining({
        code: 'missing_product_key',
        rowNumber: 2,
        column: 'A',
        header: 'reference_id',
      }),
    ]);
  });

  it('needs a key column', () => {
    const r = map(['name', 'price'], [['A', '1']]);
    expect(codes(r)).toContain('missing_key_column');
  });
});

describe('duplicate keys', () => {
  it('a variant sku used twice (same product or another) is an error on the later row', () => {
    const r = map(
      ['reference_id', 'variant_name', 'variant_sku'],
      [
        ['R1', 'S', 'V1'],
        ['R1', 'M', 'V1'],
        ['R2', 'L', 'V1'],
      ],
    );
    expect(r.issues.map((i) => [i.code, i.rowNumber, i.column])).toEqual([
      ['duplicate_variant_sku', 3, 'C'],
      ['duplicate_variant_sku', 4, 'C'],
    ]);
    expect(r.products.every((p) => p.invalid)).toBe(true);
  });

  it('repeated variant SKUs: one error per product naming its key, its name and every row (issue 38)', () => {
    const r = map(
      ['reference_id', 'name', 'variant_name', 'variant_sku'],
      [
        ['necklace', 'Rosa Necklace', 'Silver', '111'],
        ['necklace', '', 'Gold', '111'],
        ['necklace', '', 'Rose', '111'],
        ['ring', 'Ring', 'S', 'R1'],
      ],
    );
    expect(r.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_variant_sku',
        severity: 'error',
        rowNumber: 3,
        column: 'D',
        message:
          'product "necklace" (Rosa Necklace): 2 variant SKUs are held twice (row 3: "111" is already on row 2; row 4: "111" is already on row 2); each variant needs its own SKU: make them unique, or import with --duplicate-sku first (the first keeps it, the others are created without a SKU)',
      }),
    ]);
    expect(r.products.map((p) => p.invalid)).toEqual([true, false]);
  });

  it('--duplicate-sku first: the SKU stays on the first variant, the later ones get none, listed in one warning per product', () => {
    const r = map(
      ['reference_id', 'name', 'sku', 'variant_name', 'variant_sku'],
      [
        ['necklace', 'Rosa Necklace', '', 'Silver', '111'],
        ['necklace', '', '', 'Gold', '111'],
        ['chain', 'Chain', '', 'Long', '111'],
        ['pin', 'Pin', 'P9', '', ''],
        ['brooch', 'Brooch', '', 'Big', 'P9'],
      ],
      { duplicateSku: 'first' },
    );
    expect(r.products.every((p) => !p.invalid)).toBe(true);
    expect(r.products[0]?.variants.map((v) => v.fields.sku)).toEqual(['111', undefined]);
    expect(r.products[1]?.variants.map((v) => v.fields.sku)).toEqual([undefined]);
    expect(r.products[3]?.variants.map((v) => v.fields.sku)).toEqual([undefined]); // a product's own SKU wins
    expect(r.issues.map((i) => [i.severity, i.rowNumber, i.message])).toEqual([
      [
        'warning',
        3,
        'product "necklace" (Rosa Necklace): 1 variant given no SKU (--duplicate-sku first), the SKU staying where it is first: row 3: "111" is already on row 2',
      ],
      [
        'warning',
        4,
        'product "chain" (Chain): 1 variant given no SKU (--duplicate-sku first), the SKU staying where it is first: row 4: "111" is already on row 2',
      ],
      [
        'warning',
        6,
        'product "brooch" (Brooch): 1 variant given no SKU (--duplicate-sku first), the SKU staying where it is first: row 6: "P9" is the SKU of product "pin" (Pin) (row 5)',
      ],
    ]);
  });

  it('a variant sku equal to another product sku is an error', () => {
    const r = map(
      ['reference_id', 'sku', 'variant_name', 'variant_sku'],
      [
        ['R1', 'P1', 'S', 'V1'],
        ['R2', 'V1', '', ''],
      ],
    );
    expect(r.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_variant_sku',
        rowNumber: 2,
        column: 'D',
        header: 'variant_sku',
      }),
    ]);
  });

  it('a variant sku equal to its own product sku is fine (single-variant products)', () => {
    const r = map(['sku', 'variant_name', 'variant_sku'], [['P1', 'Only', 'P1']]);
    expect(r.issues).toEqual([]);
  });

  it('one product sku on two reference_ids is duplicate_sku; one reference_id on two ids is duplicate_reference_id', () => {
    const r = map(
      ['id', 'reference_id', 'sku'],
      [
        ['', 'R1', 'K'],
        ['', 'R2', 'K'],
        ['p1', 'X', ''],
        ['p2', 'X', ''],
      ],
    );
    expect(r.issues.map((i) => [i.code, i.rowNumber, i.header])).toEqual([
      ['duplicate_sku', 3, 'sku'],
      ['duplicate_reference_id', 5, 'reference_id'],
    ]);
  });

  it('a variant_id twice is an error', () => {
    const r = map(
      ['reference_id', 'variant_id', 'variant_name'],
      [
        ['R1', 'v1', 'A'],
        ['R1', 'v1', 'B'],
      ],
    );
    expect(codes(r)).toEqual(['duplicate_variant_id']);
  });

  it('a row whose id disagrees with the product its reference_id belongs to is conflicting_key', () => {
    const r = map(
      ['id', 'reference_id'],
      [
        ['p1', 'R1'],
        ['', 'R1'],
      ],
    );
    expect(r.issues).toEqual([]);
    const r2 = map(
      ['reference_id', 'sku'],
      [
        ['R1', 'K1'],
        ['R1', 'K2'],
      ],
    );
    expect(r2.issues).toEqual([
      expect.objectContaining({ code: 'conflicting_key', rowNumber: 3, header: 'sku' }),
    ]);
  });
});

describe('cells through the codecs', () => {
  const header = [
    'reference_id',
    'price',
    'original_price',
    'cost',
    'cost_enabled',
    'status',
    'type',
    'unit',
    'unit_value',
    'weight',
    'tags',
    'links',
    'category_ids',
    'images',
    'inventory_quantity',
    'inventory_enabled',
    'description',
  ];

  it('decodes money, booleans, enums, integers, numbers, lists and urls', () => {
    const r = map(header, [
      [
        'R1',
        '1,234.50',
        '20',
        '5.5',
        'yes',
        'hidden',
        'Digital',
        'kg',
        '0.5',
        '300',
        'a | b',
        'https://x.test/a|http://y.test',
        'c1|c2',
        'https://img.test/1.jpg',
        '12',
        'FALSE',
        '  keep  spaces ',
      ],
    ]);
    expect(r.issues).toEqual([]);
    expect(r.products[0]!.fields).toEqual({
      reference_id: 'R1',
      price: 123450,
      original_price: 2000,
      cost: 550,
      cost_enabled: true,
      status: 'HIDDEN',
      type: 'DIGITAL',
      unit: 'KG',
      unit_value: 0.5,
      weight: 300,
      tags: ['a', 'b'],
      links: ['https://x.test/a', 'http://y.test'],
      category_ids: ['c1', 'c2'],
      images: ['https://img.test/1.jpg'],
      inventory_quantity: 12,
      inventory_enabled: false,
      description: '  keep  spaces ',
    });
  });

  it('reads XLSX-typed cells (numbers with float noise, booleans)', () => {
    const r = map(
      ['reference_id', 'price', 'cost_enabled', 'inventory_quantity'],
      [[1001, 19.990000000000002, true, 3]],
    );
    expect(r.issues).toEqual([]);
    expect(r.products[0]!.fields).toEqual({
      reference_id: '1001',
      price: 1999,
      cost_enabled: true,
      inventory_quantity: 3,
    });
  });

  it('uses the currency decimals, minor units and the decimal comma as asked', () => {
    expect(map(['sku', 'price'], [['K', '1200']], { decimals: 0 }).products[0]!.fields.price).toBe(1200);
    expect(map(['sku', 'price'], [['K', '1290']], { money: 'minor' }).products[0]!.fields.price).toBe(1290);
    expect(map(['sku', 'price'], [['K', '12,90']], { decimalComma: true }).products[0]!.fields.price).toBe(
      1290,
    );
    expect(
      map(['sku', 'unit_value'], [['K', '1,5']], { decimalComma: true }).products[0]!.fields.unit_value,
    ).toBe(1.5);
  });

  it('reports every bad cell with its column letter, header, code and a hint', () => {
    const r = map(header, [
      [
        'R1',
        '19.999',
        '-1',
        'abc',
        'maybe',
        'gone',
        'Digital',
        'parsec',
        'x',
        '1.5',
        '',
        'ftp://x',
        '',
        Array.from({ length: 11 }, (_, i) => `https://i.test/${i}.jpg`).join('|'),
        '-3',
        '',
        '',
      ],
    ]);
    expect(r.issues.map((i) => [i.code, i.column, i.header])).toEqual([
      ['money_too_many_decimals', 'B', 'price'],
      ['money_negative', 'C', 'original_price'],
      ['money_invalid', 'D', 'cost'],
      ['boolean_invalid', 'E', 'cost_enabled'],
      ['enum_invalid', 'F', 'status'],
      ['enum_invalid', 'H', 'unit'],
      ['invalid_number', 'I', 'unit_value'],
      ['integer_not_whole', 'J', 'weight'],
      ['invalid_url', 'L', 'links'],
      ['integer_too_small', 'O', 'inventory_quantity'],
      ['too_many_images', 'N', 'images'], // checked per product, once its images are all read
    ]);
    for (const i of r.issues) {
      expect(i.severity).toBe('error');
      expect(i.rowNumber).toBe(2);
      expect(i.message).toMatch(/write|remove/);
    }
    expect(r.issues.find((i) => i.code === 'enum_invalid')!.message).toContain('VISIBLE, HIDDEN');
    expect(r.products[0]!.invalid).toBe(true);
  });

  it('reads variant cells and validates them', () => {
    const r = map(
      [
        'sku',
        'variant_id',
        'variant_name',
        'variant_sku',
        'variant_description',
        'variant_price',
        'variant_original_price',
        'variant_cost',
        'variant_weight',
        'variant_inventory_quantity',
      ],
      [
        ['P', 'v1', ' Small ', 'S1', 'd', '1.00', '2.00', '0.50', '10', '4'],
        ['P', '', 'Large', 'S2', '', 'x', '', '', '', '1.5'],
      ],
    );
    expect(r.products[0]!.variants[0]!.fields).toEqual({
      id: 'v1',
      name: 'Small',
      sku: 'S1',
      description: 'd',
      price: 100,
      original_price: 200,
      cost: 50,
      weight: 10,
      inventory_quantity: 4,
    });
    expect(r.issues.map((i) => [i.code, i.rowNumber, i.header])).toEqual([
      ['money_invalid', 3, 'variant_price'],
      ['integer_not_whole', 3, 'variant_inventory_quantity'],
    ]);
  });
});

describe('blank cells', () => {
  const header = [
    'reference_id',
    'name',
    'description',
    'tags',
    'original_price',
    'price',
    'variant_name',
    'variant_description',
    'variant_original_price',
  ];
  const rows: CellValue[][] = [
    ['R1', 'A', '', '', '', '', 'S', '', ''],
    ['R1', '', '', '', '', null, 'M', 'md', ''],
  ];

  it('leave live values untouched by default', () => {
    const p = map(header, rows).products[0]!;
    expect(p.fields).toEqual({ reference_id: 'R1', name: 'A' });
    expect(p.variants.map((v) => v.fields)).toEqual([{ name: 'S' }, { name: 'M', description: 'md' }]);
  });

  it("clear where the API has an empty value with blank: 'clear'", () => {
    const p = map(header, rows, { blank: 'clear' }).products[0]!;
    expect(p.fields).toEqual({ reference_id: 'R1', name: 'A', description: '', tags: [], original_price: 0 });
    expect(p.variants.map((v) => v.fields)).toEqual([
      { name: 'S', description: '', original_price: 0 },
      { name: 'M', description: 'md', original_price: 0 },
    ]);
  });
});

describe('command column', () => {
  it('accepts the commands case-insensitively and reports conflicts and unknown commands', () => {
    const r = map(
      ['command', 'reference_id'],
      [
        ['DELETE', 'R1'],
        ['', 'R1'],
        ['hide', 'R2'],
        ['update', 'R2'],
        ['remove', 'R3'],
      ],
    );
    expect(r.products.map((p) => p.command)).toEqual(['delete', 'hide', 'upsert']);
    expect(r.issues.map((i) => [i.code, i.rowNumber])).toEqual([
      ['conflicting_value', 5],
      ['enum_invalid', 6],
    ]);
    expect(r.issues[1]!.message).toContain('upsert, create, update, hide, delete, skip');
  });
});

describe('columns', () => {
  it('warns once per unknown column and rejects two columns meaning the same field', () => {
    const r = map(
      ['SKU', 'Colour', 'qty', 'Inventory Quantity'],
      [
        ['K', 'red', '1', '2'],
        ['L', 'blue', '', ''],
      ],
    );
    expect(r.issues.map((i) => [i.severity, i.code, i.column, i.header, i.rowNumber])).toEqual([
      ['warning', 'unknown_column', 'B', 'Colour', 1],
      ['error', 'duplicate_column', 'D', 'Inventory Quantity', 1],
    ]);
    expect(r.products[0]!.fields.inventory_quantity).toBe(1);
  });

  it('maps the same content identically whatever the column order, case and aliases', () => {
    const a = map(
      [
        'reference_id',
        'name',
        'price',
        'original_price',
        'inventory_quantity',
        'variant_sku',
        'variant_name',
      ],
      [['R1', 'Shirt', '10', '12', '3', 'S1', 'Small']],
    );
    const b = map(
      ['Variant Name', 'Variant-SKU', 'QTY', 'Compare at price', 'PRICE', 'Product Name', 'Handle'],
      [['Small', 'S1', '3', '12', '10', 'Shirt', 'R1']],
    );
    expect(b.issues).toEqual([]);
    expect(b.products.map((p) => ({ ...p, variants: p.variants.map((v) => v.fields) }))).toEqual(
      a.products.map((p) => ({ ...p, variants: p.variants.map((v) => v.fields) })),
    );
  });

  it('exposes where each canonical column is for plan-time issues', () => {
    const r = map(['Handle', 'Price'], [['R', '1']]);
    expect(r.columnRefs).toEqual({
      reference_id: { letter: 'A', header: 'Handle' },
      price: { letter: 'B', header: 'Price' },
    });
  });
});

describe('descriptions in the own sheet', () => {
  it('a link or image to an address other than http(s) is an invalid cell naming it; http(s) ones are kept', () => {
    const r = map(
      ['reference_id', 'name', 'price', 'description', 'variant_name', 'variant_description'],
      [
        ['A', 'Ok', '1', 'See [shop](https://s.example) ![i](https://c.example/i.png)', '', ''],
        ['B', 'Bad', '1', 'Click [md](javascript:alert(1))', '', ''],
        ['C', 'Var', '1', '', 'Red', '![x](data:image/png;base64,AA)'],
      ],
    );
    expect(r.products[0]?.fields.description).toBe(
      'See [shop](https://s.example) ![i](https://c.example/i.png)',
    );
    const bad = r.issues.filter((i) => i.code === 'unsafe_link');
    expect(bad.map((i) => [i.rowNumber, i.column, i.header])).toEqual([
      [3, 'D', 'description'],
      [4, 'F', 'variant_description'],
    ]);
    expect(bad[0]?.message).toBe(
      'description: the link [md](javascript:…) is not an http(s) address: descriptions may only link to http:// or https:// addresses',
    );
    expect(r.products.map((p) => p.invalid)).toEqual([false, true, true]);
  });
});

describe('more images than the API takes', () => {
  const images = (n: number) => Array.from({ length: n }, (_, i) => `https://i.test/${i + 1}.jpg`);
  it('without --images first-10: invalid, naming the product and the flag', () => {
    const r = map(['reference_id', 'name', 'images'], [['mug-19', 'Mug', images(19).join('|')]]);
    expect(r.issues.map((i) => [i.code, i.column, i.message])).toEqual([
      [
        'too_many_images',
        'C',
        '"mug-19" (Mug) has 19 images; a product has at most 10: import with --images first-10 to keep the first 10 (in position order), or remove 9',
      ],
    ]);
    expect(r.products[0]?.invalid).toBe(true);
  });
  it('with it: the first ten kept in order, every other URL listed in a warning', () => {
    const r = map(['reference_id', 'name', 'images'], [['mug-19', 'Mug', images(19).join('|')]], {
      images: 'first-10',
    });
    expect(r.products[0]?.fields.images).toEqual(images(10));
    expect(r.products[0]?.invalid).toBe(false);
    const note = r.issues.find((i) => i.code === 'images_dropped');
    expect(note?.severity).toBe('warning');
    expect(note?.message).toBe(
      `"mug-19" (Mug) has 19 images; the first 10 are kept (--images first-10), 9 not imported: ${images(19).slice(10).join(' ')}`,
    );
  });
});
