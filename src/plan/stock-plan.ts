import type { StockColumns } from '../mapping/stock-sheet.js';
import { stockInteger, stockKey } from '../mapping/stock-sheet.js';
import { cutShortIssue } from '../mapping/cut-short-row.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { TrimmedCells } from '../mapping/trimmed-cells.js';
import type { LiveInventoryIndex } from './live-inventory-index.js';
import type { TextArena } from './text-arena.js';
import { excelScientificMessage, isExcelScientific } from '../sheets/excel-scientific.js';

type StockColumn = StockColumns[keyof StockColumns];

export interface StockPlanOptions {
  /**
   * Send every change as a delta relative to the quantity seen when planning, so sales recorded
   * between planning and applying are kept (default false: absolute quantities, which are idempotent).
   */
  preserveSales?: boolean;
}

/** One inventory item whose quantity will change. Plain JSON: saved in plan.json. */
export interface StockChange {
  itemId: string;
  sku: string | null;
  name: string;
  productId: string;
  variantId: string | null;
  sheet: string;
  rowNumber: number;
  /** Live quantity seen when planning. */
  before: number;
  /** Quantity expected after applying (when nothing else changed it meanwhile). */
  after: number;
  /** What is sent: `quantity` sets the count (idempotent); `delta` adds `value` (at most once). */
  mode: 'quantity' | 'delta';
  value: number;
  expectedUpdatedAt: string;
}

/** A row that is reported but not written (inventory tracking is off). */
export interface StockSkip {
  sheet: string;
  rowNumber: number;
  reason: string;
}

export interface StockPlan {
  kind: 'stock';
  options: { preserveSales: boolean };
  rows: number;
  changes: StockChange[];
  unchanged: number;
  skipped: StockSkip[];
  /** Row errors (severity error) and warnings, each with its cell. */
  issues: RowIssue[];
}

/**
 * Plans a stock sheet row by row against the live inventory index: only items whose quantity would
 * change are planned. Streaming: feed rows with `add`, then `finish`. Pure (no I/O).
 */
export class StockPlanner {
  private readonly changes: StockChange[] = [];
  private readonly skipped: StockSkip[] = [];
  private readonly issues: RowIssue[] = [];
  private rows = 0;
  private unchanged = 0;
  private readonly preserveSales: boolean;
  /** Rows that named an item_id or sku: item → first row (cheaper than a Set of every SKU). */
  private readonly seenUntracked = new Map<string, number>();
  /** Key cells whose edges were trimmed, per column: reported once per column, never silently. */
  private readonly trimmed = new TrimmedCells();

  constructor(
    private readonly index: LiveInventoryIndex,
    private readonly columns: StockColumns,
    options: StockPlanOptions = {},
  ) {
    this.preserveSales = options.preserveSales ?? false;
  }

