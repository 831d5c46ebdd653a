import { describe, expect, it } from 'vitest';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { ProductMappingOptions } from '../../../src/mapping/product-desired.js';
import { checkGuardrail } from '../../../src/plan/check-guardrail.js';
import { describeChanges } from '../../../src/plan/describe-changes.js';
import { indexLiveCatalog } from '../../../src/plan/live-catalog.js';
import { planProducts } from '../../../src/plan/plan-products.js';
import type { PlanProductsOptions } from '../../../src/plan/plan-products.js';
import type { ProductPlan } from '../../../src/plan/product-plan.js';
import { summarizePlan } from '../../../src/plan/summarize-plan.js';
import type { Product } from '../../../src/schema/product.js';
import { ProductUpdate } from '../../../src/schema/product.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';
import { exportRows } from './export-fixture.js';
import { liveProduct, variant } from './live-fixture.js';

function threeVariantProduct(): Product {
  return liveProduct('p1', {
    variants: [
      variant('p1', 'v1', { name: 'Small', sku: 'S1', price: 1000, qty: 3 }),
      variant('p1', 'v2', { name: 'Medium', sku: 'S2', price: 1100, qty: 4 }),
      variant('p1', 'v3', { name: 'Large', sku: 'S3', price: 1200, qty: 5 }),
    ],
  });
}

function plan(
  live: Product[],
  header: string[],
  data: CellValue[][],
  options: Partial<PlanProductsOptions> = {},
  mapping: Partial<ProductMappingOptions> = {},
  optionSheet?: { header: string[]; data: CellValue[][] },
): ProductPlan {
  const m = mapProductRows(
    sheet('products', header, data),
    { decimals: 2, ...mapping },
    optionSheet === undefined ? undefined : sheet('options', optionSheet.header, optionSheet.data),
  );
  return planProducts(m.products, indexLiveCatalog(live), {
    decimals: 2,
    columnRefs: m.columnRefs,
    unkeyedRows: m.unkeyedRows,
    unkeyedOptionRows: m.unkeyedOptionRows,
    ...options,
  });
}

describe('re-importing an unchanged export', () => {
  it('plans noop for every product, with every writable column present', () => {
    const live = [
      threeVariantProduct(),
      liveProduct('p2', {
        reference_id: null,
        cost: 500,
        cost_enabled: true,
        links: ['https://x.test'],
        original_price: 2500,
      }),
      liveProduct('p3', {
        options: [
          {
            id: 'o1',
            object: 'product_option',
            type: 'OPTION_SELECTION',
            text: 'Size',
            required: true,
            settings: { options: [{ text: 'S', id: 'c1', price: 0 }] },
          },
        ],
        variants: [variant('p3', 'v9', { sku: null, description: null, original_price: null, cost: 100 })],
      }),
    ];
    const { header, data } = exportRows(live);
    const p = plan(live, header, data);
    expect(p.entries.map((e) => [e.action, e.issues])).toEqual([
      ['noop', []],
      ['noop', []],
      ['noop', []],
    ]);
    expect(p.summary).toEqual({
      create: 0,
      update: 0,
      hide: 0,
      delete: 0,
      noop: 3,
      skip: 0,
      invalid: 0,
      total: 3,
    });
  });

  it('plans noop for the options sheet listing the live options', () => {
    const live = [
      liveProduct('p1', {
        options: [
          {
            id: 'o1',
            object: 'product_option',
            type: 'OPTION_SELECTION',
            text: 'Size',
            required: true,
            settings: {
              options: [
                { text: 'S', id: 'c1', price: 0 },
                { text: 'L', id: 'c2', price: 250 },
              ],
              min: 1,
            },
          },
        ],
      }),
    ];
    const p = plan(
      live,
      ['reference_id'],
      [['REF-p1']],
      {},
      {},
      {
        header: [
          'reference_id',
          'option_text',
          'option_type',
          'option_required',
          'option_choices',
          'option_min',
        ],
        data: [['REF-p1', 'Size', 'selection', 'true', 'S:0|L:2.50', '1']],
      },
    );
    expect(p.entries[0]!.action).toBe('noop');
  });
});

