import type { SheetRow } from '../sheets/sheet-row.js';
import type { RowIssue } from './row-issue.js';

/**
 * The error of a row the CSV reader marked `cutShort` (the file ends mid-line, on a row with fewer
 * fields than the header): reported as a truncated file, never read as a partial row (a cut SKU
 * would be an unknown key, a cut price a wrong one).
 */
export function cutShortIssue(row: SheetRow): RowIssue {
  return {
    severity: 'error',
    code: 'row_cut_short',
    message: `row ${row.rowNumber} of ${row.sheet} is cut short: truncated file? It has fewer cells than the header and the file ends in the middle of it; nothing on this row is used. Check the end of the file`,
    sheet: row.sheet,
    rowNumber: row.rowNumber,
  };
}
