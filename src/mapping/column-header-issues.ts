import type { SheetColumn } from '../sheets/sheet-row.js';
import type { RowIssue } from './row-issue.js';

/**
 * Header problems of a sheet: unknown columns (warnings; `suggest` names the column one likely
 * means: "did you mean price?") and two columns meaning one field (errors).
 */
export function columnHeaderIssues(
  sheet: string,
  rowNumber: number,
  unknown: readonly SheetColumn[],
  duplicates: readonly { column: SheetColumn; field: string; first: SheetColumn }[],
  suggest: (header: string) => string | undefined = () => undefined,
): RowIssue[] {
  const issues: RowIssue[] = [];
  for (const col of unknown) {
    const near = suggest(col.header);
    issues.push({
      severity: 'warning',
      code: near === undefined ? 'unknown_column' : 'near_column',
      message:
        near === undefined
          ? `column "${col.header}" is not a known column and is ignored; rename it to a field name such as price or variant_sku if it should be imported`
          : `column "${col.header}" is not a known column and is ignored; did you mean ${near}? Rename it so if it should be imported`,
      sheet,
      rowNumber,
      column: col.letter,
      header: col.header,
    });
  }
  for (const d of duplicates) {
    issues.push({
      severity: 'error',
      code: 'duplicate_column',
      message: `column "${d.column.header}" means ${d.field}, like column ${d.first.letter} ("${d.first.header}"); keep only one of them, or join their values with --map "${d.first.header}+${d.column.header}=${d.field}"`,
      sheet,
      rowNumber,
      column: d.column.letter,
      header: d.column.header,
    });
  }
  return issues;
}