describe('one change', () => {
  it('a single price change is one update whose body has exactly that field', () => {
    const live = [threeVariantProduct(), liveProduct('p2')];
    const { header, data } = exportRows(live);
    const priceCol = header.indexOf('price');
    data[3]![priceCol] = '21.00';
    const p = plan(live, header, data);
    expect(p.summary.update).toBe(1);
    expect(p.summary.noop).toBe(1);
    const e = p.entries.find((x) => x.action === 'update')!;
    expect(e.body).toEqual({ price: 2100 });
    expect(e.key).toBe('update:p2');
    expect(e.productId).toBe('p2');
    expect(e.expectedUpdatedAt).toBe('2026-11-01T10:00:00.000Z');
    expect(e.rows).toEqual([{ sheet: 'products', rowNumber: 5 }]);
    expect(describeChanges(e, p.decimals)).toEqual(['price: 19.90 → 21.00']);
  });
});

describe('blank cells', () => {
  it('leave live values alone by default and clear lists/description/original_price with blank: clear', () => {
    const live = [liveProduct('p1', { original_price: 2500 })];
    const header = ['reference_id', 'name', 'tags', 'description', 'original_price', 'price'];
    const data = [['REF-p1', '', '', '', '', '']];
    expect(plan(live, header, data).entries[0]!.action).toBe('noop');
    const cleared = plan(live, header, data, {}, { blank: 'clear' }).entries[0]!;
    expect(cleared.body).toEqual({ tags: [], description: '', original_price: 0 });
  });

  it('a live null original_price equals a sheet 0 (no strike-through either way)', () => {
    const live = [liveProduct('p1', { variants: [variant('p1', 'v1', { original_price: null })] })];
    const p = plan(live, ['reference_id', 'variant_id', 'variant_original_price'], [['REF-p1', 'v1', '0']]);
    expect(p.entries[0]!.action).toBe('noop');
  });
});

describe('variants absent from the sheet are kept', () => {
  it('a sheet listing 1 of 3 variants changes it and keeps the other 2 by id, name and price', () => {
    const p = plan(
      [threeVariantProduct()],
      ['reference_id', 'variant_sku', 'variant_price', 'variant_inventory_quantity'],
      [['REF-p1', 'S2', '15.00', '9']],
    );
    const e = p.entries[0]!;
    expect(e.action).toBe('update');
    expect(e.body).toEqual({
      variants: [
        { id: 'v1', name: 'Small', price: 1000 },
        { id: 'v2', name: 'Medium', price: 1500, inventory_quantity: 9 },
        { id: 'v3', name: 'Large', price: 1200 },
      ],
    });
    expect(ProductUpdate.safeParse(e.body).success).toBe(true);
    expect(describeChanges(e, 2)).toEqual([
      'variants[S2].price: 11.00 → 15.00',
      'variants[S2].inventory_quantity: 4 → 9',
    ]);
  });

  it('without a variant change the body has no variants field at all', () => {
    const p = plan(
      [threeVariantProduct()],
      ['reference_id', 'name', 'variant_sku', 'variant_price'],
      [['REF-p1', 'Renamed', 'S2', '11.00']],
    );
    expect(p.entries[0]!.body).toEqual({ name: 'Renamed' });
  });

  it('matches by variant_id, then sku, then name; adds new variants at the end', () => {
    const p = plan(
      [threeVariantProduct()],
      ['reference_id', 'variant_id', 'variant_sku', 'variant_name', 'variant_price'],
      [
        ['REF-p1', 'v3', 'S3-NEW', '', ''],
        ['REF-p1', '', '', 'Small', '9.00'],
        ['REF-p1', '', 'S4', 'XL', '13.00'],
      ],
    );
    expect(p.entries[0]!.body).toEqual({
      variants: [
        { id: 'v1', name: 'Small', price: 900 },
        { id: 'v2', name: 'Medium', price: 1100 },
        { id: 'v3', name: 'Large', price: 1200, sku: 'S3-NEW' },
        { name: 'XL', sku: 'S4', price: 1300 },
      ],
    });
  });

  it('replace variants drops the unlisted ones and lists the sheet order', () => {
    const p = plan(
      [threeVariantProduct()],
      ['reference_id', 'variant_sku', 'variant_price'],
      [
        ['REF-p1', 'S3', '12.00'],
        ['REF-p1', 'S1', '10.00'],
      ],
      { replace: { variants: true } },
    );
    const e = p.entries[0]!;
    expect(e.body).toEqual({
      variants: [
        { id: 'v3', name: 'Large', price: 1200 },
        { id: 'v1', name: 'Small', price: 1000 },
      ],
    });
    expect(describeChanges(e, 2)).toEqual(['variants[S2]: removed']);
  });

  it('replace variants is not applied while a row has lost its key (its variant would look left out)', () => {
    const p = plan(
      [threeVariantProduct()],
      ['reference_id', 'variant_sku', 'variant_price'],
      [
        ['REF-p1', 'S1', '10.50'],
        ['', 'S2', '11.00'], // the key left blank on a later variant row
      ],
      { replace: { variants: true } },
    );
    const e = p.entries[0]!;
    expect(describeChanges(e, 2)).not.toContain('variants[S2]: removed');
    expect(e.body).toEqual({
      variants: [
        { id: 'v1', name: 'Small', price: 1050 },
        { id: 'v2', name: 'Medium', price: 1100 },
        { id: 'v3', name: 'Large', price: 1200 },
      ],
    });
    expect(p.options.replace).toEqual({ variants: false, options: false, images: false });
    expect(p.replaceSkipped).toContain('variants (1 products row(s))');
  });

  it('reports unknown variant ids, a sku of another product, a new variant without name/price, and double matches', () => {
    const live = [
      threeVariantProduct(),
      liveProduct('p2', { variants: [variant('p2', 'w1', { sku: 'OTHER' })] }),
    ];
    const p = plan(
      live,
      ['reference_id', 'variant_id', 'variant_sku', 'variant_name', 'variant_price'],
      [
        ['REF-p1', 'w1', '', '', ''],
        ['REF-p1', '', 'OTHER', 'X', '1'],
        ['REF-p1', '', 'NEW', '', ''],
        ['REF-p1', '', 'S1', '', '1'],
        ['REF-p1', 'v1', '', '', '2'],
      ],
    );
    const e = p.entries[0]!;
    expect(e.action).toBe('invalid');
    expect(e.body).toBeUndefined();
    expect(e.issues.map((i) => [i.code, i.rowNumber, i.column, i.header])).toEqual([
      ['variant_not_found', 2, 'B', 'variant_id'],
      ['variant_sku_taken', 3, 'C', 'variant_sku'],
      ['variant_name_required', 4, 'D', 'variant_name'],
      ['variant_price_required', 4, 'E', 'variant_price'],
      ['duplicate_variant_match', 6, 'B', 'variant_id'],
    ]);
    expect(p.entries).toHaveLength(1);
  });
});

