/**
 * A problem with one cell or row of the user's sheet. Bad data is not a transport failure: this
 * family is separate from the API errors, and every problem is collected, not only the first.
 */
export interface RowIssue {
  severity: 'error' | 'warning';
  /** Stable machine-readable code, e.g. `money_too_many_decimals`, `duplicate_sku`. */
  code: string;
  /** What is wrong and what to write instead. */
  message: string;
  sheet: string;
  rowNumber: number;
  /** Column letter (A, B, …) when the problem is in one cell. */
  column?: string;
  /** Header of that column as written in the sheet. */
  header?: string;
  /** The value as read, when it helps the user find it. */
  value?: string;
}

/** "products.csv row 12, column F (price): …" */
export function formatRowIssue(issue: RowIssue, file?: string): string {
  const where = [file ?? issue.sheet, `row ${issue.rowNumber}`];
  if (issue.column !== undefined)
    where.push(`column ${issue.column}${issue.header ? ` (${issue.header})` : ''}`);
  return `${where.join(', ')}: ${issue.message}`;
}
