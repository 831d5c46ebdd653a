import { csvDelimiter, CsvFileWriter } from './csv-file-writer.js';
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

/** Characters gathered before one write to the file (fewer, larger writes are much faster). */
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
    const sheet = new CsvSheet(file, spec, this.options);
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

class CsvSheet implements SheetHandle {
  rowsWritten = 0;
  private readonly csv: CsvFileWriter;
  private readonly columns: readonly ColumnSpec[];
  private readonly timezone: string;
  private readonly decimals: number;
  private readonly decimalComma: boolean;
  private readonly place: CellPlace;
  private state: 'open' | 'ended' | 'aborted' = 'open';
  /** Set when the file failed: every later call reports it (the target is left as it was). */
  private failure: Error | undefined;

  constructor(
    readonly path: string,
    private readonly spec: SheetSpec,
    options: SheetWriterOptions,
  ) {
    this.columns = spec.columns;
    this.place = { sheet: spec.name, unit: 'line', row: 0 };
    this.timezone = options.timezone ?? 'UTC';
    this.decimals = options.currencyDecimals;
    this.decimalComma = options.decimalComma ?? false;
    const delimiter = csvDelimiter(options.csvDelimiter);
    const header = this.columns.map((c) => neutralizeFormula(c.header));
    let csv: CsvFileWriter | undefined;
    this.guard(() => {
      csv = new CsvFileWriter(path, header, { delimiter, bom: options.csvBom ?? true, flushChars: FLUSH_AT });
    });
    this.csv = csv as CsvFileWriter;
  }

  write(row: Readonly<Record<string, unknown>>): void {
    this.throwIfFailed();
    if (this.state !== 'open')
      throw new Error(`sheet ${this.spec.name}: write after ${this.state === 'aborted' ? 'abort' : 'end'}`);
    this.place.row = this.rowsWritten + 2;
    const fields: string[] = [];
    for (const column of this.columns) {
      const cell = normalizeCell(row[column.key], column, this.timezone, this.place);
      fields.push(cell === null ? '' : this.text(cell, column));
    }
    this.guard(() => this.csv.writeRow(fields));
    this.rowsWritten++;
  }

  /** A normalised cell as CSV text. */
  private text(cell: NonNullable<ReturnType<typeof normalizeCell>>, column: ColumnSpec): string {
    switch (column.type) {
      case 'text':
        return neutralizeFormula(cell as string);
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

  async end(): Promise<void> {
    this.throwIfFailed();
    if (this.state === 'aborted') throw new Error(`sheet ${this.spec.name}: aborted`);
    if (this.state === 'ended') return;
    this.state = 'ended';
    this.guard(() => this.csv.close());
  }

  /** Drops what was written: the target file is left as it was (unless this sheet already ended). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    if (this.failure === undefined) this.csv.discard();
  }

  /** Runs a file operation; a failure discards the file and is reported as `cannot write <path>: …`. */
  private guard(operation: () => void): void {
    try {
      operation();
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      if (this.state === 'open') this.state = 'aborted';
      try {
        this.csv?.discard();
      } catch {
        // the failure is what matters
      }
      this.throwIfFailed();
    }
  }

  private throwIfFailed(): void {
    if (this.failure)
      throw new Error(`cannot write ${this.path}: ${this.failure.message}`, { cause: this.failure });
  }
}