describe('options', () => {
  const live = () => [
    liveProduct('p1', {
      options: [
        {
          id: 'o1',
          object: 'product_option',
          type: 'OPTION_SELECTION',
          text: 'Size',
          required: true,
          settings: {
            options: [
              { text: 'S', id: 'c1', price: 0 },
              { text: 'L', id: 'c2', price: 200 },
            ],
            enableQuantity: false,
          },
        },
        { id: 'o2', object: 'product_option', type: 'OPTION_TEXT', text: 'Note', required: false },
      ],
    }),
  ];
  const optionHeader = ['reference_id', 'option_text', 'option_type', 'option_required', 'option_choices'];

  it('changes one option, keeps choice ids, and keeps the unlisted options with id, text, required, settings', () => {
    const p = plan(
      live(),
      ['reference_id'],
      [['REF-p1']],
      {},
      {},
      {
        header: optionHeader,
        data: [
          ['REF-p1', 'Size', '', '', 'S|L:3.00|XL:4.00'],
          ['REF-p1', 'Gift wrap', 'checkbox', 'no', ''],
        ],
      },
    );
    const e = p.entries[0]!;
    expect(e.action).toBe('update');
    expect(e.body).toEqual({
      options: [
        {
          id: 'o1',
          text: 'Size',
          required: true,
          settings: {
            options: [
              { text: 'S', id: 'c1', price: 0 },
              { text: 'L', id: 'c2', price: 300 },
              { text: 'XL', price: 400 },
            ],
            enableQuantity: false,
          },
        },
        { id: 'o2', text: 'Note', required: false },
        { type: 'OPTION_CHECKBOX', text: 'Gift wrap', required: false },
      ],
    });
    expect(e.rows.map((r) => `${r.sheet}:${r.rowNumber}`)).toEqual(['products:2', 'options:2', 'options:3']);
  });

  it('a type change is an error pointing at the cell, unless replace options', () => {
    const data = [['REF-p1', 'Note', 'number', '', '']];
    const bad = plan(live(), ['reference_id'], [['REF-p1']], {}, {}, { header: optionHeader, data });
    expect(bad.entries[0]!.action).toBe('invalid');
    expect(bad.entries[0]!.issues).toEqual([
      expect.objectContaining({
        code: 'option_type_change',
        sheet: 'options',
        rowNumber: 2,
        column: 'C',
        header: 'option_type',
      }),
    ]);
    const ok = plan(
      live(),
      ['reference_id'],
      [['REF-p1']],
      { replace: { options: true } },
      {},
      { header: optionHeader, data },
    );
    expect(ok.entries[0]!.body).toEqual({ options: [{ type: 'OPTION_NUMBER', text: 'Note' }] });
    expect(describeChanges(ok.entries[0]!, 2)).toEqual([
      'options[Note].type: OPTION_TEXT → OPTION_NUMBER',
      'options[Size]: removed',
      'options[Note]: removed',
    ]);
  });

  it('replace options is not applied while an options row has lost its key', () => {
    const p = plan(
      live(),
      ['reference_id'],
      [['REF-p1']],
      { replace: { options: true } },
      {},
      {
        header: optionHeader,
        data: [
          ['REF-p1', 'Size', '', '', 'S|L:2.00'],
          ['', 'Note', '', '', ''], // the key left blank
          ['REF-pl', 'Note', '', '', ''], // a mistyped key
        ],
      },
    );
    expect(p.entries[0]!.action).toBe('noop');
    expect(p.replaceSkipped).toContain('options (2 options row(s))');
  });
});