  /**
   * Plans one row. Hot path (a million rows): no closure or object is allocated for a row that is
   * valid and unchanged; the planner works with the item's number in the index, and marks it as
   * seen there (no per-row Set). The item is made as an object only when the row changes it or is
   * reported.
   */
  add(row: SheetRow): void {
    this.rows++;
    if (row.cutShort === true) {
      this.issues.push(cutShortIssue(row));
      return;
    }
    const { columns } = this;
    const cells = row.cells;
    const itemId = columns.item_id ? this.key(row, columns.item_id) : '';
    let sku = columns.sku ? this.key(row, columns.sku) : '';
    let skuCol = columns.sku;
    let quantityCol = columns.quantity;
    // A product export's variant row: the variant's SKU and stock (its product's cells are the parent's).
    if (columns.variant_sku !== undefined) {
      const variantSku = this.key(row, columns.variant_sku);
      if (variantSku !== '') {
        sku = variantSku;
        skuCol = columns.variant_sku;
        quantityCol = columns.variant_quantity ?? columns.quantity;
      }
    } else if (
      columns.variant_quantity !== undefined &&
      stockInteger(cells[columns.variant_quantity.key]) !== undefined
    ) {
      quantityCol = columns.variant_quantity;
    }

    // Find the item: its number in the index.
    const index = this.index;
    let n: number;
    let keyCol: StockColumn;
    if (itemId !== '') {
      keyCol = columns.item_id;
      n = index.findId(itemId);
      if (n < 0) {
        return this.issue(row, 'unknown_item_id', `no inventory item has id "${itemId}"`, keyCol, itemId);
      }
      if (sku !== '' && !index.hasSku(n, sku)) {
        return this.issue(
          row,
          'sku_item_mismatch',
          `item ${itemId} has SKU "${index.skuOf(n) ?? ''}", not "${sku}"; fix one of the two cells`,
          skuCol,
          sku,
        );
      }
    } else if (sku !== '') {
      keyCol = skuCol;
      n = index.findSku(sku);
      if (n < 0) return this.unknownSku(row, sku, keyCol);
      if (index.sharesSku(n)) {
        const found = index.sameSku(n);
        const names = found.map((f) => `"${f.name}" (item ${f.itemId})`).join(', ');
        return this.issue(
          row,
          'ambiguous_sku',
          `SKU "${sku}" is shared by ${found.length} live items: ${names}; use an item_id column for these rows`,
          keyCol,
          sku,
        );
      }
    } else {
      return this.issue(
        row,
        'missing_key',
        'the row has neither a SKU nor an item_id',
        columns.item_id ?? skuCol,
      );
    }

    const seenAt = index.seenAt(n);
    if (seenAt !== 0) {
      return this.issue(
        row,
        itemId !== '' ? 'duplicate_item' : 'duplicate_sku',
        `this item is already listed on row ${seenAt}; keep one row per item`,
        keyCol,
        itemId || sku,
      );
    }
    index.markSeen(n, row.rowNumber);

    // Quantity or delta: exactly one.
    const qtyCell = quantityCol ? cells[quantityCol.key] : undefined;
    const deltaCell = columns.delta_quantity ? cells[columns.delta_quantity.key] : undefined;
    const quantity = stockInteger(qtyCell);
    const delta = stockInteger(deltaCell);
    if (quantity !== undefined && delta !== undefined) {
      return this.issue(
        row,
        'both_quantity_and_delta',
        'fill either quantity (the new count) or delta_quantity (an adjustment), not both',
        columns.delta_quantity,
      );
    }
    if (quantity === undefined && delta === undefined) {
      return this.issue(
        row,
        'missing_quantity',
        'the quantity is blank; write the new stock count (a whole number >= 0)',
        quantityCol ?? columns.delta_quantity,
      );
    }
    if (quantity !== undefined && (Number.isNaN(quantity) || quantity < 0)) {
      return this.issue(
        row,
        'invalid_quantity',
        `quantity must be a whole number >= 0, not "${String(qtyCell)}"`,
        quantityCol,
        String(qtyCell),
      );
    }
    if (delta !== undefined && Number.isNaN(delta)) {
      return this.issue(
        row,
        'invalid_delta',
        `delta_quantity must be a whole number (e.g. 5 or -3), not "${String(deltaCell)}"`,
        columns.delta_quantity,
        String(deltaCell),
      );
    }
    if (!index.enabled(n)) {
      this.skipped.push({
        sheet: row.sheet,
        rowNumber: row.rowNumber,
        reason: `inventory tracking is off for "${index.item(n).name}"; turn on inventory_enabled to set its stock`,
      });
      return;
    }

    const before = index.quantity(n);
    const after = quantity !== undefined ? quantity : before + (delta as number);
    if (after < 0) {
      return this.issue(
        row,
        'negative_result',
        `the adjustment ${delta} would take the stock of "${index.item(n).name}" from ${before} below 0`,
        columns.delta_quantity,
        String(delta),
      );
    }
    if (after === before) {
      this.unchanged++;
      return;
    }
    const item = index.item(n);
    const asDelta = delta !== undefined || this.preserveSales;
    this.changes.push({
      itemId: item.itemId,
      sku: item.sku,
      name: item.name,
      productId: item.productId,
      variantId: item.variantId,
      sheet: row.sheet,
      rowNumber: row.rowNumber,
      before,
      after,
      mode: asDelta ? 'delta' : 'quantity',
      value: asDelta ? after - before : after,
      expectedUpdatedAt: item.updatedAt,
    });
  }

  /**
   * The common case of `add`, decided without the row: a row of a sheet whose only columns are
   * `sku` and `quantity` (see `isPlainStockSheet`), its SKU untrimmed at `start` in `text` (with
   * its `textHash`), its quantity a whole number >= 0, that names one live item not named before,
   * which tracks inventory and holds that quantity already. Counts it as unchanged and returns
   * true; false when the row is anything else (plan it with `add`: nothing was counted).
   */
  addUnchanged(
    rowNumber: number,
    text: TextArena,
    start: number,
    length: number,
    hash: number,
    quantity: number,
  ): boolean {
    const index = this.index;
    const n = index.findSkuIn(text, start, length, hash);
    if (n < 0 || index.sharesSku(n) || index.seenAt(n) !== 0 || !index.enabled(n)) return false;
    if (index.quantity(n) !== quantity) return false;
    index.markSeen(n, rowNumber);
    this.rows++;
    this.unchanged++;
    return true;
  }

