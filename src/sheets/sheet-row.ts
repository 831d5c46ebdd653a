/** A cell value as read from a sheet: CSV gives strings; XLSX may give numbers, booleans and dates. */
export type CellValue = string | number | boolean | Date | null;

/** One column of a sheet's header row. */
export interface SheetColumn {
  /** The header as written, trimmed. */
  header: string;
  /** The lookup key: the trimmed header in lower case (aliases are resolved by the mapping layer). */
  key: string;
  /** Spreadsheet column letter: A, B, …, AA. */
  letter: string;
  /** 0-based column index. */
  index: number;
}

/** One data row. `rowNumber` is the 1-based line/row number as a spreadsheet program shows it. */
export interface SheetRow {
  sheet: string;
  rowNumber: number;
  /** Cells keyed by column key (see SheetColumn.key). Blank cells are '' (CSV) or null (XLSX). */
  cells: Record<string, CellValue>;
  /**
   * CSV: set on the last row when the file ends without a line break and that row has fewer fields
   * than the header: the file was probably cut in the middle of this line (a truncated transfer).
   * Importers report the row as cut short instead of reading its partial cells.
   */
  cutShort?: true;
}

/** Something the reader noticed that is not fatal (encoding fallback, unknown column…). */
export interface SheetWarning {
  code: string;
  message: string;
  sheet?: string;
  rowNumber?: number;
}

/** Spreadsheet column letter of a 0-based index (0 → A, 26 → AA). */
export function columnLetter(index: number): string {
  let n = index + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}
