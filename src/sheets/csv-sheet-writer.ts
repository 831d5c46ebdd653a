import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { formatMoney } from './money.js';
import { neutralizeFormula } from './neutralize-formula.js';
import { assertNotDirectory, temporaryPath } from './temporary-path.js';
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

/** Bytes of text gathered before one `stream.write` (fewer, larger writes are much faster). */
const FLUSH_AT = 64 * 1024;
const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180 field: quoted (with doubled quotes) when it holds a comma, a quote, CR or LF. */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A field for another delimiter: quoted when it holds that delimiter, a quote, CR or LF. */
function delimitedField(text: string, delimiter: string): string {
  if (delimiter === ',') return csvField(text);
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A number as plain decimal text (never an exponent, which spreadsheets and importers misread). */
function numberText(n: number): string {
  const s = String(n);
  return s.includes('e') ? n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : s;
}

/**
 * One CSV file per sheet: UTF-8 (BOM by default), CRLF line endings, RFC 4180 quoting, header row from the
 * column headers, text cells formula-neutralised, money as exact decimal text. Streams with backpressure.
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
    await sheet.open();
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
  private readonly stream: WriteStream;
  private readonly columns: readonly ColumnSpec[];
  private readonly timezone: string;
  private readonly decimals: number;
  private buffer = '';
  private failure: Error | null = null;
  private ended: Promise<void> | null = null;
  private readonly place: CellPlace;
  /** Rows go here; it replaces `path` when the sheet ends complete (a failed export leaves `path` as it was). */
  private readonly tmp: string;
  private aborted = false;
  private readonly delimiter: string;
  private readonly decimalComma: boolean;
  /** neutralizeFormula, or the text as it is (formulaGuard: false). */
  private readonly guard: (text: string) => string;

  constructor(
    readonly path: string,
    private readonly spec: SheetSpec,
    private readonly options: SheetWriterOptions,
  ) {
    this.columns = spec.columns;
    this.place = { sheet: spec.name, unit: 'line', row: 0 };
    this.timezone = options.timezone ?? 'UTC';
    this.decimals = options.currencyDecimals;
    this.delimiter = options.csvDelimiter ?? ',';
    if (this.delimiter.length !== 1 || /["\r\n]/.test(this.delimiter)) {
      throw new RangeError(`the CSV delimiter must be one character other than a quote or a line break`);
    }
    this.decimalComma = options.decimalComma ?? false;
    this.guard = (options.formulaGuard ?? true) ? neutralizeFormula : (text: string) => text;
    this.tmp = temporaryPath(path);
    this.stream = createWriteStream(this.tmp);
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  async open(): Promise<void> {
    await Promise.race([once(this.stream, 'open'), once(this.stream, 'error')]);
    await assertNotDirectory(this.path).catch((error: unknown) => {
      this.failure ??= error as Error;
    });
    if (this.failure) {
      this.stream.destroy();
      await rm(this.tmp, { force: true });
    }
    this.throwIfFailed();
    const bom = (this.options.csvBom ?? true) ? '\ufeff' : '';
    this.buffer =
      bom +
      this.columns.map((c) => delimitedField(this.guard(c.header), this.delimiter)).join(this.delimiter) +
      '\r\n';
  }

  write(row: Readonly<Record<string, unknown>>): void | Promise<void> {
    this.throwIfFailed();
    if (this.ended) throw new Error(`sheet ${this.spec.name}: write after ${this.aborted ? 'abort' : 'end'}`);
    this.place.row = this.rowsWritten + 2;
    let text = '';
    for (let i = 0; i < this.columns.length; i++) {
      const column = this.columns[i] as ColumnSpec;
      const cell = normalizeCell(row[column.key], column, this.timezone, this.place);
      if (i > 0) text += this.delimiter;
      if (cell === null) continue;
      switch (column.type) {
        case 'text':
          text += delimitedField(this.guard(cell as string), this.delimiter);
          break;
        case 'money':
          text += this.decimal(formatMoney(cell as number, this.decimals));
          break;
        case 'date':
        case 'datetime':
          text += formatLocalDate(cell as Date, column.type);
          break;
        case 'boolean':
          text += cell ? 'true' : 'false';
          break;
        default:
          text += this.decimal(numberText(cell as number));
      }
    }
    this.buffer += text + '\r\n';
    this.rowsWritten++;
    if (this.buffer.length >= FLUSH_AT) return this.flush();
    return undefined;
  }

  /** `12.90` → `12,90` with decimalComma (numbers are written without grouping, so the only '.' is the decimal point). */
  private decimal(text: string): string {
    return this.decimalComma ? text.replace('.', ',') : text;
  }

  private flush(): Promise<void> | undefined {
    const chunk = this.buffer;
    this.buffer = '';
    if (chunk === '' || this.stream.write(chunk)) return undefined;
    return this.drain();
  }

  private async drain(): Promise<void> {
    try {
      await once(this.stream, 'drain'); // rejects on 'error'
    } catch {
      // reported below, with the path
    }
    this.throwIfFailed();
  }

  end(): Promise<void> {
    this.ended ??= (async () => {
      try {
        this.throwIfFailed();
        await this.flush();
        this.stream.end();
        await Promise.race([once(this.stream, 'close'), once(this.stream, 'error')]);
        this.throwIfFailed();
        await rename(this.tmp, this.path);
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        this.stream.destroy();
        await rm(this.tmp, { force: true });
        this.throwIfFailed();
      }
    })();
    return this.ended;
  }

  /** Drops what was written: the target file is left as it was (unless this sheet already ended). */
  async abort(): Promise<void> {
    if (this.ended) {
      await this.ended.catch(() => undefined);
      return;
    }
    this.aborted = true;
    this.ended = Promise.reject(new Error(`sheet ${this.spec.name}: aborted`));
    this.ended.catch(() => undefined);
    if (!this.stream.closed) {
      const closed = once(this.stream, 'close').catch(() => undefined);
      this.stream.destroy();
      await closed;
    }
    await rm(this.tmp, { force: true });
  }

  private throwIfFailed(): void {
    if (this.failure)
      throw new Error(`cannot write ${this.path}: ${this.failure.message}`, { cause: this.failure });
  }
}