  /** A SKU with no inventory item: tracking off (reported once, skipped) or unknown. */
  private unknownSku(row: SheetRow, sku: string, keyCol: StockColumn): void {
    const untracked = this.index.untracked.get(sku);
    if (untracked === undefined) {
      const parent = this.index.parents.get(sku);
      if (parent !== undefined) {
        return this.issue(
          row,
          'product_has_variants',
          `SKU "${sku}" is the product "${parent}", whose stock is kept per variant: write one row per variant SKU`,
          keyCol,
          sku,
        );
      }
      if (isExcelScientific(sku))
        return this.issue(row, 'excel_scientific', excelScientificMessage(sku), keyCol, sku);
      return this.issue(
        row,
        'unknown_sku',
        `no product or variant in the store has SKU "${sku}"`,
        keyCol,
        sku,
      );
    }
    const first = this.seenUntracked.get(sku);
    if (first !== undefined) {
      return this.issue(
        row,
        'duplicate_sku',
        `SKU "${sku}" is already listed on row ${first}; keep one row`,
        keyCol,
        sku,
      );
    }
    this.seenUntracked.set(sku, row.rowNumber);
    this.skipped.push({
      sheet: row.sheet,
      rowNumber: row.rowNumber,
      reason: `inventory tracking is off for "${untracked}" (SKU ${sku}); turn on inventory_enabled to set its stock`,
    });
  }

  /** A key cell's text, trimmed (see stockKey); a trimmed string is counted for its column's warning. */
  private key(row: SheetRow, col: SheetColumn): string {
    const value = row.cells[col.key];
    if (typeof value !== 'string') return stockKey(value);
    const trimmed = value.trim();
    if (trimmed.length !== value.length && trimmed.length > 0)
      this.trimmed.note(col, row.sheet, row.rowNumber);
    return trimmed;
  }

  private issue(row: SheetRow, code: string, message: string, col: StockColumn, value?: string): void {
    const i: RowIssue = { severity: 'error', code, message, sheet: row.sheet, rowNumber: row.rowNumber };
    if (col) {
      i.column = col.letter;
      i.header = col.header;
    }
    if (value !== undefined) i.value = value;
    this.issues.push(i);
  }

  finish(): StockPlan {
    for (const warning of this.trimmed.warnings()) this.issues.push(warning);
    return {
      kind: 'stock',
      options: { preserveSales: this.preserveSales },
      rows: this.rows,
      changes: this.changes,
      unchanged: this.unchanged,
      skipped: this.skipped,
      issues: this.issues,
    };
  }
}

/** Whether a stock sheet has `sku` and `quantity` and no other column the plan reads (the common sheet). */
export function isPlainStockSheet(columns: StockColumns): boolean {
  return (
    columns.sku !== undefined &&
    columns.quantity !== undefined &&
    columns.item_id === undefined &&
    columns.variant_sku === undefined &&
    columns.variant_quantity === undefined &&
    columns.delta_quantity === undefined
  );
}

/** `--max-changes N` or `N%` (of the live items): refuse a sheet that would change more. */
export function parseMaxChanges(text: string): { count: number } | { percent: number } | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2] === '%') return n > 0 && n <= 100 ? { percent: n } : undefined;
  return Number.isInteger(n) ? { count: n } : undefined;
}

/** The refusal message when a plan changes more items than allowed, else undefined. */
export function checkMaxChanges(
  changes: number,
  liveItems: number,
  limit: { count: number } | { percent: number },
): string | undefined {
  // A percentage allows at least one change (1% of 69 items is 1, not 0).
  const max = 'count' in limit ? limit.count : Math.max(1, Math.ceil((limit.percent / 100) * liveItems));
  if (changes <= max) return undefined;
  const what = 'count' in limit ? `${limit.count}` : `${limit.percent}% of ${liveItems} items = ${max}`;
  return `the sheet would change ${changes} items, more than --max-changes ${what}; check the file, or raise the limit`;
}
