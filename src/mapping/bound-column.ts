import { cellText } from '../sheets/cell-result.js';
import type { CellValue, SheetRow } from '../sheets/sheet-row.js';
import { visibleCut } from '../sheets/visible-text.js';
import type { ColumnSpec } from './product-cell-decoders.js';
import type { RowIssue } from './row-issue.js';

/** A products-sheet column of the user's header, bound to what it means. */
export interface BoundColumn {
  spec: ColumnSpec;
  key: string;
  letter: string;
  header: string;
}

/** The identifier columns of a sheet (products or options). */
export interface KeyColumns {
  id?: BoundColumn;
  ref?: BoundColumn;
  sku?: BoundColumn;
}

/** Longest cell value quoted in an issue. */
const MAX_VALUE_TEXT = 200;

function valueText(raw: CellValue | undefined): string {
  const t = cellText(raw);
  return visibleCut(t, MAX_VALUE_TEXT);
}

/** An issue at one row, and at the cell of `col` when given (with the cell's value quoted). */
export function cellIssue(
  row: SheetRow,
  col: { letter: string; header: string; key: string } | undefined,
  code: string,
  message: string,
  severity: 'error' | 'warning' = 'error',
): RowIssue {
  const issue: RowIssue = { severity, code, message, sheet: row.sheet, rowNumber: row.rowNumber };
  if (col !== undefined) {
    issue.column = col.letter;
    issue.header = col.header;
    const raw = row.cells[col.key];
    if (raw !== undefined && raw !== null && raw !== '') issue.value = valueText(raw);
  }
  return issue;
}