describe('more plan-time issues, each pointing at its cell', () => {
  it('reports new options without type, unknown option ids, taken reference_ids and ids on create', () => {
    const live = [liveProduct('p1'), liveProduct('p2')];
    const opt = plan(
      live,
      ['reference_id'],
      [['REF-p1']],
      {},
      {},
      {
        header: ['reference_id', 'option_id', 'option_text', 'option_type'],
        data: [
          ['REF-p1', '', 'Engraving', ''],
          ['REF-p1', 'o404', 'X', ''],
        ],
      },
    );
    expect(opt.entries[0]!.issues.map((i) => [i.code, i.sheet, i.rowNumber, i.column, i.header])).toEqual([
      ['option_type_required', 'options', 2, 'D', 'option_type'],
      ['option_not_found', 'options', 3, 'B', 'option_id'],
    ]);
    const ref = plan(live, ['id', 'reference_id'], [['p1', 'REF-p2']]);
    expect(ref.entries[0]!.issues.map((i) => [i.code, i.column])).toEqual([['reference_id_taken', 'B']]);
    const create = plan(live, ['command', 'id', 'name', 'price'], [['create', 'p9', 'A', '1']]);
    expect(create.entries[0]!.issues.map((i) => [i.code, i.column])).toEqual([['id_on_create', 'B']]);
    const sku = plan(live, ['reference_id', 'sku', 'name', 'price'], [['NEW', 'P-p2', 'A', '1']]);
    expect(sku.entries[0]!.issues.map((i) => [i.code, i.column])).toEqual([['sku_taken', 'B']]);
  });
});

