import { PRODUCT_FIELDS, VARIANT_FIELDS } from '../schema/product.js';
import type { SheetColumn } from '../sheets/sheet-row.js';

/**
 * Canonical columns of the products sheet: the API's own field names (docs/architecture.md, "Sheet formats"),
 * plus `command` and the variant columns.
 */
export const PRODUCT_SHEET_COLUMNS = [
  'command',
  'id',
  ...PRODUCT_FIELDS,
  'inventory_quantity',
  'images',
  ...VARIANT_FIELDS.map((field) => `variant_${field}` as const),
  'variant_inventory_quantity',
] as const;
export type ProductSheetColumn = (typeof PRODUCT_SHEET_COLUMNS)[number];

/** Canonical columns of the options sheet (keyed by the product's id / reference_id / sku). */
export const OPTION_SHEET_COLUMNS = [
  'id',
  'reference_id',
  'sku',
  'option_id',
  'option_type',
  'option_text',
  'option_required',
  'option_choices',
  'option_min',
  'option_max',
  'option_enable_quantity',
] as const;
export type OptionSheetColumn = (typeof OPTION_SHEET_COLUMNS)[number];

/**
 * Other spellings people use for the canonical columns, keyed by the lower-cased header. Spaces,
 * dashes and underscores are interchangeable before lookup (`Variant SKU` = `variant-sku` =
 * `variant_sku`), so only genuinely different words need an entry here.
 */
export const PRODUCT_COLUMN_ALIASES: Readonly<Record<string, ProductSheetColumn>> = {
  action: 'command',
  product_id: 'id',
  reference: 'reference_id',
  ref: 'reference_id',
  external_id: 'reference_id',
  handle: 'reference_id',
  product_name: 'name',
  title: 'name',
  product_title: 'name',
  body: 'description',
  product_description: 'description',
  product_sku: 'sku',
  visibility: 'status',
  product_type: 'type',
  compare_at_price: 'original_price',
  compare_price: 'original_price',
  list_price: 'original_price',
  cost_price: 'cost',
  unit_of_measure: 'unit',
  tag: 'tags',
  categories: 'category_ids',
  category_id: 'category_ids',
  qty: 'inventory_quantity',
  quantity: 'inventory_quantity',
  stock: 'inventory_quantity',
  inventory: 'inventory_quantity',
  track_inventory: 'inventory_enabled',
  image: 'images',
  image_urls: 'images',
  image_url: 'images',
  variant: 'variant_name',
  variant_title: 'variant_name',
  variant_compare_at_price: 'variant_original_price',
  variant_compare_price: 'variant_original_price',
  variant_cost_price: 'variant_cost',
  variant_qty: 'variant_inventory_quantity',
  variant_quantity: 'variant_inventory_quantity',
  variant_stock: 'variant_inventory_quantity',
  variant_inventory: 'variant_inventory_quantity',
};

export const OPTION_COLUMN_ALIASES: Readonly<Record<string, OptionSheetColumn>> = {
  product_id: 'id',
  reference: 'reference_id',
  ref: 'reference_id',
  product_sku: 'sku',
  option: 'option_text',
  option_name: 'option_text',
  option_label: 'option_text',
  choices: 'option_choices',
  option_values: 'option_choices',
  required: 'option_required',
  type: 'option_type',
  min: 'option_min',
  max: 'option_max',
};

/** `Variant SKU` / `variant-sku` / ` variant_sku ` → `variant_sku`. */
export function normalizeHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_');
}

export interface ResolvedColumns<C extends string> {
  /** Canonical column → the sheet column it was read from (the first one when a sheet repeats it). */
  byField: Map<C, SheetColumn>;
  /** Columns the mapping does not know (reported once each as a warning). */
  unknown: SheetColumn[];
  /** Second and later columns resolving to an already-taken canonical column. */
  duplicates: { column: SheetColumn; field: C; first: SheetColumn }[];
}

/**
 * Resolves a header row once: a column map's field first (`mapped`, cell key → field; '' for a
 * column the map reads only as part of a join, which is neither a field nor unknown), then
 * canonical names, then aliases.
 */
export function resolveColumns<C extends string>(
  columns: readonly SheetColumn[],
  canonical: readonly C[],
  aliases: Readonly<Record<string, C>>,
  mapped?: ReadonlyMap<string, string>,
): ResolvedColumns<C> {
  const known = new Set<string>(canonical);
  const byField = new Map<C, SheetColumn>();
  const unknown: SheetColumn[] = [];
  const duplicates: ResolvedColumns<C>['duplicates'] = [];
  for (const column of columns) {
    if (column.header.trim() === '') continue;
    const fromMap = mapped?.get(column.key);
    if (fromMap === '') continue;
    const norm = normalizeHeader(fromMap ?? column.header);
    const field = known.has(norm) ? (norm as C) : aliases[norm];
    if (field === undefined) {
      unknown.push(column);
      continue;
    }
    const first = byField.get(field);
    if (first !== undefined) duplicates.push({ column, field, first });
    else byField.set(field, column);
  }
  return { byField, unknown, duplicates };
}
