import type { SheetColumn } from '../sheets/sheet-row.js';
import type { RowIssue } from './row-issue.js';

/** What a warning needs of a column. */
type TrimmedColumn = Pick<SheetColumn, 'key' | 'letter' | 'header'>;

interface Trimmed {
  column: TrimmedColumn;
  sheet: string;
  count: number;
  rows: number[];
}

/** Rows named in a warning; the count covers the rest. */
const ROWS_SHOWN = 5;

/**
 * Counts, per column, the key cells (SKU, item id, reference id, phone, e-mail, id) whose text had
 * whitespace or a BOM at an edge: `String#trim` removes spaces, tabs, CR/LF, no-break spaces and
 * U+FEFF. Trimming them is right (a SKU never starts with a tab: it is a copy-paste or export
 * artefact), but not silently: `warnings()` gives one warning per column with the count and the
 * first rows. Cheap on the hot path: one length comparison per cell, work only when a cell changed.
 */
export class TrimmedCells {
  private readonly byColumn = new Map<string, Trimmed>();

  /** The text trimmed; counted against `column` when that changed it (and it is not blank). */
  trim(text: string, column: TrimmedColumn, sheet: string, rowNumber: number): string {
    const trimmed = text.trim();
    if (trimmed.length !== text.length && trimmed.length > 0) this.note(column, sheet, rowNumber);
    return trimmed;
  }

  /** Counts one trimmed cell of `column` (for callers that trim themselves). */
  note(column: TrimmedColumn, sheet: string, rowNumber: number): void {
    const key = `${sheet}\u0000${column.key}`;
    let entry = this.byColumn.get(key);
    if (entry === undefined) {
      entry = { column, sheet, count: 0, rows: [] };
      this.byColumn.set(key, entry);
    }
    entry.count++;
    if (entry.rows.length < ROWS_SHOWN) entry.rows.push(rowNumber);
  }

  /** One warning per column that had trimmed cells, located on its first such row. */
  warnings(): RowIssue[] {
    const out: RowIssue[] = [];
    for (const { column, sheet, count, rows } of this.byColumn.values()) {
      const where = `${count === 1 ? 'row' : 'rows'} ${rows.join(', ')}${count > rows.length ? ', …' : ''}`;
      out.push({
        severity: 'warning',
        code: 'trimmed_cells',
        message: `${column.header}: ${count} ${count === 1 ? 'cell' : 'cells'} had leading or trailing spaces/tabs/BOM; they were trimmed (${where})`,
        sheet,
        rowNumber: rows[0] as number,
        column: column.letter,
        header: column.header,
      });
    }
    return out;
  }
}
