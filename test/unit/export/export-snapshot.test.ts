import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatOfPath } from '../../../src/export/catalog-sheet.js';
import { exportSnapshot } from '../../../src/export/export-snapshot.js';
import { optionCells, productCells } from '../../../src/export/export-products.js';
import { templateCells, templateColumns } from '../../../src/export/export-templates.js';
import { productRoundTripWarnings } from '../../../src/export/product-round-trip-warnings.js';
import { parseOptionChoices } from '../../../src/mapping/options-choices.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { StoreSnapshot, type Product, type ProductOption } from '../../../src/schema/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mbulk-export-unit-'));

async function* items<T>(list: readonly T[], failAt?: number): AsyncGenerator<T> {
  for (let i = 0; i < list.length; i++) {
    if (i === failAt) throw new Error('list failed');
    yield list[i] as T;
  }
}

describe('exportSnapshot', () => {
  it('streams every section into a valid StoreSnapshot', async () => {
    const store = generateStore({ products: 30, customers: 700, orders: 40, seed: 4 });
    const path = join(dir, 'snap.json');
    const seen: string[] = [];
    const r = await exportSnapshot({
      me: store.me,
      products: items(store.products),
      customers: items(store.customers),
      orders: items(store.orders),
      templates: items(store.templates),
      path,
      exportedAt: new Date('2026-11-20T00:00:00Z'),
      onProgress: (p) => seen.push(`${p.section}:${p.items}:${p.phase}`),
    });
    expect(r.counts).toEqual({ products: 30, customers: 700, orders: 40, templates: store.templates.length });
    const parsed = StoreSnapshot.parse(JSON.parse(readFileSync(path, 'utf8')));
    expect(parsed).toEqual({ ...store, exported_at: '2026-11-20T00:00:00.000Z' });
    expect(seen).toContain('customers:500:writing');
    expect(seen).toContain('orders:40:done');
  });

  it('writes empty sections as [] and leaves no file when a list fails', async () => {
    const store = generateStore({ products: 3, customers: 3, orders: 3, seed: 2 });
    const empty = join(dir, 'empty.json');
    await exportSnapshot({
      me: store.me,
      products: items([]),
      customers: items([]),
      orders: items([]),
      templates: items([]),
      path: empty,
    });
    const parsed = StoreSnapshot.parse(JSON.parse(readFileSync(empty, 'utf8')));
    expect(parsed.products).toEqual([]);

    const broken = join(dir, 'broken.json');
    await expect(
      exportSnapshot({
        me: store.me,
        products: items(store.products),
        customers: items(store.customers, 2),
        orders: items(store.orders),
        templates: items(store.templates),
        path: broken,
      }),
    ).rejects.toThrow('list failed');
    expect(existsSync(broken)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('broken'))).toEqual([]);
  });
});

describe('product and option cells', () => {
  const product = generateStore({ products: 5, seed: 1 }).products.find(
    (p) => p.options.length > 0,
  ) as Product;

  it('repeats the import field names and keeps money in minor units for the writer', () => {
    const row = productCells(product);
    expect(row['id']).toBe(product.id);
    expect(row['price']).toBe(product.price);
    expect(row['tags']).toEqual(product.tags);
    expect(row['inventory_quantity']).toBe(product.inventory?.quantity ?? null);
  });

  it('writes option_choices that parse back to the same choices (escaped : and |)', () => {
    const option: ProductOption = {
      id: 'opt_1',
      object: 'product_option',
      type: 'OPTION_SELECTION',
      text: 'Slot',
      required: true,
      settings: {
        options: [
          { text: '10:30 | early', price: 150, id: 'c1' },
          { text: 'Free', quantity: 3 },
          { text: 'Plain' },
        ],
        min: 1,
        max: 2,
        enableQuantity: false,
      },
    };
    const row = optionCells(product, option, 2, 'units');
    expect(row).toMatchObject({
      option_min: 1,
      option_max: 2,
      option_enable_quantity: false,
      option_required: true,
    });
    const parsed = parseOptionChoices(row['option_choices'] as string, { decimals: 2 });
    expect(parsed).toEqual({
      ok: true,
      value: [{ text: '10:30 | early', price: 150 }, { text: 'Free', quantity: 3 }, { text: 'Plain' }],
    });
    const minor = optionCells(product, option, 2, 'minor');
    expect(minor['option_choices']).toBe('10\\:30 \\| early:150|Free::3|Plain');
  });

  it('leaves settings columns blank for options without settings', () => {
    const row = optionCells(
      product,
      { id: 'o', object: 'product_option', type: 'OPTION_TEXT', text: 'Note', required: false },
      2,
      'units',
    );
    expect(row['option_choices']).toBeUndefined();
    expect(row['option_min']).toBeNull();
  });
});

describe('templates and formats', () => {
  it('sizes button columns and fills them in the import format', () => {
    expect(templateColumns(0).map((c) => c.key)).not.toContain('button_1_type');
    expect(templateColumns(2).map((c) => c.key)).toContain('button_2_phone_number');
    const t = generateStore({ products: 1, seed: 1 }).templates.find((x) => x.buttons.length > 1);
    if (t === undefined) throw new Error('no template with buttons');
    const row = templateCells(t);
    expect(row['button_2_text']).toBe(t.buttons[1]?.text);
    expect(row['parameters']).toEqual(t.parameters);
  });

  it('reads the format from the extension', () => {
    expect(formatOfPath('a/b.XLSX')).toBe('xlsx');
    expect(formatOfPath('orders.csv')).toBe('csv');
    expect(formatOfPath('s.json')).toBe('json');
    expect(formatOfPath('x.txt')).toBeUndefined();
    expect(formatOfPath('noext')).toBeUndefined();
  });
});

describe('productRoundTripWarnings', () => {
  it('names the live values the sheet cannot carry back', () => {
    const p = structuredClone(generateStore({ products: 3, seed: 1 }).products[0] as Product);
    expect(productRoundTripWarnings(p)).toEqual([]);
    p.tags = ['a|b', ' padded', 'ok'];
    p.name = ' Spaced ';
    p.description = "'=not ours";
    const w = productRoundTripWarnings(p);
    expect(w).toHaveLength(4);
    expect(w[0]).toContain('contains |');
    expect(w.join('\n')).toContain('surrounding spaces, which the import trims');
    expect(w.join('\n')).toContain('drop the apostrophe');
  });
});