describe('images', () => {
  const live = () => [
    liveProduct('p1', { images: ['https://cdn.store.test/a.jpg', 'https://cdn.store.test/b.jpg'] }),
  ];
  const memory = new Map([
    ['https://shop.old/a.jpg', 'https://cdn.store.test/a.jpg'],
    ['https://shop.old/b.jpg', 'https://cdn.store.test/b.jpg'],
  ]);

  it('stored URLs and remembered sources of live images count as unchanged', () => {
    const p = plan(
      live(),
      ['reference_id', 'images'],
      [['REF-p1', 'https://shop.old/a.jpg|https://cdn.store.test/b.jpg']],
      { imageMemory: memory },
    );
    expect(p.entries[0]!.action).toBe('noop');
  });

  it('a changed list sends known images as stored URLs and only new ones as sources', () => {
    const p = plan(
      live(),
      ['reference_id', 'images'],
      [['REF-p1', 'https://shop.old/b.jpg|https://shop.old/c.jpg|https://shop.old/a.jpg']],
      { imageMemory: memory },
    );
    const e = p.entries[0]!;
    expect(e.body).toEqual({
      images: ['https://cdn.store.test/b.jpg', 'https://shop.old/c.jpg', 'https://cdn.store.test/a.jpg'],
    });
    expect(e.imageUploads).toEqual([{ index: 1, source: 'https://shop.old/c.jpg' }]);
  });

  it('without memory, a source URL is a change (it would be fetched again)', () => {
    const p = plan(
      live(),
      ['reference_id', 'images'],
      [['REF-p1', 'https://shop.old/a.jpg|https://shop.old/b.jpg']],
    );
    expect(p.entries[0]!.action).toBe('update');
    expect(p.entries[0]!.imageUploads).toHaveLength(2);
  });

  it('keeps live images the sheet does not list: sheet images first, then the others in live order', () => {
    const p = plan(live(), ['reference_id', 'images'], [['REF-p1', 'https://shop.old/new.jpg']], {
      imageMemory: memory,
    });
    const e = p.entries[0]!;
    expect(e.action).toBe('update');
    expect(e.body).toEqual({
      images: ['https://shop.old/new.jpg', 'https://cdn.store.test/a.jpg', 'https://cdn.store.test/b.jpg'],
    });
    expect(e.imageUploads).toEqual([{ index: 0, source: 'https://shop.old/new.jpg' }]);
    expect(p.options.replace.images).toBe(false);
  });

  it('a sheet listing only some live images (remembered or stored) changes nothing', () => {
    const p = plan(live(), ['reference_id', 'images'], [['REF-p1', 'https://shop.old/a.jpg']], {
      imageMemory: memory,
    });
    expect(p.entries[0]!.action).toBe('noop');
    const reordered = plan(live(), ['reference_id', 'images'], [['REF-p1', 'https://cdn.store.test/b.jpg']]);
    expect(reordered.entries[0]!.body).toEqual({
      images: ['https://cdn.store.test/b.jpg', 'https://cdn.store.test/a.jpg'],
    });
  });

  it('with replace images, the sheet list replaces the live one', () => {
    const p = plan(live(), ['reference_id', 'images'], [['REF-p1', 'https://shop.old/new.jpg']], {
      imageMemory: memory,
      replace: { images: true },
    });
    expect(p.entries[0]!.body).toEqual({ images: ['https://shop.old/new.jpg'] });
    expect(p.options.replace.images).toBe(true);
    const same = plan(live(), ['reference_id', 'images'], [['REF-p1', 'https://shop.old/a.jpg']], {
      imageMemory: memory,
      replace: { images: true },
    });
    expect(same.entries[0]!.body).toEqual({ images: ['https://cdn.store.test/a.jpg'] });
  });

  it('more than 10 images once the kept live ones are added is an error on the images cell', () => {
    const liveTen = [
      liveProduct('p1', { images: Array.from({ length: 10 }, (_, i) => `https://cdn.store.test/${i}.jpg`) }),
    ];
    const p = plan(liveTen, ['reference_id', 'images'], [['REF-p1', 'https://shop.old/new.jpg']]);
    const e = p.entries[0]!;
    expect(e.action).toBe('invalid');
    expect(e.issues.map((i) => [i.code, i.header, i.column])).toEqual([['too_many_images', 'images', 'B']]);
    expect(e.issues[0]!.message).toMatch(/11 images.*remove some or use --replace images/);
    const replaced = plan(liveTen, ['reference_id', 'images'], [['REF-p1', 'https://shop.old/new.jpg']], {
      replace: { images: true },
    });
    expect(replaced.entries[0]!.body).toEqual({ images: ['https://shop.old/new.jpg'] });
  });
});

