import type { RowIssue } from '../../mapping/row-issue.js';
import { cellText } from '../../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { categoryList, priceOrder, pushIssue, SourceColumns } from '../source-format.js';
import type { ConvertedProducts, ProductConverter } from '../source-format.js';
import {
  SQUARE_HEADERS,
  squareColumnUses,
  squareStock,
  squareWeight,
  sumQuantity,
  type SquareColumn,
} from './square-columns.js';

/** Whether a header is Square's item library export (`Token`, `Item Name`, `Variation Name`, `Price`). */
export function isSquareItemsHeader(columns: readonly SheetColumn[]): boolean {
  const keys = new Set(columns.map((c) => c.key.trim()));
  return keys.has('token') && keys.has('item name') && keys.has('variation name') && keys.has('price');
}

/** Variation names Square gives the one variation of an item without variations. */
const SINGLE_NAMES = new Set(['', 'regular', 'default title']);

export interface SquareOptions {
  /** `--location NAME`: one location's `Current Quantity` instead of the sum of all of them. */
  location?: string | undefined;
}

/**
 * Square's item library export (Items → Actions → Export library, CSV or XLSX): one row per
 * variation, the variations of an item sharing its `Item Name` (the export has no item id, so the
 * key is the name: reference_id `square:ITEM NAME`, said once in the plan). An item whose only
 * variation is unnamed (`Regular`, `Default Title`, blank) is a product without variants; other
 * items' variations are variants named by their `Option Value N` (joined with ` / `), else by
 * `Variation Name`. `Price` → price (with `Online Sale Price`: that is the price and `Price` the
 * original price); `Default Unit Cost` → cost; `Weight (lb|kg|oz|g)` → grams; `SKU`; `Description`
 * (HTML) → Markdown; `Archived` Y or `Square Online Item Visibility` hidden/unavailable → HIDDEN,
 * visible → VISIBLE; `Item Type` Digital good → DIGITAL; `Categories` (else `Category`, else
 * `Reporting Category`) → source categories. Stock: each location's `Current Quantity LOCATION`,
 * summed over the locations (or the one `--location` names); a variation without a number in any
 * of them has no count (stock unknown when its item tracks stock). The export has no images.
 */
