import type { ColumnRefs, SourceRow } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { LiveCatalog } from './live-catalog.js';

/** What every diff step needs: the live index, the options, and a way to point at a cell. */
export interface PlanContext {
  catalog: LiveCatalog;
  decimals: number;
  replace: { variants: boolean; options: boolean };
  imageMemory: ReadonlyMap<string, string>;
  columnRefs: ColumnRefs;
  /**
   * Epoch ms of the sheet's `mbulk_exported_at`: the stock of an item that changed after it is left
   * alone (counted in `spared`). Undefined: stock is written as the sheet says.
   */
  stockSince?: number | undefined;
  /** Items whose stock the sheet would have changed but that changed after the export. */
  spared: number;
}

/**
 * Whether the stock of a live item must be spared: the sheet was exported before the item last
 * changed (`inventory.updated_at`, else the product's `updated_at`), and it would change it.
 */
export function spareStock(
  ctx: PlanContext,
  itemUpdatedAt: string | null | undefined,
  productUpdatedAt: string,
  desired: number,
  live: number | null,
): boolean {
  if (ctx.stockSince === undefined || desired === live) return false;
  const changed = Date.parse(itemUpdatedAt ?? productUpdatedAt);
  if (!(changed > ctx.stockSince)) return false;
  ctx.spared++;
  return true;
}

/** An error (or warning) found while planning, pointing at the cell when the column is known. */
export function planIssue(
  ctx: PlanContext,
  row: SourceRow,
  column: string | undefined,
  code: string,
  message: string,
  severity: 'error' | 'warning' = 'error',
): RowIssue {
  const issue: RowIssue = { severity, code, message, sheet: row.sheet, rowNumber: row.rowNumber };
  if (column !== undefined) {
    const ref = ctx.columnRefs[column];
    if (ref !== undefined) {
      // A column the sheet does not have has no letter to show.
      if (ref.letter !== '') issue.column = ref.letter;
      issue.header = ref.header;
      if (ref.hint !== undefined) issue.message = `${message} (${ref.hint})`;
    } else {
      issue.header = column;
    }
  }
  return issue;
}