describe('commands', () => {
  const live = () => [
    liveProduct('p1'),
    liveProduct('p2', { status: 'HIDDEN' }),
    liveProduct('p3'),
    liveProduct('p4'),
  ];

  it('create, update, hide, delete, skip and upsert', () => {
    const p = plan(
      live(),
      ['command', 'reference_id', 'name', 'price'],
      [
        ['create', 'REF-p1', 'X', '1'],
        ['update', 'NOPE', 'X', '1'],
        ['hide', 'REF-p4', '', ''],
        ['hide', 'REF-p2', '', ''],
        ['delete', 'REF-p3', '', ''],
        ['delete', 'GONE', '', ''],
        ['skip', 'NEW-1', 'X', '1'],
        ['', 'NEW-2', 'Mug', '4.50'],
        ['create', 'NEW-3', '', '4.50'],
      ],
      {},
    );
    expect(p.entries.map((e) => [e.action, e.key, e.issues.map((i) => i.code)])).toEqual([
      ['invalid', 'invalid:products:2', ['already_exists']],
      ['invalid', 'invalid:products:3', ['product_not_found']],
      ['hide', 'hide:p4', []],
      ['noop', 'noop:p2', []],
      ['delete', 'delete:p3', []],
      ['noop', 'noop:products:7', ['already_absent']],
      ['skip', 'skip:products:8', []],
      ['create', 'create:ref:NEW-2', []],
      ['invalid', 'invalid:products:10', ['name_required']],
    ]);
    expect(p.entries[2]!.body).toEqual({ status: 'HIDDEN' });
    expect(p.entries[4]!.body).toBeUndefined();
    expect(p.entries[7]!.body).toEqual({ reference_id: 'NEW-2', name: 'Mug', price: 450 });
    expect(p.entries[7]!.expectedUpdatedAt).toBeNull();
    expect(p.summary).toMatchObject({
      invalid: 3,
      hide: 1,
      delete: 1,
      noop: 2,
      skip: 1,
      create: 1,
      total: 9,
    });
  });

  it('a create carries variants, options and images; an unknown id is an error', () => {
    const p = plan(
      [],
      ['sku', 'name', 'price', 'images', 'variant_name', 'variant_price', 'variant_inventory_quantity'],
      [
        ['K1', 'Shirt', '10', 'https://x.test/1.jpg', 'S', '10', '3'],
        ['K1', '', '', '', 'M', '11', '0'],
      ],
      {},
      {},
      { header: ['sku', 'option_text', 'option_type'], data: [['K1', 'Note', 'text']] },
    );
    const e = p.entries[0]!;
    expect(e.key).toBe('create:sku:K1');
    expect(e.body).toEqual({
      sku: 'K1',
      name: 'Shirt',
      price: 1000,
      images: ['https://x.test/1.jpg'],
      variants: [
        { name: 'S', price: 1000, inventory_quantity: 3 },
        { name: 'M', price: 1100, inventory_quantity: 0 },
      ],
      options: [{ type: 'OPTION_TEXT', text: 'Note' }],
    });
    expect(e.imageUploads).toEqual([{ index: 0, source: 'https://x.test/1.jpg' }]);
    const q = plan([], ['id', 'name', 'price'], [['p404', 'A', '1']]);
    expect(q.entries[0]!.issues.map((i) => [i.code, i.column])).toEqual([['product_not_found', 'A']]);
  });

  it('matches by sku a live product without reference_id and gives it the reference_id', () => {
    const p = plan(
      [liveProduct('p1', { reference_id: null, sku: 'K1' })],
      ['reference_id', 'sku'],
      [['NEW', 'K1']],
    );
    expect(p.entries[0]!.body).toEqual({ reference_id: 'NEW' });
    const q = plan([liveProduct('p1', { sku: 'K1' })], ['reference_id', 'sku'], [['NEW', 'K1']]);
    expect(q.entries[0]!.issues.map((i) => [i.code, i.header])).toEqual([['sku_taken', 'sku']]);
  });

  it('two sheet products matching one live product are an error on the second', () => {
    const p = plan(
      [liveProduct('p1', { sku: 'K1' })],
      ['reference_id', 'sku'],
      [
        ['REF-p1', ''],
        ['', 'K1'],
      ],
    );
    expect(p.entries.map((e) => e.action)).toEqual(['noop', 'invalid']);
    expect(p.entries[1]!.issues.map((i) => i.code)).toEqual(['duplicate_match']);
  });

  it('an invalid row never writes and keeps its live product out of missing', () => {
    const p = plan([liveProduct('p1'), liveProduct('p2')], ['reference_id', 'price'], [['REF-p1', 'abc']], {
      missing: 'delete',
    });
    expect(p.entries.map((e) => [e.action, e.productId])).toEqual([
      ['invalid', 'p1'],
      ['delete', 'p2'],
    ]);
    expect(p.entries[0]!.issues.map((i) => [i.code, i.column])).toEqual([['money_invalid', 'B']]);
  });
});

