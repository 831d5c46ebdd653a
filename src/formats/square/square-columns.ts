import { UsageError } from '../../errors/usage-error.js';
import { cellText } from '../../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { CATEGORY_NOTE } from '../source-format.js';
import type { ColumnUse } from '../source-format.js';

/** `Current Quantity Main St`: a location's stock column (one per location in the export). */
const QUANTITY_PREFIX = 'current quantity ';

/** Grams per unit of a `Weight (lb)` / `Weight (kg)` / `Weight (oz)` / `Weight (g)` header. */
const GRAMS_PER: Readonly<Record<string, number>> = { lb: 453.59237, kg: 1000, oz: 28.349523125, g: 1 };

/** The columns of Square's item library export read by name (`Categories`, else `Category`, …). */
export const SQUARE_HEADERS = {
  token: ['Token'],
  itemName: ['Item Name'],
  variationName: ['Variation Name'],
  sku: ['SKU'],
  description: ['Description'],
  price: ['Price'],
  sale: ['Online Sale Price'],
  cost: ['Default Unit Cost'],
  archived: ['Archived'],
  visibility: ['Square Online Item Visibility'],
  itemType: ['Item Type'],
  categories: ['Categories', 'Category', 'Reporting Category'],
  option1: ['Option Value 1'],
  option2: ['Option Value 2'],
  option3: ['Option Value 3'],
} as const;
export type SquareColumn = keyof typeof SQUARE_HEADERS;

/** The stock columns read: every location's, or the one `--location` names. */
export interface SquareStock {
  columns: SheetColumn[];
  /** Every location of the export, as its `Current Quantity` header names it. */
  locations: string[];
}

export function squareStock(columns: readonly SheetColumn[], location: string | undefined): SquareStock {
  const stock = columns.filter((c) => c.key.trim().startsWith(QUANTITY_PREFIX));
  const locations = stock.map((c) => c.header.trim().slice(QUANTITY_PREFIX.length).trim());
  const wanted = location?.trim();
  if (wanted === undefined) return { columns: stock, locations };
  const at = locations.findIndex((l) => l.toLowerCase() === wanted.toLowerCase());
  if (at < 0)
    throw new UsageError(
      `--location "${wanted}" is not a location of this Square export; its locations: ${locations.map((l) => `"${l}"`).join(', ') || 'none (no Current Quantity column)'}`,
      'location',
    );
  return { columns: [stock[at] as SheetColumn], locations };
}

/** The weight column and its grams per unit. */
export function squareWeight(
  columns: readonly SheetColumn[],
): { column: SheetColumn; grams: number } | undefined {
  return columns
    .map((c) => {
      const m = /^weight \((lb|kg|oz|g)\)$/.exec(c.key.trim());
      return m === null ? undefined : { column: c, grams: GRAMS_PER[m[1] as string] as number };
    })
    .find((w) => w !== undefined);
}

/**
 * A row's stock summed over the stock columns: undefined when none gives a number, the cell's text
 * when one is not a number (the decoder names the cell).
 */
export function sumQuantity(row: SheetRow, stock: readonly SheetColumn[]): number | string | undefined {
  let total: number | undefined;
  for (const c of stock) {
    const t = cellText(row.cells[c.key] as CellValue | undefined).trim();
    if (t === '') continue;
    const n = Number(t);
    if (!Number.isFinite(n)) return t;
    total = (total ?? 0) + n;
  }
  return total;
}

const FEEDS: Readonly<Record<string, [string | null, string?]>> = {
  token: [null, "Square's variation id: not the store's"],
  'item name': ['name, reference_id', 'square:ITEM NAME; the rows of one item share it'],
  'variation name': ['variant_name', 'when no Option Value names the variation'],
  sku: ['sku / variant_sku'],
  description: ['description', 'HTML → the API Markdown subset'],
  price: ['price / variant_price', 'the original price when Online Sale Price is set'],
  'online sale price': ['price / variant_price', 'Price becomes the original price'],
  'default unit cost': ['cost / variant_cost'],
  archived: ['status', 'Y → HIDDEN'],
  'square online item visibility': ['status', 'visible → VISIBLE; hidden, unavailable → HIDDEN'],
  'item type': ['type', 'Digital good → DIGITAL, Physical good → PHYSICAL'],
};

/** What became of each column of a Square export. */
export function squareColumnUses(
  columns: readonly SheetColumn[],
  categoryColumn: SheetColumn | undefined,
  weightColumn: SheetColumn | undefined,
  stockColumns: readonly SheetColumn[],
): ColumnUse[] {
  const stock = new Set(stockColumns);
  return columns.map((c) => {
    const base = { header: c.header, letter: c.letter };
    const k = c.key.trim();
    if (c === categoryColumn) return { ...base, field: 'category_ids', note: CATEGORY_NOTE };
    if (c === weightColumn) return { ...base, field: 'weight / variant_weight', note: '→ grams' };
    if (stock.has(c))
      return {
        ...base,
        field: 'inventory_quantity / variant_inventory_quantity',
        note:
          stockColumns.length > 1
            ? `summed over the ${stockColumns.length} locations (--location NAME for one)`
            : 'tracked when a number',
      };
    if (k.startsWith(QUANTITY_PREFIX))
      return { ...base, field: null, note: 'another location than --location' };
    const f = FEEDS[k];
    if (f !== undefined) return { ...base, field: f[0], ...(f[1] ? { note: f[1] } : {}) };
    if (/^option value \d$/.test(k)) return { ...base, field: 'variant_name', note: 'joined with " / "' };
    if (/^option name \d$/.test(k))
      return { ...base, field: null, note: 'option names: variants are named by their values' };
    if (k === 'category' || k === 'reporting category' || k === 'categories')
      return { ...base, field: null, note: `categories read from "${categoryColumn?.header ?? ''}"` };
    return { ...base, field: null, note: 'no such field in the API' };
  });
}
