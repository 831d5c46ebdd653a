import type { OptionType, ProductStatus, ProductType, ProductUnit } from '../schema/product.js';
import type { RowIssue } from './row-issue.js';

/** Where a product, variant or option came from, for results files. */
export interface SourceRow {
  sheet: string;
  rowNumber: number;
}

/** The per-row `command` column. `upsert` is the default. */
export const PRODUCT_COMMANDS = ['upsert', 'create', 'update', 'hide', 'delete', 'skip'] as const;
export type ProductCommand = (typeof PRODUCT_COMMANDS)[number];

/** How a product is matched: `id`, else `reference_id`, else the product `sku`. */
export interface ProductKey {
  by: 'id' | 'reference_id' | 'sku';
  value: string;
}

/**
 * Product fields as the sheet states them. A field that is `undefined` (absent column, or blank cell
 * with the default `blank: 'keep'`) is not mentioned and leaves the live value untouched. Money is
 * in minor units.
 */
export interface DesiredProductFields {
  id?: string;
  reference_id?: string;
  name?: string;
  description?: string;
  sku?: string;
  status?: ProductStatus;
  type?: ProductType;
  price?: number;
  original_price?: number;
  cost_enabled?: boolean;
  cost?: number;
  unit_enabled?: boolean;
  unit?: ProductUnit;
  unit_value?: number;
  weight?: number;
  tax_override?: boolean;
  tax_rate?: number;
  tags?: string[];
  links?: string[];
  category_ids?: string[];
  daily_limit?: number;
  cart_limit?: number;
  cart_minimum?: number;
  inventory_enabled?: boolean;
  inventory_quantity?: number;
  images?: string[];
}
export type DesiredProductField = keyof DesiredProductFields;

/** Variant fields as one row states them (`variant_*` columns, prefix removed). */
export interface DesiredVariantFields {
  id?: string;
  name?: string;
  sku?: string;
  description?: string;
  price?: number;
  original_price?: number;
  cost?: number;
  weight?: number;
  inventory_quantity?: number;
}
export type DesiredVariantField = keyof DesiredVariantFields;

export interface DesiredVariant {
  fields: DesiredVariantFields;
  row: SourceRow;
}

/** One choice of a selection option: `text[:price[:quantity]]` in the `option_choices` cell. */
export interface DesiredChoice {
  text: string;
  /** Minor units. */
  price?: number;
  quantity?: number;
}

export interface DesiredOption {
  id?: string;
  type?: OptionType;
  text?: string;
  required?: boolean;
  /** The option's full choice list (the cell lists every choice). */
  choices?: DesiredChoice[];
  min?: number;
  max?: number;
  enableQuantity?: boolean;
  row: SourceRow;
}

export interface DesiredProduct {
  key: ProductKey;
  command: ProductCommand;
  fields: DesiredProductFields;
  /** Rows that carry variant columns, in sheet order. Empty: variants not mentioned. */
  variants: DesiredVariant[];
  /** Rows of the options sheet for this product; `undefined` when none mention it. */
  options?: DesiredOption[];
  /**
   * The product's categories as another platform names them (WooCommerce `Clothing > Hoodies`, a
   * Shopify type, an Etsy section…), read by the format's converter; the plan gives them store
   * category ids through `--category-map`. Absent: the sheet names none.
   */
  sourceCategories?: string[];
  /** Every source row (products sheet, then options sheet), for results files. */
  rows: SourceRow[];
  /** True when any of its rows has an error: the plan marks the product invalid and writes nothing. */
  invalid: boolean;
  /** Errors and warnings on this product's rows. */
  issues: RowIssue[];
  /**
   * Set when only its identifiers are left (a large catalog's product planned unchanged while the
   * live catalog was read, see LiveProduct.compact): it may only be planned against that product.
   */
  identityOnly?: true;
  /**
   * Set while the product is packed (ProductMappingOptions.pack): `fields` then holds only its
   * identifiers (id, reference_id, sku), `variants` and `rows` are empty, and unpackProduct
   * restores everything from the text this number keeps. Whatever reads more than those must
   * unpack it first.
   */
  packed?: number | undefined;
  /** Restores a packed product (see unpackProduct). */
  unpacker?: ((product: DesiredProduct) => void) | undefined;
}

/**
 * The product with everything its rows gave (see DesiredProduct.packed); a product not packed is
 * returned as it is.
 */
