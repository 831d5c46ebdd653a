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
      issue.column = ref.letter;
      issue.header = ref.header;
    } else {
      issue.header = column;
    }
  }
  return issue;
}
