import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLiveProduct } from '../../../src/plan/live-catalog.js';
import {
  pickProductFields,
  pickVariantFields,
  type Product,
  type StoreSnapshot,
} from '../../../src/schema/index.js';

const SAMPLE = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../../samples/store.json'), 'utf8'),
) as StoreSnapshot;

/** toLiveProduct as it was written before (through the field lists): the reference. */
function referenceLiveProduct(p: Product) {
  return {
    id: p.id,
    updated_at: p.updated_at,
    ...pickProductFields(p),
    inventory_quantity: p.inventory?.quantity ?? null,
    inventory_updated_at: p.inventory?.updated_at ?? null,
    images: p.images,
    variants: p.variants.map((v) => ({
      ...pickVariantFields(v),
      inventory_quantity: v.inventory?.quantity ?? null,
      inventory_updated_at: v.inventory?.updated_at ?? null,
    })),
    options: p.options.map((o) => ({
      id: o.id,
      type: o.type,
      text: o.text,
      required: o.required,
      settings: o.settings,
    })),
  };
}

describe('toLiveProduct', () => {
  it('keeps the same fields in the same order as the field lists give them (JSON byte for byte)', () => {
    const products = SAMPLE.products;
    // The sample has products with and without inventory, variants and options.
    expect(products.some((p) => p.inventory === null)).toBe(true);
    expect(products.some((p) => p.inventory !== null)).toBe(true);
    expect(products.some((p) => p.options.length > 0)).toBe(true);
    expect(products.some((p) => p.variants.length > 0)).toBe(true);
    for (const p of products) {
      expect(JSON.stringify(toLiveProduct(p))).toBe(JSON.stringify(referenceLiveProduct(p)));
      expect(toLiveProduct(p)).toStrictEqual(referenceLiveProduct(p));
    }
  });
});
