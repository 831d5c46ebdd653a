import type { CellValue, SheetColumn } from '../sheets/sheet-row.js';
import { PRODUCT_SHEET_COLUMNS } from './column-aliases.js';
import type { RowIssue } from './row-issue.js';

/** Canonical stock columns and the headers accepted for them (matched case-insensitively). */
export const STOCK_COLUMN_ALIASES: Readonly<Record<StockField, readonly string[]>> = {
  sku: ['sku', 'variant_sku', 'variant sku', 'item sku'],
  item_id: ['item_id', 'item id', 'inventory_item_id'],
  quantity: [
    'quantity',
    'qty',
    'stock',
    'inventory_quantity',
    'variant_inventory_quantity',
    'on hand',
    'available',
  ],
  delta_quantity: ['delta_quantity', 'delta', 'adjustment', 'change'],
};
export type StockField = 'sku' | 'item_id' | 'quantity' | 'delta_quantity';

/**
 * Resolved stock columns: the cell key and the column (for error messages) of each field present.
 * A product export (`mbulk export products`) has both `sku` and `variant_sku`, and both
 * `inventory_quantity` and `variant_inventory_quantity`: then `variant_sku` / `variant_quantity`
 * hold the variant columns, used on rows whose variant_sku is filled (the product columns on the
 * rows of products without variants).
 */
export type StockColumns = Partial<Record<StockField | 'variant_sku' | 'variant_quantity', SheetColumn>>;

/**
 * Columns of a product export a stock import ignores without a warning each: the products sheet's
 * own columns (its stock columns are read as stock aliases before this is consulted).
 */
const PRODUCT_EXPORT_COLUMNS: ReadonlySet<string> = new Set(PRODUCT_SHEET_COLUMNS);

export interface ResolvedStockColumns {
  columns: StockColumns;
  /** Header-level problems: missing key or quantity column (fatal), unknown columns (warnings). */
  issues: RowIssue[];
}

/** Maps a stock sheet's header onto the canonical fields. */
export function resolveStockColumns(sheet: string, header: readonly SheetColumn[]): ResolvedStockColumns {
  const columns: StockColumns = {};
  const issues: RowIssue[] = [];
  const headerRow = 1;
  const keys = new Set(header.map((c) => c.key));
  // A product export: its variant columns pair with the product ones instead of clashing with them.
  const pairSku = keys.has('sku') && keys.has('variant_sku');
  const pairQuantity = keys.has('inventory_quantity') && keys.has('variant_inventory_quantity');
  const productExport = pairSku || pairQuantity;
  for (const col of header) {
    if (pairSku && col.key === 'variant_sku') {
      columns.variant_sku = col;
      continue;
    }
    if (pairQuantity && col.key === 'variant_inventory_quantity') {
      columns.variant_quantity = col;
      continue;
    }
    const field = (Object.keys(STOCK_COLUMN_ALIASES) as StockField[]).find((f) =>
      STOCK_COLUMN_ALIASES[f].includes(col.key),
    );
    if (field === undefined) {
      if (col.key === '' || col.key.startsWith('mbulk_')) continue;
      if (productExport && PRODUCT_EXPORT_COLUMNS.has(col.key)) continue;
      issues.push({
        severity: 'warning',
        code: 'unknown_column',
        message: `column "${col.header}" is not a stock column and is ignored (use sku or item_id, and quantity or delta_quantity)`,
        sheet,
        rowNumber: headerRow,
        column: col.letter,
        header: col.header,
      });
      continue;
    }
    if (columns[field] !== undefined) {
      issues.push({
        severity: 'error',
        code: 'duplicate_column',
        message: `columns "${columns[field].header}" and "${col.header}" both mean ${field}; keep one`,
        sheet,
        rowNumber: headerRow,
        column: col.letter,
        header: col.header,
      });
      continue;
    }
    columns[field] = col;
  }
  if (!columns.sku && !columns.item_id) {
    issues.push({
      severity: 'error',
      code: 'missing_key_column',
      message: 'the sheet needs a "sku" or an "item_id" column to find each inventory item',
      sheet,
      rowNumber: headerRow,
    });
  }
  if (!columns.quantity && !columns.delta_quantity) {
    issues.push({
      severity: 'error',
      code: 'missing_quantity_column',
      message: 'the sheet needs a "quantity" (absolute) or "delta_quantity" (adjustment) column',
      sheet,
      rowNumber: headerRow,
    });
  }
  return { columns, issues };
}

const INTEGER = /^[+-]?\d+$/;

/**
 * Reads an integer cell on the hot path (a million-row sheet): '12', ' 12 ', 12, '12.0' and the XLSX
 * number 12 are 12; anything else is undefined (blank) or NaN (not an integer).
 */
export function stockInteger(value: CellValue | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  let s = value;
  if (s.length === 0) return undefined;
  if (!INTEGER.test(s)) {
    s = s.trim();
    if (s.length === 0) return undefined;
    if (/^[+-]?\d+\.0*$/.test(s)) s = s.slice(0, s.indexOf('.'));
    else if (!INTEGER.test(s)) return Number.NaN;
  }
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : Number.NaN;
}

/** The text of a key cell (sku / item_id), trimmed; numbers from XLSX become their digits. */
export function stockKey(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : String(value);
  return String(value).trim();
}
