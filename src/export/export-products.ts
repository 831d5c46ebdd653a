import { VARIANT_FIELDS, pickProductFields } from '../schema/product.js';
import { EXPORTED_AT_COLUMN } from '../mapping/exported-at.js';
import { formatOptionChoices } from '../mapping/options-choices.js';
import { currencyDecimals } from '../schema/currency.js';
import type { Product, ProductOption, Variant } from '../schema/product.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import { type ColumnSpec } from '../sheets/sheet-writer.js';
import { column, moneyType, withWriter, writeRow, type MoneyMode } from './catalog-sheet.js';
import { suffixedPath } from './suffixed-path.js';
import { productRoundTripWarnings } from './product-round-trip-warnings.js';

/** Round-trip warnings kept in the result (the count covers all of them). */
const MAX_WARNINGS = 50;

/** Sheet names of the products export (the names the product import looks for). */
export const PRODUCTS_SHEET = 'products';
export const OPTIONS_SHEET = 'options';

/** The stock columns, left out by `--no-stock`. */
const STOCK_COLUMNS = new Set(['inventory_quantity', 'variant_inventory_quantity']);

/**
 * Columns of the products sheet, in the import's canonical names (column-aliases.ts,
 * PRODUCT_SHEET_COLUMNS without `command`): one row per variant, product columns repeated, then
 * `mbulk_exported_at`. `stock: false` leaves out inventory_quantity and variant_inventory_quantity.
 */
export function productColumns(money: MoneyMode = 'units', options: { stock?: boolean } = {}): ColumnSpec[] {
  const columns = allProductColumns(money);
  return options.stock === false ? columns.filter((c) => !STOCK_COLUMNS.has(c.key)) : columns;
}

function allProductColumns(money: MoneyMode): ColumnSpec[] {
  const m = moneyType(money);
  return [
    column('id', 'text', 22),
    column('reference_id', 'text', 16),
    column('name', 'text', 28),
    column('description', 'text', 40),
    column('sku', 'text', 16),
    column('status', 'text', 9),
    column('type', 'text', 11),
    column('price', m, 11),
    column('original_price', m, 14),
    column('cost_enabled', 'boolean'),
    column('cost', m, 11),
    column('unit_enabled', 'boolean'),
    column('unit', 'text', 7),
    column('unit_value', 'number'),
    column('weight', 'integer'),
    column('tax_override', 'boolean'),
    column('tax_rate', 'integer'),
    column('tags', 'text', 24),
    column('links', 'text', 30),
    column('category_ids', 'text', 24),
    column('daily_limit', 'integer'),
    column('cart_limit', 'integer'),
    column('cart_minimum', 'integer'),
    column('inventory_enabled', 'boolean'),
    column('inventory_quantity', 'integer'),
    column('images', 'text', 40),
    column('variant_id', 'text', 22),
    column('variant_name', 'text', 18),
    column('variant_sku', 'text', 18),
    column('variant_description', 'text', 24),
    column('variant_price', m, 13),
    column('variant_original_price', m, 15),
    column('variant_cost', m, 12),
    column('variant_weight', 'integer'),
    column('variant_inventory_quantity', 'integer'),
    column(EXPORTED_AT_COLUMN, 'text', 24),
  ];
}

/** Columns of the options sheet (OPTION_SHEET_COLUMNS): one row per product option. */
export function optionColumns(): ColumnSpec[] {
  return [
    column('id', 'text', 22),
    column('reference_id', 'text', 16),
    column('sku', 'text', 16),
    column('option_id', 'text', 22),
    column('option_type', 'text', 17),
    column('option_text', 'text', 24),
    column('option_required', 'boolean'),
    column('option_choices', 'text', 40),
    column('option_min', 'integer'),
    column('option_max', 'integer'),
    column('option_enable_quantity', 'boolean'),
  ];
}

export interface ExportProductsProgress {
  productsRead: number;
  rowsWritten: number;
  optionRowsWritten: number;
  phase: 'writing' | 'finishing' | 'done';
}

export interface ExportProductsOptions {
  /** The products, usually `client.products.list()`. Read once, in order. */
  products: AsyncIterable<Product>;
  store: Pick<Store, 'currency' | 'timezone'>;
  /** The products file (`.csv` or `.xlsx`). */
  path: string;
  format: 'csv' | 'xlsx';
  /** CSV: the options file. Default `<path without .csv>-options.csv`. (XLSX: an `options` sheet.) */
  optionsPath?: string;
  /** `units` (default): `12.90` with the currency's decimals; `minor`: raw integers (import with --money minor). */
  money?: MoneyMode;
  /** Decimals of the money columns. Default: ISO 4217 decimals of `store.currency`. */
  currencyDecimals?: number;
  /** Write the stock columns (default true); false is `--no-stock`. */
  stock?: boolean;
  /**
   * The `mbulk_exported_at` of every row. Default: the time the export starts, before the first
   * product is read (so a change made while exporting counts as later than the export).
   */
  exportedAt?: Date;
  /** Progress, every 100 products and at the end. */
  onProgress?: (progress: ExportProductsProgress) => void;
}

