import { SheetError } from './sheet-error.js';
import type { SheetLimits } from './sheet-limits.js';
import { columnLetter } from './sheet-row.js';
import type { CellValue, SheetColumn, SheetRow, SheetWarning } from './sheet-row.js';

/** How many warnings of one code are kept before they are summarised. */
const WARNINGS_PER_CODE = 20;

export interface SheetTableContext {
  file: string;
  sheet: string;
  limits: SheetLimits;
  warnings: SheetWarning[];
  /** The value of a blank or missing cell: '' for CSV, null for XLSX. */
  blank: '' | null;
}

/** The lookup key of a header: trimmed, runs of whitespace (also NBSP) as one space, lower case. */
export function headerKey(header: string): string {
  return header.trim().replace(/\s+/g, ' ').toLowerCase();
}

function isBlankValue(value: CellValue | undefined): boolean {
  if (value === null || value === undefined || value === '') return true;
  return typeof value === 'string' && value.trim() === '';
}

function headerText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  return String(value).trim();
}

/** How far down `headerRow: 'auto'` looks for the header before taking the next non-blank row. */
const AUTO_HEADER_ROWS = 30;

/**
 * A header row names two or more columns, fills more than half of its width (merged headings above
 * a header fill one cell per group), and holds no number (a data row usually does).
 */
function looksLikeHeader(values: ArrayLike<CellValue | undefined>, first: number): boolean {
  let filled = 0;
  let last = first;
  for (let i = first; i < values.length; i++) {
    const v = values[i];
    if (isBlankValue(v)) continue;
    if (typeof v === 'number' || v instanceof Date) return false;
    if (typeof v === 'string' && /^[-+]?[\d.,]+$/.test(v.trim())) return false;
    filled++;
    last = i;
  }
  return filled >= 2 && filled * 2 > Math.max(last + 1, values.length);
}

type RowBuilder = (values: ArrayLike<CellValue | undefined>, blank: '' | null) => Record<string, CellValue>;

/**
 * Compiles `(values, blank) => ({ "sku": values[0] ?? blank, … })` for one header. An object
 * literal with every key gets its final shape at once, where adding the keys one by one to `{}`
 * grows and copies the property store for every row (the reader's main cost after parsing on
 * wide sheets). Keys are embedded as JSON string literals, so any header text is safe;
 * `__proto__` is written as a computed key, which defines an own property.
 */
function compileRowBuilder(keys: readonly string[]): RowBuilder {
  const props: string[] = [];
  keys.forEach((key, i) => {
    if (key === '') return;
    const name = key === '__proto__' ? `[${JSON.stringify(key)}]` : JSON.stringify(key);
    props.push(`${name}: v[${i}] ?? b`);
  });
  return new Function('v', 'b', `return { ${props.join(', ')} };`) as RowBuilder;
}

/**
 * Turns raw records (one array of cell values per physical row) into SheetRows: the first non-blank
 * row is the header, blank rows are skipped, missing cells become the blank value, cells beyond the
 * header and limits are checked. Shared by the CSV and XLSX readers so both behave the same.
 */
export class SheetTable {
  columns: SheetColumn[] | null = null;
  dataRows = 0;
  /**
   * Which row is the header: a row number (rows above it are not read), `'auto'` (the first row
   * that looks like a header: two or more cells filling most of its width, none a number, so a
   * title row or merged headings above the header are passed over), or the default: the first
   * non-blank row.
   */
  headerRow: number | 'auto' | undefined;
  /** The row number of the header, once read. */
  headerRowNumber = 0;
  /** Fields of the last data row accepted (before padding to the header's width). */
  lastFields = 0;
  /** Fields of the header row, up to its last non-blank header (0 before the header). */
  get width(): number {
    return this.keys.length;
  }
  private keys: string[] = [];
  private hasUnnamed = false;
  /** Builds the cells object of a row: compiled per header (see compileRowBuilder). */
  private build: RowBuilder = () => ({});
  private readonly ctx: SheetTableContext;
  private readonly warnCounts = new Map<string, number>();
  private readonly unnamedWarned = new Set<number>();

  constructor(ctx: SheetTableContext) {
    this.ctx = ctx;
  }

  /** Feeds one record; returns its SheetRow, or null for the header and for blank rows. */
  accept(values: ArrayLike<CellValue | undefined>, rowNumber: number): SheetRow | null {
    const n = values.length;
    if (n > this.ctx.limits.maxColumns) this.tooWide(rowNumber, n);
    let first = 0;
    for (; first < n; first++) {
      const v = values[first];
      if (v !== '' && v !== null && v !== undefined && (typeof v !== 'string' || v.trim() !== '')) break;
    }
    if (first === n) {
      if (this.columns === null && this.headerRow === rowNumber) this.blankHeaderRow(rowNumber);
      return null; // blank row
    }
    if (this.columns === null) {
      if (typeof this.headerRow === 'number' && rowNumber < this.headerRow) return null;
      if (this.headerRow === 'auto' && rowNumber <= AUTO_HEADER_ROWS && !looksLikeHeader(values, first))
        return null;
      this.setHeader(values, rowNumber);
      this.headerRowNumber = rowNumber;
      return null;
    }
    this.dataRows++;
    this.lastFields = n;
    if (this.dataRows > this.ctx.limits.maxRows) {
      throw new SheetError(
        'too_many_rows',
        `${this.ctx.file}: more than ${this.ctx.limits.maxRows.toLocaleString('en-US')} data rows (row ${rowNumber}). Split the file into smaller ones, or raise the row limit.`,
        { file: this.ctx.file, sheet: this.ctx.sheet, rowNumber },
      );
    }
    const width = this.keys.length;
    const maxChars = this.ctx.limits.maxCellChars;
    const end = n < width ? n : width;
    for (let i = first; i < end; i++) {
      const v = values[i];
      if (typeof v === 'string' && v.length > maxChars) this.tooLong(i, rowNumber, v.length);
    }
    if (this.hasUnnamed) {
      for (let i = 0; i < end; i++) {
        if (this.keys[i] === '' && !isBlankValue(values[i])) this.warnUnnamed(i, rowNumber);
      }
    }
    if (n > width) {
      for (let i = width; i < n; i++) {
        if (!isBlankValue(values[i])) {
          this.warn(
            'extra_cells',
            `Row ${rowNumber} has values beyond the last header column (${columnLetter(width - 1)}), from column ${columnLetter(i)}: they are ignored. Add a header for them or remove them.`,
            rowNumber,
          );
          break;
        }
      }
    }
    return { sheet: this.ctx.sheet, rowNumber, cells: this.build(values, this.ctx.blank) };
  }

