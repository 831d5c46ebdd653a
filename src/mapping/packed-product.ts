import type { DesiredProduct } from './product-desired.js';
import { readParked, unpackRow } from './parked-group.js';
import type { PackedTexts } from './packed-texts.js';
import type { ProductGroup } from './product-group.js';
import { groupProduct, productFields, type FieldColumn } from './product-fields.js';

/**
 * What unpacks a product packed by finish() into what finish() gives an unparked one. A function
 * of the module, not a method: it holds the columns' fields and the texts alone, not the mapper
 * (whose indexes are let go once the sheet is mapped).
 */
export function productUnpacker(
  cols: readonly FieldColumn[],
  sheet: string,
  texts: PackedTexts,
): (product: DesiredProduct) => void {
  return (product) => {
    const [values, , variants, options, rows] = readParked(texts.take(product.packed as number));
    const ids = product.fields;
    product.fields = productFields(cols, values, { id: ids.id, ref: ids.reference_id, sku: ids.sku });
    product.variants = variants.map(([f, row]) => ({ fields: f, row: unpackRow(row, sheet) }));
    product.rows = rows.map((r) => unpackRow(r, sheet));
    if (options !== 0) product.options = options;
    product.packed = undefined;
    product.unpacker = undefined;
  };
}

/** A parked group as a packed product (DesiredProduct.packed): its identifiers and the group's text. */
export function packedProduct(g: ProductGroup, unpacker: (product: DesiredProduct) => void): DesiredProduct {
  const product = groupProduct(g, productFields([], [], g), [], []);
  if (g.sourceCategories !== undefined) product.sourceCategories = g.sourceCategories;
  product.packed = g.packed;
  product.unpacker = unpacker;
  return product;
}