export function unpackProduct(product: DesiredProduct): DesiredProduct {
  if (product.packed !== undefined) product.unpacker?.(product);
  return product;
}

/** Options of the product mapping. Every option documents its default. */
export interface ProductMappingOptions {
  /** Decimals of the store currency (`currencyDecimals(me.currency)`). Required. */
  decimals: number;
  /**
   * Keep the sheet's products packed (default false): each product is parked as one string once
   * its rows have passed (rows coming back later unpark it, as scattered rows merge), and finish()
   * returns packed products (DesiredProduct.packed), each unpacked when it is planned. For a
   * large sheet: its products then take a fraction of their memory until the plan needs them.
   */
  pack?: boolean;
  /**
   * The platform's categories by source row (a converted sheet's): each product takes those of its
   * first row of the products sheet that has any (DesiredProduct.sourceCategories).
   */
  sourceCategories?: ReadonlyMap<number, string[]>;
  /** `units` (default): `12.90`; `minor`: raw integers `1290`. */
  money?: 'units' | 'minor';
  /** Accept `12,90` as a decimal comma (default false; set it for locales that write it so). */
  decimalComma?: boolean;
  /**
   * The store currency (`me.currency`): money cells written in another currency (`$12.90` in a MYR
   * store) are invalid. Default: currency symbols and codes are not checked.
   */
  currency?: string;
  /**
   * `keep` (default): a blank cell means "not mentioned", the live value stays. `clear`: a blank cell
   * clears the field where the API has an empty value: description → '', tags/links/category_ids/
   * images → [], original_price → 0, variant description → '', variant original_price → 0. Other
   * fields (names, prices, keys, enums, booleans, integers, cost) have no empty value and stay as
   * they are.
   */
  blank?: 'keep' | 'clear';
  /**
   * A product with more images than the API takes (10): invalid, naming the product and the flag
   * (default), or `first-10`: the first ten in the sheet's order are kept and every other one is
   * listed in a warning on the row that holds them (`--images first-10`).
   */
  images?: 'first-10';
  /**
   * A variant SKU that an earlier variant (of any product) or another product already has:
   * `refuse` (default): the product is invalid, one error naming it and every row; `first`: the
   * SKU stays where it is first, the later variants are given none, each product's rows listed in
   * a warning (`--duplicate-sku`). The API allows repeated SKUs; merchant-bulk finds variants and
   * stock by SKU, so it does not write them. Two products with one product SKU stay an error.
   */
  duplicateSku?: 'first' | 'refuse';
  /**
   * A column map's fields by cell key (`--map`; see applyColumnMap): those columns feed these
   * fields whatever their header says, and keep their header in every message. Default: none.
   */
  columnFields?: ReadonlyMap<string, string>;
  /** Row number of the header row, used for column warnings (default 1). */
  headerRowNumber?: number;
  /** Sheet name used for header issues when no row has been seen (default 'products'). */
  sheetName?: string;
}

export interface ProductMapping {
  products: DesiredProduct[];
  /**
   * Every issue: column warnings, rows that could not be keyed (not part of any product), and the
   * issues of the products (also found on each product).
   */
  issues: RowIssue[];
  /** Number of data rows seen (products sheet + options sheet). */
  rowCount: number;
  /**
   * Products-sheet rows without any id / reference_id / sku (errors, part of no product). Pass it to
   * planProducts: with such rows, `missing: hide|delete` is not planned, since the product such a
   * row meant would look absent.
   */
  unkeyedRows: number;
  /**
   * Options-sheet rows that belong to no product: no id / reference_id / sku, or one that no
   * products row has (errors). With such rows, `replace.options` is not planned: the option such a
   * row lists (for a mistyped key, perhaps) would look left out and be deleted.
   */
  unkeyedOptionRows: number;
  /** Canonical product columns present in the sheet. */
  columns: string[];
  /**
   * Where each canonical column is: products-sheet columns by name (`price`, `variant_sku`),
   * options-sheet columns by name (`option_type`…). Give it to planProducts so plan-time issues
   * name the cell too.
   */
  columnRefs: ColumnRefs;
}

/**
 * Where each field's column is: its letter and header (letter '' when the sheet has no such
 * column), and for a missing column that another column of the sheet nearly names, a hint that
 * every issue about the field repeats (`did you mean Variant Price? column T ("Variant Prce") …`).
 */
export type ColumnRefs = Record<string, { letter: string; header: string; hint?: string }>;