describe('missing products and the guardrail', () => {
  const catalog = Array.from({ length: 30 }, (_, i) =>
    liveProduct(`p${i}`, i === 0 ? { status: 'HIDDEN' } : {}),
  );
  const sheetRefs = catalog.slice(0, 25).map((p) => [p.reference_id]);

  it('ignores missing products by default, hides or deletes them on request', () => {
    expect(plan(catalog, ['reference_id'], sheetRefs).summary.noop).toBe(25);
    const hide = plan(catalog, ['reference_id'], sheetRefs.slice(1), { missing: 'hide' });
    // p0 is already hidden: not listed again.
    expect(
      hide.entries.filter((e) => e.action === 'hide').map((e) => [e.productId, e.reason, e.rows]),
    ).toEqual(
      ['p25', 'p26', 'p27', 'p28', 'p29'].map((id) => [id, 'missing from the sheet (--missing hide)', []]),
    );
    const del = plan(catalog, ['reference_id'], sheetRefs, { missing: 'delete' });
    expect(del.summary.delete).toBe(5);
    expect(del.entries.at(-1)!.key).toBe('delete:p29');
  });

  it('does not apply missing when some rows have no key (their product would look absent)', () => {
    const p = plan(
      catalog,
      ['reference_id', 'name'],
      [...sheetRefs.map((r) => [r[0] ?? '', '']), ['', 'lost key']],
      { missing: 'delete' },
    );
    expect(p.summary.delete).toBe(0);
    expect(p.missingSkipped).toContain('1 row(s) have no id, reference_id or sku');
  });

  it('refuses more than 10% of the live catalog or more than 50 products unless allowDeletes', () => {
    const del = plan(catalog, ['reference_id'], sheetRefs, { missing: 'delete' });
    const refused = checkGuardrail(del, 30);
    expect(refused).toMatchObject({ ok: false, code: 'too_many_removals', delete: 5, hide: 0, limit: 3 });
    expect(checkGuardrail(del, 30, { allowDeletes: true })).toEqual({ ok: true, hide: 0, delete: 5 });
    expect(checkGuardrail(del, 50)).toEqual({ ok: true, hide: 0, delete: 5 });
    const many = {
      entries: Array.from({ length: 51 }, () => ({ action: 'hide' as const })),
    } as unknown as ProductPlan;
    expect(checkGuardrail(many, 10_000).ok).toBe(false);
    expect(checkGuardrail({ entries: many.entries.slice(1) }, 10_000).ok).toBe(true);
  });
});

describe('plan shape', () => {
  it('is plain JSON and the same whatever the column order, case and aliases', () => {
    const live = [threeVariantProduct()];
    const a = plan(
      live,
      ['reference_id', 'price', 'variant_sku', 'variant_inventory_quantity', 'images'],
      [['REF-p1', '25.00', 'S1', '8', 'https://cdn.store.test/p1/1.jpg|https://n.test/2.jpg']],
    );
    const b = plan(
      live,
      ['Image URLs', 'Variant Qty', 'VARIANT SKU', 'Price', 'Handle'],
      [['https://cdn.store.test/p1/1.jpg|https://n.test/2.jpg', '8', 'S1', '25', 'REF-p1']],
    );
    const strip = (p: ProductPlan) =>
      JSON.parse(JSON.stringify(p.entries.map(({ issues: _i, ...e }) => e))) as unknown;
    expect(strip(b)).toEqual(strip(a));
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    expect(a.format).toBe('merchant-bulk/product-plan');
    expect(summarizePlan(a)).toEqual(a.summary);
  });
});

