import { csvField, CsvFileWriter } from './csv-file-writer.js';
import { formatMoney } from './money.js';
import { neutralizeFormula } from './neutralize-formula.js';
import {
  assertSheetSpec,
  defaultCsvPath,
  formatLocalDate,
  normalizeCell,
  type CellPlace,
  type ColumnSpec,
  type SheetHandle,
  type SheetSpec,
  type SheetWriter,
  type SheetWriterOptions,
} from './sheet-writer.js';

/** Bytes gathered before one write to the file (fewer, larger writes are much faster). */
const FLUSH_AT = 64 * 1024;

/** A number as plain decimal text (never an exponent, which spreadsheets and importers misread). */
function numberText(n: number): string {
  const s = String(n);
  return s.includes('e') ? n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : s;
}

/**
 * One CSV file per sheet, through the one CSV writer (src/sheets/csv-file-writer.ts: UTF-8 with a BOM by
 * default, CRLF line endings, RFC 4180 quoting, replaced atomically): header row from the column headers,
 * text cells formula-neutralised, money as exact decimal text.
 */
export class CsvSheetWriter implements SheetWriter {
  private readonly sheets: CsvSheet[] = [];
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly options: SheetWriterOptions,
  ) {}

  async addSheet(spec: SheetSpec, path?: string): Promise<SheetHandle> {
    if (this.closed) throw new Error('addSheet after close');
    assertSheetSpec(spec);
    const index = this.sheets.length;
    const file =
      path ?? this.options.csvPathForSheet?.(spec.name, index) ?? defaultCsvPath(this.path, spec.name, index);
    if (this.sheets.some((s) => s.path === file))
      throw new Error(`two sheets write to the same file ${file}`);
    const sheet = await CsvSheet.open(file, spec, this.options);
    this.sheets.push(sheet);
    return sheet;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const sheet of this.sheets) await sheet.end();
  }

  async abort(): Promise<void> {
    this.closed = true;
    for (const sheet of this.sheets) await sheet.abort();
  }
}

/** neutralizeFormula, or the text as it is (formulaGuard: false). */
function guardOf(options: SheetWriterOptions): (text: string) => string {
  return (options.formulaGuard ?? true) ? neutralizeFormula : (text: string) => text;
}

class CsvSheet implements SheetHandle {
  rowsWritten = 0;
  private readonly columns: readonly ColumnSpec[];
  private readonly timezone: string;
  private readonly decimals: number;
  private readonly decimalComma: boolean;
  private readonly guard: (text: string) => string;
  private readonly place: CellPlace;
  private readonly delimiter: string;
  /** The last date and datetime text converted, and its CSV text (see dateText). */
  private readonly lastDate = { value: '', text: '' };
  private readonly lastDatetime = { value: '', text: '' };
  private state: 'open' | 'ended' | 'aborted' = 'open';
  private ended: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    private readonly spec: SheetSpec,
    options: SheetWriterOptions,
    private readonly csv: CsvFileWriter,
  ) {
    this.columns = spec.columns;
    this.place = { sheet: spec.name, unit: 'line', row: 0 };
    this.timezone = options.timezone ?? 'UTC';
    this.decimals = options.currencyDecimals;
    this.decimalComma = options.decimalComma ?? false;
    this.guard = guardOf(options);
    this.delimiter = options.csvDelimiter ?? ',';
  }

  /** Opens the sheet's file (a file that cannot be written fails now, naming it) and writes the header. */
  static async open(path: string, spec: SheetSpec, options: SheetWriterOptions): Promise<CsvSheet> {
    const csv = await CsvFileWriter.open(
      path,
      spec.columns.map((c) => guardOf(options)(c.header)),
      { delimiter: options.csvDelimiter ?? ',', bom: options.csvBom ?? true, flushBytes: FLUSH_AT },
    );
    return new CsvSheet(path, spec, options, csv);
  }

  write(row: Readonly<Record<string, unknown>>): void | Promise<void> {
    if (this.state !== 'open') {
      throw new Error(`sheet ${this.spec.name}: write after ${this.state === 'aborted' ? 'abort' : 'end'}`);
    }
    this.place.row = this.rowsWritten + 2;
    // The line csvLine would make of the fields, each quoted as csvField says, in one pass.
    const delimiter = this.delimiter;
    let line = '';
    for (let i = 0; i < this.columns.length; i++) {
      const column = this.columns[i] as ColumnSpec;
      const value = row[column.key];
      if (i > 0) line += delimiter;
      if (typeof value === 'string' && (column.type === 'datetime' || column.type === 'date')) {
        line += this.plainField(this.dateText(value, column));
        continue;
      }
      const cell = normalizeCell(value, column, this.timezone, this.place);
      if (cell === null) continue;
      const text = this.text(cell, column);
      line += column.type === 'text' ? csvField(text, delimiter) : this.plainField(text);
    }
    const written = this.csv.writeLines(`${line}\r\n`, 1);
    this.rowsWritten++;
    return written;
  }

  /**
   * A field of a number, money, date or boolean column: csvField's quoting, which such text (digits,
   * '-', '.', ':', a space inside a date, `true`/`false`, a decimal comma) needs only when it holds
   * the delimiter, having no quote, line break, or space at either end (no regular expression run).
   */
  private plainField(text: string): string {
    return text.includes(this.delimiter) ? csvField(text, this.delimiter) : text;
  }

  /**
   * A date cell given as text, as CSV text: the same text as the last one of its type gives the same
   * cell (an order's lines repeat its dates; created and updated are often equal), so it is
   * converted once.
   */
  private dateText(value: string, column: ColumnSpec): string {
    const last = column.type === 'date' ? this.lastDate : this.lastDatetime;
    if (last.value === value) return last.text;
    const cell = normalizeCell(value, column, this.timezone, this.place);
    const text = cell === null ? '' : this.text(cell, column);
    last.value = value;
    last.text = text;
    return text;
  }

  /** A normalised cell as CSV text. */
  private text(cell: NonNullable<ReturnType<typeof normalizeCell>>, column: ColumnSpec): string {
    switch (column.type) {
      case 'text':
        return this.guard(cell as string);
      case 'money':
        return this.decimal(formatMoney(cell as number, this.decimals));
      case 'date':
      case 'datetime':
        return formatLocalDate(cell as Date, column.type);
      case 'boolean':
        return cell ? 'true' : 'false';
      default:
        return this.decimal(numberText(cell as number));
    }
  }

  /** `12.90` → `12,90` with decimalComma (numbers are written without grouping, so the only '.' is the decimal point). */
  private decimal(text: string): string {
    return this.decimalComma ? text.replace('.', ',') : text;
  }

  end(): Promise<void> {
    if (this.state === 'aborted') return Promise.reject(new Error(`sheet ${this.spec.name}: aborted`));
    this.state = 'ended';
    this.ended ??= this.csv.commit();
    return this.ended;
  }

  /** Drops what was written: the target file is left as it was (unless this sheet already ended). */
  async abort(): Promise<void> {
    if (this.state === 'ended') {
      await this.ended?.catch(() => undefined);
      return;
    }
    this.state = 'aborted';
    await this.csv.discard();
  }
}
