import type { RowIssue } from '../mapping/row-issue.js';
import type { ReviewInvalidRow } from './review-page.js';

/** `products.csv row 3, column F (price): …` */
export function reviewIssueText(i: RowIssue): string {
  const where = [`${i.sheet} row ${i.rowNumber}`];
  if (i.column !== undefined) where.push(`column ${i.column}${i.header ? ` (${i.header})` : ''}`);
  return `${where.join(', ')}: ${i.message}`;
}

/** A row error as a line of the page's invalid rows table. */
export function invalidRow(i: RowIssue): ReviewInvalidRow {
  const row: ReviewInvalidRow = { file: i.sheet, row: i.rowNumber, code: i.code, message: i.message };
  if (i.column !== undefined) row.column = i.column;
  if (i.header !== undefined) row.header = i.header;
  return row;
}

/** The error rows of a list of issues. */
export function invalidRows(issues: readonly RowIssue[]): ReviewInvalidRow[] {
  return issues.filter((i) => i.severity === 'error').map(invalidRow);
}