describe('stock the sheet tracks without giving it (--stock-unknown)', () => {
  const header = [
    'reference_id',
    'name',
    'price',
    'inventory_enabled',
    'variant_name',
    'variant_price',
    'variant_inventory_quantity',
  ];
  const withQty = [...header, 'inventory_quantity'];
  // NEW-3 gives its quantity: it is not unknown.
  const sheetRows: CellValue[][] = [
    ['NEW-1', 'Tee', '10', 'true', 'S', '10', '', ''],
    ['NEW-1', '', '', '', 'M', '10', '', ''],
    ['NEW-2', 'Cap', '5', 'true', '', '', '', ''],
    ['NEW-3', 'Mug', '7', 'true', '', '', '', '4'],
  ];
  type Create = {
    inventory_enabled?: boolean;
    inventory_quantity?: number;
    variants?: { inventory_quantity?: number }[];
  };
  const bodies = (p: ProductPlan) => Object.fromEntries(p.entries.map((e) => [e.label, e.body as Create]));

  it('not chosen: planned as it is and counted (products and items), so that --apply refuses', () => {
    const p = plan([], withQty, sheetRows);
    expect(p.stockUnknown).toEqual({ products: 2, items: 3, examples: ['NEW-1', 'NEW-2'] });
    expect(p.summary.create).toBe(3);
  });

  it('the KEY each example of the plan shows is one --stock-unknown KEY=MODE takes, also for a row keyed by id', () => {
    const live = [threeVariantProduct()];
    // Keyed by the store's id, named: the name is no KEY (two products may share it).
    const byId = ['id', 'name', 'variant_name', 'variant_inventory_quantity'];
    const shown = plan(live, byId, [['p1', 'Tee', 'Small', '']], { platformExport: true }).stockUnknown;
    expect(shown).toMatchObject({ products: 1, examples: ['p1'] });
    const chosen = plan(live, byId, [['p1', 'Tee', 'Small', '']], {
      platformExport: true,
      stockUnknownByProduct: new Map([[shown?.examples[0] ?? '', 'zero' as const]]),
    });
    expect(chosen.stockChoicesUnused).toBeUndefined();
    expect(chosen.stockUnknown?.byProduct).toEqual([{ product: 'Tee', mode: 'zero' }]);
    expect(describeChanges(chosen.entries[0]!, 2)).toContain('variants[S1].inventory_quantity: 3 → 0');
  });

  it('untracked: created without stock tracking; known quantities untouched', () => {
    const p = plan([], withQty, sheetRows, { stockUnknown: 'untracked' });
    expect(p.stockUnknown?.mode).toBe('untracked');
    const b = bodies(p);
    expect(b['NEW-1']?.inventory_enabled).toBe(false);
    expect(b['NEW-2']?.inventory_enabled).toBe(false);
    expect(b['NEW-3']).toMatchObject({ inventory_enabled: true, inventory_quantity: 4 });
  });

  it('zero: tracked with stock 0, said in the body (never left to a default)', () => {
    const b = bodies(plan([], withQty, sheetRows, { stockUnknown: 'zero' }));
    expect(b['NEW-1']?.variants?.map((v) => v.inventory_quantity)).toEqual([0, 0]);
    expect(b['NEW-2']).toMatchObject({ inventory_enabled: true, inventory_quantity: 0 });
  });

  it('keep: new products untracked; an existing product’s stock left as it is, also from a platform export', () => {
    const live = [threeVariantProduct()];
    const liveRows: CellValue[][] = [['REF-p1', '', '', 'true', 'Small', '', '']];
    const own = plan(live, header, liveRows);
    expect(own.stockUnknown).toBeUndefined(); // own sheet: a blank quantity leaves live stock alone
    const platform = plan(live, header, liveRows, { platformExport: true });
    expect(platform.stockUnknown).toMatchObject({ products: 1, items: 1 });
    const kept = plan(live, header, liveRows, { platformExport: true, stockUnknown: 'keep' });
    expect(kept.entries[0]?.action).toBe('noop');
    const zero = plan(live, header, liveRows, { platformExport: true, stockUnknown: 'zero' });
    expect(describeChanges(zero.entries[0]!, 2)).toEqual(['variants[S1].inventory_quantity: 3 → 0']);
  });

  it('a new variant without a quantity in a product that tracks stock is unknown too; untracked cannot split a product', () => {
    const live = [threeVariantProduct()];
    const addRows: CellValue[][] = [['REF-p1', '', '', '', 'X-Large', '13', '']];
    expect(plan(live, header, addRows).stockUnknown).toMatchObject({ products: 1, items: 1 });
    const split = plan(live, header, addRows, { stockUnknown: 'keep' });
    expect(split.entries[0]?.action).toBe('invalid');
    const mixed = split.entries[0]?.issues.find((i) => i.code === 'stock_unknown_mixed');
    // The product, the variant's row and its quantity cell are named.
    expect(mixed?.message).toBe(
      'stock unknown for "REF-p1": the product tracks stock in the store, so its new variants without a quantity (row 2) cannot be left untracked; give every quantity, or import with --stock-unknown zero (stock 0 for those without one)',
    );
    expect(mixed).toMatchObject({ rowNumber: 2, header: 'variant_inventory_quantity' });
    expect(
      bodies(plan(live, header, addRows, { stockUnknown: 'zero' }))['REF-p1']?.variants?.at(-1),
    ).toMatchObject({
      name: 'X-Large',
      inventory_quantity: 0,
    });
  });
});