export class SquareProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<SquareColumn>;
  private readonly sheet: string;
  private readonly items = new Map<string, SheetRow[]>();
  /** The name of the last row's item and the row its run began on (an item's rows are contiguous). */
  private run: { name: string; firstRow: number; clash: number | undefined } | undefined;
  private readonly issues: RowIssue[] = [];
  private readonly categories = new Map<number, string[]>();
  /** The stock columns read: every location's, or the one --location names. */
  private readonly stockColumns: SheetColumn[];
  private readonly locations: string[];
  private readonly weight: { column: SheetColumn; grams: number } | undefined;

  constructor(columns: readonly SheetColumn[], sheet: string, options: SquareOptions = {}) {
    this.cols = new SourceColumns(columns, SQUARE_HEADERS);
    this.sheet = sheet;
    const stock = squareStock(columns, options.location);
    this.stockColumns = stock.columns;
    this.locations = stock.locations;
    this.weight = squareWeight(columns);
  }

  private issue(
    row: number,
    severity: 'error' | 'warning',
    code: string,
    message: string,
    column?: SheetColumn,
  ): void {
    pushIssue(this.issues, this.sheet, row, severity, code, message, column);
  }

  private t(row: SheetRow, name: SquareColumn): string {
    return this.cols.text(row, name);
  }

  addRow(row: SheetRow): void {
    const name = this.t(row, 'itemName');
    if (name === '') {
      if (Object.values(row.cells).some((v) => v !== '' && v !== null && v !== undefined))
        this.issue(
          row.rowNumber,
          'error',
          'missing_item_name',
          'a Square row needs its Item Name (the variations of an item share it)',
          this.cols.column('itemName'),
        );
      return;
    }
    if (this.run?.name !== name) {
      const earlier = this.items.get(name)?.[0]?.rowNumber;
      this.run = { name, firstRow: row.rowNumber, clash: earlier };
    }
    if (this.run.clash !== undefined) {
      // A name coming back after other items' rows: a second Square item of the same name.
      this.issue(
        row.rowNumber,
        'error',
        'square_duplicate_item_name',
        `two Square items are named "${name}" (rows ${this.run.clash} and ${this.run.firstRow}); rename one in Square and export again, or give the later item's rows another Item Name in this file`,
        this.cols.column('itemName'),
      );
      return;
    }
    const rows = this.items.get(name) ?? [];
    rows.push(row);
    this.items.set(name, rows);
  }

  finish(): ConvertedProducts {
    const out: SheetRow[] = [];
    for (const [name, rows] of this.items) this.convert(name, rows, out);
    out.sort((a, b) => a.rowNumber - b.rowNumber);
    const first = out[0];
    if (first !== undefined) {
      // Said first: it holds for the whole file.
      const stockNote =
        this.stockColumns.length > 1
          ? `; stock is the sum of ${this.stockColumns.length} locations (${this.locations.join(', ')}): --location NAME takes one location's`
          : '';
      this.issues.unshift({
        severity: 'warning',
        code: 'square_key_from_name',
        sheet: this.sheet,
        rowNumber: first.rowNumber,
        message: `${this.items.size} item${this.items.size === 1 ? '' : 's'} keyed by Item Name (reference_id square:ITEM NAME: Square's export has no item id), so renaming one in Square makes it a new product on the next import${stockNote}`,
      });
    }
    const letter = (name: SquareColumn) => this.cols.column(name);
    const output: [string, SheetColumn | undefined][] = [
      ['reference_id', letter('itemName')],
      ['name', letter('itemName')],
      ['description', letter('description')],
      ['status', letter('visibility')],
      ['type', letter('itemType')],
      ['sku', letter('sku')],
      ['price', letter('price')],
      ['original_price', letter('sale')],
      ['cost', letter('cost')],
      ['weight', this.weight?.column],
      ['inventory_enabled', this.stockColumns[0]],
      ['inventory_quantity', this.stockColumns[0]],
      ['variant_name', letter('variationName')],
      ['variant_sku', letter('sku')],
      ['variant_price', letter('price')],
      ['variant_original_price', letter('sale')],
      ['variant_cost', letter('cost')],
      ['variant_weight', this.weight?.column],
      ['variant_inventory_quantity', this.stockColumns[0]],
    ];
    return {
      columns: output.map(([field, c], i) => ({
        header: field,
        key: field,
        letter: c?.letter ?? '',
        index: c?.index ?? i,
      })),
      rows: out,
      issues: this.issues,
      skipped: [],
      columnUses: squareColumnUses(
        this.cols.all,
        this.cols.column('categories'),
        this.weight?.column,
        this.stockColumns,
      ),
      nearColumns: [],
      categories: this.categories,
    };
  }

  /** A row's stock: the sum of its locations' numbers ('' when none gives one), oversold as 0. */
  private quantity(r: SheetRow, item: string): string {
    const total = sumQuantity(r, this.stockColumns);
    if (typeof total === 'string') return total; // the decoder names the cell
    if (total === undefined) return '';
    if (total < 0) {
      this.issue(
        r.rowNumber,
        'warning',
        'negative_stock',
        `"${item}" has stock ${total} (oversold); imported as 0`,
        this.stockColumns[0],
      );
      return '0';
    }
    return String(total);
  }

  private grams(r: SheetRow): string {
    if (this.weight === undefined) return '';
    const t = cellText(r.cells[this.weight.column.key] as CellValue | undefined).trim();
    if (t === '') return '';
    const n = Number(t);
    return Number.isFinite(n) ? String(Math.round(n * this.weight.grams)) : t;
  }

  /** Price, original price and cost of a row into `cells` under `prefix` ('' or 'variant_'). */
  private money(r: SheetRow, cells: Record<string, CellValue>, prefix: string): void {
    const price = this.t(r, 'price');
    const sale = this.t(r, 'sale');
    if (sale !== '') {
      cells[`${prefix}price`] = sale;
      if (price !== '') cells[`${prefix}original_price`] = price;
    } else if (price !== '') cells[`${prefix}price`] = price;
    const cost = this.t(r, 'cost');
    if (cost !== '') cells[`${prefix}cost`] = cost;
    const g = this.grams(r);
    if (g !== '') cells[`${prefix}weight`] = g;
  }

  private convert(name: string, rows: SheetRow[], out: SheetRow[]): void {
    const p = rows[0] as SheetRow;
    const t = (r: SheetRow, n: SquareColumn) => this.cols.text(r, n);
    const key = `square:${name}`;
    const cells: Record<string, CellValue> = { reference_id: key, name };
    const description = t(p, 'description');
    if (description !== '') {
      const { markdown, lost } = descriptionToMarkdown(description);
      cells['description'] = markdown;
      if (lost.length > 0)
        this.issue(
          p.rowNumber,
          'warning',
          'description_content_lost',
          `the description of "${name}" lost what the API cannot show: ${lost.join(', ')}`,
          this.cols.column('description'),
        );
    }
    const visibility = t(p, 'visibility').toLowerCase();
    if (t(p, 'archived').toUpperCase() === 'Y') cells['status'] = 'HIDDEN';
    else if (visibility === 'visible') cells['status'] = 'VISIBLE';
    else if (visibility === 'hidden' || visibility === 'unavailable') cells['status'] = 'HIDDEN';
    const type = t(p, 'itemType').toLowerCase();
    if (type === 'digital good') cells['type'] = 'DIGITAL';
    else if (type === 'physical good') cells['type'] = 'PHYSICAL';
    const names = categoryList(t(p, 'categories'));
    if (names.length > 0) this.categories.set(p.rowNumber, names);
    const quantities = rows.map((r) => this.quantity(r, name));
    if (quantities.some((q) => q !== '')) cells['inventory_enabled'] = 'true';
    if (rows.length === 1 && SINGLE_NAMES.has(t(p, 'variationName').toLowerCase())) {
      if (t(p, 'sku') !== '') cells['sku'] = t(p, 'sku');
      this.money(p, cells, '');
      if (quantities[0] !== '') cells['inventory_quantity'] = quantities[0] as string;
      out.push({ sheet: this.sheet, rowNumber: p.rowNumber, cells });
      return;
    }
    // The product's own price: its lowest variation price (what "from" shows), required on create.
    let lowest: SheetRow | undefined;
    let lowestPrice = Number.POSITIVE_INFINITY;
    for (const r of rows) {
      const n = priceOrder(t(r, 'sale') || t(r, 'price'));
      if (Number.isFinite(n) && n < lowestPrice) {
        lowestPrice = n;
        lowest = r;
      }
    }
    if (lowest !== undefined) cells['price'] = t(lowest, 'sale') || t(lowest, 'price');
    const seen = new Map<string, number>();
    rows.forEach((r, i) => {
      const vc: Record<string, CellValue> = i === 0 ? cells : { reference_id: key };
      const values = (['option1', 'option2', 'option3'] as const).map((o) => t(r, o)).filter((v) => v !== '');
      const vname = values.join(' / ') || t(r, 'variationName') || t(r, 'sku') || `Variation ${r.rowNumber}`;
      const same = seen.get(vname);
      if (same !== undefined) {
        this.issue(
          r.rowNumber,
          'error',
          'repeated_variation',
          `"${name}" already has the variation "${vname}" (row ${same})`,
          this.cols.column('variationName'),
        );
        return;
      }
      seen.set(vname, r.rowNumber);
      vc['variant_name'] = vname;
      if (t(r, 'sku') !== '') vc['variant_sku'] = t(r, 'sku');
      this.money(r, vc, 'variant_');
      if (quantities[i] !== '') vc['variant_inventory_quantity'] = quantities[i] as string;
      out.push({ sheet: this.sheet, rowNumber: r.rowNumber, cells: vc });
    });
  }
}
