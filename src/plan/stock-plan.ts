import type { StockColumns } from '../mapping/stock-sheet.js';
import { stockInteger, stockKey } from '../mapping/stock-sheet.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { SheetRow } from '../sheets/sheet-row.js';
import type { LiveInventoryIndex, LiveInventoryItem } from './live-inventory-index.js';

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

  constructor(
    private readonly index: LiveInventoryIndex,
    private readonly columns: StockColumns,
    options: StockPlanOptions = {},
  ) {
    this.preserveSales = options.preserveSales ?? false;
  }

  add(row: SheetRow): void {
    this.rows++;
    const { columns } = this;
    const issue = (
      code: string,
      message: string,
      col: StockColumns[keyof StockColumns],
      value?: string,
    ): void => {
      const i: RowIssue = { severity: 'error', code, message, sheet: row.sheet, rowNumber: row.rowNumber };
      if (col) {
        i.column = col.letter;
        i.header = col.header;
      }
      if (value !== undefined) i.value = value;
      this.issues.push(i);
    };

    const itemId = columns.item_id ? stockKey(row.cells[columns.item_id.key]) : '';
    const sku = columns.sku ? stockKey(row.cells[columns.sku.key]) : '';
    const qtyCell = columns.quantity ? row.cells[columns.quantity.key] : undefined;
    const deltaCell = columns.delta_quantity ? row.cells[columns.delta_quantity.key] : undefined;
    const quantity = stockInteger(qtyCell);
    const delta = stockInteger(deltaCell);

    // Find the item.
    let item: LiveInventoryItem | undefined;
    let keyCol = columns.item_id ?? columns.sku;
    if (itemId !== '') {
      keyCol = columns.item_id;
      item = this.index.byId.get(itemId);
      if (!item) return issue('unknown_item_id', `no inventory item has id "${itemId}"`, keyCol, itemId);
      if (sku !== '' && item.sku !== sku) {
        return issue(
          'sku_item_mismatch',
          `item ${itemId} has SKU "${item.sku ?? ''}", not "${sku}"; fix one of the two cells`,
          columns.sku,
          sku,
        );
      }
    } else if (sku !== '') {
      keyCol = columns.sku;
      const found = this.index.bySku.get(sku);
      if (found === undefined) {
        const untracked = this.index.untracked.get(sku);
        if (untracked !== undefined) {
          const first = this.seenUntracked.get(sku);
          if (first !== undefined) {
            return issue(
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
          return;
        }
        return issue('unknown_sku', `no product or variant in the store has SKU "${sku}"`, keyCol, sku);
      }
      if (Array.isArray(found)) {
        const names = found.map((f) => `"${f.name}" (item ${f.itemId})`).join(', ');
        return issue(
          'ambiguous_sku',
          `SKU "${sku}" is shared by ${found.length} live items: ${names}; use an item_id column for these rows`,
          keyCol,
          sku,
        );
      }
      item = found;
    } else {
      return issue('missing_key', 'the row has neither a SKU nor an item_id', keyCol);
    }

    if (item.seenAtRow !== undefined) {
      return issue(
        itemId !== '' ? 'duplicate_item' : 'duplicate_sku',
        `this item is already listed on row ${item.seenAtRow}; keep one row per item`,
        keyCol,
        itemId || sku,
      );
    }
    item.seenAtRow = row.rowNumber;

    // Quantity or delta: exactly one.
    if (quantity !== undefined && delta !== undefined) {
      return issue(
        'both_quantity_and_delta',
        'fill either quantity (the new count) or delta_quantity (an adjustment), not both',
        columns.delta_quantity,
      );
    }
    if (quantity === undefined && delta === undefined) {
      return issue(
        'missing_quantity',
        'the quantity is blank; write the new stock count (a whole number >= 0)',
        columns.quantity ?? columns.delta_quantity,
      );
    }
    if (quantity !== undefined && (Number.isNaN(quantity) || quantity < 0)) {
      return issue(
        'invalid_quantity',
        `quantity must be a whole number >= 0, not "${String(qtyCell)}"`,
        columns.quantity,
        String(qtyCell),
      );
    }
    if (delta !== undefined && Number.isNaN(delta)) {
      return issue(
        'invalid_delta',
        `delta_quantity must be a whole number (e.g. 5 or -3), not "${String(deltaCell)}"`,
        columns.delta_quantity,
        String(deltaCell),
      );
    }
    if (!item.enabled) {
      this.skipped.push({
        sheet: row.sheet,
        rowNumber: row.rowNumber,
        reason: `inventory tracking is off for "${item.name}"; turn on inventory_enabled to set its stock`,
      });
      return;
    }

    const before = item.quantity;
    const after = quantity !== undefined ? quantity : before + (delta as number);
    if (after < 0) {
      return issue(
        'negative_result',
        `the adjustment ${delta} would take the stock of "${item.name}" from ${before} below 0`,
        columns.delta_quantity,
        String(delta),
      );
    }
    if (after === before) {
      this.unchanged++;
      return;
    }
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

  finish(): StockPlan {
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

/** `--max-changes N` or `N%` (of the live items): refuse a sheet that would change more. */
export function parseMaxChanges(text: string): { count: number } | { percent: number } | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === '%' ? { percent: n } : Number.isInteger(n) ? { count: n } : undefined;
}

/** The refusal message when a plan changes more items than allowed, else undefined. */
export function checkMaxChanges(
  changes: number,
  liveItems: number,
  limit: { count: number } | { percent: number },
): string | undefined {
  const max = 'count' in limit ? limit.count : Math.floor((limit.percent / 100) * liveItems);
  if (changes <= max) return undefined;
  const what = 'count' in limit ? `${limit.count}` : `${limit.percent}% of ${liveItems} items = ${max}`;
  return `the sheet would change ${changes} items, more than --max-changes ${what}; check the file, or raise the limit`;
}
