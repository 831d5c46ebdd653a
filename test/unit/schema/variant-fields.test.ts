import { describe, expect, it } from 'vitest';
import { variantCells } from '../../../src/export/export-products.js';
import { PRODUCT_SHEET_COLUMNS } from '../../../src/mapping/column-aliases.js';
import { toLiveProduct } from '../../../src/plan/live-catalog.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import { VARIANT_FIELDS, Variant, pickVariantFields } from '../../../src/schema/product.js';

// One list of a variant's own fields (VARIANT_FIELDS / pickVariantFields) serves the sandbox's
// answers, the live catalog the planners diff against, the product export's variant columns and
// the products sheet's.

describe('a variant’s own fields, one list', () => {
  const store = new SandboxStore();
  const product = store.createProduct({
    name: 'Tee',
    price: 1990,
    variants: [{ name: 'S', sku: 'TEE-S', price: 1990, original_price: 2490, cost: 800, weight: 150 }],
  });
  const variant = product.variants[0] as Variant;

  it('the sandbox answers each variant with the API’s fields in the API’s order', () => {
    expect(Object.keys(variant)).toEqual(Object.keys(Variant.shape));
    expect(pickVariantFields(variant)).toEqual({
      id: variant.id,
      name: 'S',
      sku: 'TEE-S',
      description: null,
      price: 1990,
      original_price: 2490,
      cost: 800,
      weight: 150,
    });
  });

  it('the live catalog and the export carry every one of them', () => {
    const live = toLiveProduct(product).variants[0];
    for (const field of VARIANT_FIELDS) expect(live?.[field], field).toEqual(variant[field]);
    expect(live?.inventory_quantity).toBe(variant.inventory?.quantity);
    expect(variantCells(variant)).toEqual({
      ...Object.fromEntries(VARIANT_FIELDS.map((f) => [`variant_${f}`, variant[f]])),
      variant_inventory_quantity: variant.inventory?.quantity,
    });
    // Exactly the variant columns the products sheet reads back, in its order.
    expect(Object.keys(variantCells(variant))).toEqual(
      PRODUCT_SHEET_COLUMNS.filter((column) => column.startsWith('variant_')),
    );
  });
});
