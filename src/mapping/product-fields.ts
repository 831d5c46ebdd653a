import type { DesiredProduct, DesiredProductFields, ProductKey } from './product-desired.js';
import type { ProductGroup } from './product-group.js';

/** A product column's field and what a blank cell gives it (`clear`, with `--blank clear`). */
export interface FieldColumn {
  field: string;
  clear: unknown;
}

/** A product's identifiers as the sheet gave them. */
export interface ProductIds {
  id: string | undefined;
  ref: string | undefined;
  sku: string | undefined;
}

/**
 * A product's fields: each column's value by slot (else its `clear`), then its identifiers.
 * Shared by finish() and the unpacking of a packed product, so both give the same fields.
 */
export function productFields(
  cols: readonly FieldColumn[],
  values: readonly unknown[],
  ids: ProductIds,
): DesiredProductFields {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < cols.length; i++) {
    const col = cols[i] as FieldColumn;
    const v = values[i] ?? col.clear;
    if (v !== undefined) out[col.field] = v;
  }
  const fields = out as DesiredProductFields;
  if (ids.id !== undefined) fields.id = ids.id;
  if (ids.ref !== undefined) fields.reference_id = ids.ref;
  if (ids.sku !== undefined) fields.sku = ids.sku;
  return fields;
}

/** The key a product is matched by: its id, else its reference_id, else its sku. */
export function productKey(ids: ProductIds): ProductKey {
  return ids.id !== undefined
    ? { by: 'id', value: ids.id }
    : ids.ref !== undefined
      ? { by: 'reference_id', value: ids.ref }
      : { by: 'sku', value: ids.sku ?? '' };
}

/** A group as a DesiredProduct with the given fields, variants and rows (the rest from the group). */
export function groupProduct(
  g: ProductGroup,
  fields: DesiredProductFields,
  variants: DesiredProduct['variants'],
  rows: DesiredProduct['rows'],
): DesiredProduct {
  return {
    key: productKey(g),
    command: g.command ?? 'upsert',
    fields,
    variants,
    rows,
    invalid: g.invalid,
    issues: g.issues,
  };
}