  /** A row wider than the column limit: refused before anything else is done with it. */
  tooWide(rowNumber: number, columns: number): never {
    const limit = this.ctx.limits.maxColumns;
    throw new SheetError(
      'too_many_columns',
      `${this.ctx.file}: row ${rowNumber} has ${columns > limit ? `more than ${limit.toLocaleString('en-US')}` : columns.toLocaleString('en-US')} cells; at most ${limit.toLocaleString('en-US')} columns are read (Excel's limit). Remove the extra columns.`,
      { file: this.ctx.file, sheet: this.ctx.sheet, rowNumber },
    );
  }

  /** Adds the summaries of capped warnings. Call once at the end. */
  finish(): void {
    for (const [code, count] of this.warnCounts) {
      if (count > WARNINGS_PER_CODE) {
        this.ctx.warnings.push({
          code,
          sheet: this.ctx.sheet,
          message: `…and ${count - WARNINGS_PER_CODE} more rows with the same problem (${code}).`,
        });
      }
    }
  }

  warn(code: string, message: string, rowNumber?: number): void {
    const count = (this.warnCounts.get(code) ?? 0) + 1;
    this.warnCounts.set(code, count);
    if (count > WARNINGS_PER_CODE) return;
    const warning: SheetWarning = { code, message, sheet: this.ctx.sheet };
    if (rowNumber !== undefined) warning.rowNumber = rowNumber;
    this.ctx.warnings.push(warning);
  }

  private setHeader(values: ArrayLike<CellValue | undefined>, rowNumber: number): void {
    const columns: SheetColumn[] = [];
    const keys: string[] = [];
    const seen = new Map<string, SheetColumn>();
    let last = values.length - 1;
    while (last >= 0 && headerText(values[last]) === '') last--;
    for (let i = 0; i <= last; i++) {
      const header = headerText(values[i]);
      if (header.length > this.ctx.limits.maxCellChars) this.tooLong(i, rowNumber, header.length);
      const key = header === '' ? '' : headerKey(header);
      keys.push(key);
      if (key === '') continue;
      const column: SheetColumn = { header, key, letter: columnLetter(i), index: i };
      const previous = seen.get(key);
      if (previous) {
        throw new SheetError(
          'duplicate_header',
          `${this.ctx.file}: the header "${header}" appears twice, in columns ${previous.letter} and ${column.letter} (row ${rowNumber}). Rename or remove one of them.`,
          { file: this.ctx.file, sheet: this.ctx.sheet, rowNumber, column: column.letter },
        );
      }
      seen.set(key, column);
      columns.push(column);
    }
    this.keys = keys;
    this.hasUnnamed = keys.includes('');
    this.build = compileRowBuilder(keys);
    this.columns = columns;
  }

  private blankHeaderRow(rowNumber: number): never {
    throw new SheetError(
      'bad_option',
      `${this.ctx.file}: row ${rowNumber}, given as the header row, is blank. Give the row that holds the column names.`,
      { file: this.ctx.file, sheet: this.ctx.sheet, rowNumber },
    );
  }

  private warnUnnamed(index: number, rowNumber: number): void {
    if (this.unnamedWarned.has(index)) return;
    this.unnamedWarned.add(index);
    this.warn(
      'unnamed_column',
      `Column ${columnLetter(index)} has values (first on row ${rowNumber}) but no header: it is ignored. Give it a header if it should be read.`,
      rowNumber,
    );
  }

  /**
   * Fails for a cell longer than the limit: `length` characters, or more than `length` when
   * `atLeast` (a cell refused before its end was read), with `advice` replacing the default one.
   */
  tooLong(index: number, rowNumber: number, length: number, atLeast = false, advice?: string): never {
    const letter = columnLetter(index);
    throw new SheetError(
      'cell_too_long',
      `${this.ctx.file}: cell ${letter}${rowNumber} ${atLeast ? `is longer than ${length.toLocaleString('en-US')} characters, the limit for one cell` : `holds ${length.toLocaleString('en-US')} characters, more than the limit of ${this.ctx.limits.maxCellChars.toLocaleString('en-US')}`}. ${advice ?? 'Shorten it, or check for a stray quote that swallowed the rest of the file.'}`,
      { file: this.ctx.file, sheet: this.ctx.sheet, rowNumber, column: letter },
    );
  }
}