export interface ExportProductsResult {
  products: number;
  /** Rows of the products sheet (one per variant; one for a product without variants). */
  rows: number;
  variants: number;
  /** Rows of the options sheet. */
  optionRows: number;
  paths: { products: string; options?: string };
  /** Live values a re-import would not read back unchanged (see productRoundTripWarnings), at most 50. */
  warnings: string[];
  /** All such values, including those beyond `warnings`. */
  warningCount: number;
}

type Row = Record<string, unknown>;

/** The product columns of a product (repeated on each of its rows). */
export function productCells(p: Product): Row {
  return {
    id: p.id,
    ...pickProductFields(p),
    inventory_quantity: p.inventory?.quantity ?? null,
    images: p.images,
  };
}

/** The variant columns of one variant: `variant_` + each of its own fields, then its stock. */
export function variantCells(v: Variant): Row {
  const row: Row = {};
  for (const field of VARIANT_FIELDS) row[`variant_${field}`] = v[field];
  row['variant_inventory_quantity'] = v.inventory?.quantity ?? null;
  return row;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The options-sheet row of one option: settings written as option_choices (formatOptionChoices,
 * prices in the export's money mode), min, max and enableQuantity. Other settings are not
 * columns; the import keeps them (an option entry keeps its live settings).
 */
export function optionCells(p: Product, o: ProductOption, decimals: number, money: MoneyMode): Row {
  const row: Row = {
    id: p.id,
    reference_id: p.reference_id,
    sku: p.sku,
    option_id: o.id,
    option_type: o.type,
    option_text: o.text,
    option_required: o.required,
  };
  const settings = record(o.settings);
  const list = settings?.['options'];
  if (Array.isArray(list)) {
    const choices: { text: string; price?: number; quantity?: number }[] = [];
    for (const item of list as unknown[]) {
      const c = record(item);
      if (c === undefined || typeof c['text'] !== 'string') continue;
      const choice: { text: string; price?: number; quantity?: number } = { text: c['text'] };
      if (typeof c['price'] === 'number' && Number.isSafeInteger(c['price'])) choice.price = c['price'];
      if (typeof c['quantity'] === 'number' && Number.isSafeInteger(c['quantity']))
        choice.quantity = c['quantity'];
      choices.push(choice);
    }
    row['option_choices'] = formatOptionChoices(choices, { decimals, money });
  }
  const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  row['option_min'] = int(settings?.['min']);
  row['option_max'] = int(settings?.['max']);
  const eq = settings?.['enableQuantity'];
  row['option_enable_quantity'] = typeof eq === 'boolean' ? eq : null;
  return row;
}

/**
 * `mbulk export products`: the catalog in exactly the product import's format, so that importing
 * an unmodified export plans no change. Products sheet: one row per variant (a product without
 * variants is one row), every product column repeated on each row of the product; options in a
 * second sheet (XLSX) or file (CSV, `<name>-options.csv`). Lists are `|`-joined, booleans
 * true/false, money in currency units (or minor units), text cells formula-neutralised (the import
 * restores them). Streams: memory holds one product at a time.
 */
export async function exportProducts(options: ExportProductsOptions): Promise<ExportProductsResult> {
  const exportedAt = (options.exportedAt ?? new Date()).toISOString();
  const money = options.money ?? 'units';
  const decimals = options.currencyDecimals ?? currencyDecimals(options.store.currency);
  const csv = options.format === 'csv';
  const optionsPath = csv ? (options.optionsPath ?? suffixedPath(options.path, '-options')) : options.path;
  const stats = { products: 0, rows: 0, variants: 0, optionRows: 0, warnings: 0 };
  const warnings: string[] = [];
  const progress = (phase: ExportProductsProgress['phase']): void => {
    options.onProgress?.({
      productsRead: stats.products,
      rowsWritten: stats.rows,
      optionRowsWritten: stats.optionRows,
      phase,
    });
  };
  const writer = createSheetWriter(options.path, {
    format: options.format,
    currencyDecimals: decimals,
    timezone: options.store.timezone,
  });
  await withWriter(writer, async () => {
    const productsSheet = await writer.addSheet(
      { name: PRODUCTS_SHEET, columns: productColumns(money, { stock: options.stock !== false }) },
      options.path,
    );
    const optionsSheet = await writer.addSheet(
      { name: OPTIONS_SHEET, columns: optionColumns() },
      optionsPath,
    );
    for await (const p of options.products) {
      stats.products++;
      for (const w of productRoundTripWarnings(p)) {
        if (warnings.length < MAX_WARNINGS) warnings.push(w);
        stats.warnings++;
      }
      const base = { ...productCells(p), [EXPORTED_AT_COLUMN]: exportedAt };
      if (p.variants.length === 0) {
        await writeRow(productsSheet, base);
        stats.rows++;
      }
      for (const v of p.variants) {
        await writeRow(productsSheet, { ...base, ...variantCells(v) });
        stats.rows++;
        stats.variants++;
      }
      for (const o of p.options) {
        await writeRow(optionsSheet, optionCells(p, o, decimals, money));
        stats.optionRows++;
      }
      if (stats.products % 100 === 0) progress('writing');
    }
    progress('finishing');
    await productsSheet.end();
    await optionsSheet.end();
  });
  progress('done');
  return {
    products: stats.products,
    rows: stats.rows,
    variants: stats.variants,
    optionRows: stats.optionRows,
    paths: csv ? { products: options.path, options: optionsPath } : { products: options.path },
    warnings,
    warningCount: stats.warnings,
  };
}
