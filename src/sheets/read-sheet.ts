import { stat } from 'node:fs/promises';
import { NotRegularFileError } from './read-regular-file.js';
import { basename, extname } from 'node:path';
import { open } from 'node:fs/promises';
import { CsvReader } from './csv-reader.js';
import { SHEET_ENCODINGS } from './decode-text.js';
import type { SheetEncoding } from './decode-text.js';
import { SheetError } from './sheet-error.js';
import { formatBytes, resolveSheetLimits } from './sheet-limits.js';
import type { SheetLimits } from './sheet-limits.js';
import type { SheetColumn, SheetRow, SheetWarning } from './sheet-row.js';
// Types only: the XLSX reader (and exceljs, ~0.4 s to load) is imported when a workbook is read,
// so that reading a CSV never loads it.
import type { WorkbookSheet, XlsxReader } from './xlsx-reader.js';

export type { SheetEncoding } from './decode-text.js';
export type { SheetLimits } from './sheet-limits.js';
export type { WorkbookSheet } from './xlsx-reader.js';

export type SheetFormat = 'csv' | 'xlsx';

export interface ReadSheetOptions {
  /** XLSX: the sheet to read, by name, case-insensitive. Default: the first visible worksheet. Ignored for CSV. */
  sheet?: string | undefined;
  /**
   * XLSX: when the named sheet does not exist (or exists but is empty), read nothing instead of
   * failing: `missing` is true and there are no columns and no rows. Default false.
   */
  optionalSheet?: boolean | undefined;
  /** Safety limits; each one defaults to DEFAULT_SHEET_LIMITS. */
  limits?: Partial<SheetLimits> | undefined;
  /** CSV: the text encoding. Default: detected (BOM, else UTF-8 if valid, else Windows-1252). */
  encoding?: SheetEncoding | undefined;
  /** CSV: the delimiter (one character). Default: `sep=` line, else detected among , ; tab |. */
  delimiter?: string | undefined;
  /** Default: from the extension (.xlsx/.xlsm/.xls → xlsx; .csv/.tsv/.txt → csv), else from the content. */
  format?: SheetFormat | undefined;
  /**
   * The header row: its 1-based number (rows above it are not read), or `'auto'` (found below a
   * title row, blank rows or merged headings). Default: the first non-blank row.
   */
  headerRow?: number | 'auto' | undefined;
}

/** What is known once the header has been read. */
export interface SheetInfo {
  file: string;
  format: SheetFormat;
  /** The sheet read (XLSX), or the file's base name (CSV). */
  sheet: string;
  /** XLSX: every worksheet of the workbook, in workbook order. CSV: []. */
  sheetNames: string[];
  columns: SheetColumn[];
  /** True when `optionalSheet` was set and the sheet is absent or empty. */
  missing: boolean;
  /** The row number of the header row (0 when missing). */
  headerRow: number;
  /** CSV: the encoding and delimiter used. */
  encoding?: SheetEncoding;
  delimiter?: string;
}

/**
 * A sheet being read: an AsyncIterable of its data rows (read once), plus the header and the
 * warnings. `open()` reads up to the header without losing any row; iterating opens implicitly.
 */
export interface SheetReader extends AsyncIterable<SheetRow> {
  readonly file: string;
  /** Non-fatal findings (encoding fallback, ignored cells, error values…), filled while reading. */
  readonly warnings: SheetWarning[];
  /** XLSX sheet names (workbook order), available after open(); [] for CSV. */
  readonly sheetNames: readonly string[];
  /** Reads up to and including the header row. Idempotent. */
  open(): Promise<SheetInfo>;
  /** The header row's columns (opens the sheet if needed). */
  columns(): Promise<SheetColumn[]>;
  /** The rows in batches (one per chunk of the file): the fastest way to consume a large sheet. */
  batches(): AsyncIterable<SheetRow[]>;
  /** Stops reading and releases the file (also done at the end of iteration or on break). */
  close(): Promise<void>;
}

function formatFromPath(file: string): SheetFormat | null {
  const ext = extname(file).toLowerCase();
  if (ext === '.xlsx' || ext === '.xlsm' || ext === '.xls') return 'xlsx';
  if (ext === '.csv' || ext === '.tsv' || ext === '.txt') return 'csv';
  return null;
}

async function sniffFormat(file: string): Promise<SheetFormat> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.readUInt32LE(0) === 0x04034b50 ? 'xlsx' : 'csv';
  } finally {
    await handle.close();
  }
}

function checkOptions(file: string, options: ReadSheetOptions): void {
  const { delimiter, encoding, format } = options;
  if (delimiter !== undefined && (delimiter.length !== 1 || /["\r\n]/.test(delimiter))) {
    throw new SheetError(
      'bad_option',
      `The delimiter must be one character other than a quote or a line break, not ${JSON.stringify(delimiter)}.`,
      { file },
    );
  }
  if (encoding !== undefined && !SHEET_ENCODINGS.includes(encoding)) {
    throw new SheetError(
      'bad_option',
      `Unknown encoding "${String(encoding)}": use one of ${SHEET_ENCODINGS.join(', ')}.`,
      { file },
    );
  }
  if (format !== undefined && format !== 'csv' && format !== 'xlsx') {
    throw new SheetError('bad_option', `Unknown format "${String(format)}": use csv or xlsx.`, { file });
  }
}

type Source = CsvReader | XlsxReader;

class SheetReaderImpl implements SheetReader {
  readonly file: string;
  readonly warnings: SheetWarning[] = [];
  sheetNames: string[] = [];
  private readonly options: ReadSheetOptions;
  private opening: Promise<SheetInfo> | null = null;
  private source: Source | null = null;
  private generator: AsyncGenerator<SheetRow[], void, undefined> | null = null;
  private readonly buffered: SheetRow[][] = [];
  private consumed = false;
  private done = false;

  constructor(file: string, options: ReadSheetOptions) {
    this.file = file;
    this.options = options;
  }

  open(): Promise<SheetInfo> {
    this.opening ??= this.doOpen();
    return this.opening;
  }

  async columns(): Promise<SheetColumn[]> {
    return (await this.open()).columns;
  }

  async close(): Promise<void> {
    this.done = true;
    this.buffered.length = 0;
    const generator = this.generator;
    this.generator = null;
    this.source?.close();
    if (generator) await generator.return(undefined);
  }

  batches(): AsyncIterable<SheetRow[]> {
    this.claim();
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<SheetRow[]>> => {
          const batch = await this.nextBatch();
          return batch === null ? { done: true, value: undefined } : { done: false, value: batch };
        },
        return: async (): Promise<IteratorResult<SheetRow[]>> => {
          await this.close();
          return { done: true, value: undefined };
        },
      }),
    };
  }

  [Symbol.asyncIterator](): AsyncIterator<SheetRow> {
    this.claim();
    let batch: SheetRow[] = [];
    let i = 0;
    const pull = async (): Promise<IteratorResult<SheetRow>> => {
      for (;;) {
        const next = await this.nextBatch();
        if (next === null) return { done: true, value: undefined };
        if (next.length > 0) {
          batch = next;
          i = 1;
          return { done: false, value: next[0] as SheetRow };
        }
      }
    };
    return {
      // Rows already read are handed out without going back to the file: one settled promise per row.
      next: (): Promise<IteratorResult<SheetRow>> =>
        i < batch.length ? Promise.resolve({ done: false, value: batch[i++] as SheetRow }) : pull(),
      return: async (): Promise<IteratorResult<SheetRow>> => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  private claim(): void {
    if (this.consumed)
      throw new Error(`readSheet(${this.file}): the rows can be iterated only once; call readSheet again.`);
    this.consumed = true;
  }

  private async nextBatch(): Promise<SheetRow[] | null> {
    await this.open();
    const buffered = this.buffered.shift();
    if (buffered) return buffered;
    if (this.done || this.generator === null) return null;
    try {
      const result = await this.generator.next();
      if (result.done) {
        this.done = true;
        return null;
      }
      return result.value;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private async doOpen(): Promise<SheetInfo> {
    const { file, options } = this;
    checkOptions(file, options);
    const limits = resolveSheetLimits(options.limits);
    let size: number;
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new NotRegularFileError(file);
      size = st.size;
    } catch (error) {
      // A FIFO or a device would block the reader (a pipe never ends until its writer closes it).
      const what =
        error instanceof NotRegularFileError
          ? 'is not a regular file (a pipe, socket, device or directory); pass the path of a sheet file.'
          : 'was not found (or is not a file). Check the path.';
      throw new SheetError('file_not_found', `${file} ${what}`, { file, cause: error });
    }
    if (size > limits.maxFileBytes) {
      throw new SheetError(
        'file_too_large',
        `${file} is ${formatBytes(size)}, more than the limit of ${formatBytes(limits.maxFileBytes)}. Split it into smaller files, or raise the file size limit.`,
        { file },
      );
    }
    const format = options.format ?? formatFromPath(file) ?? (await sniffFormat(file));
    let sheetName: string;
    if (format === 'xlsx') {
      const { pickSheet, readWorkbookIndex, XlsxReader } = await import('./xlsx-reader.js');
      const index = await readWorkbookIndex(file, limits);
      this.sheetNames = index.sheets.map((s) => s.name);
      const sheet = pickSheet(index, options.sheet);
      if (!sheet) {
        if (options.optionalSheet) return this.info(format, options.sheet ?? '', [], true);
        const names = this.sheetNames.map((n) => `"${n}"`).join(', ') || 'none';
        throw new SheetError(
          'sheet_not_found',
          options.sheet === undefined
            ? `${file} has no worksheet to read.`
            : `${file} has no sheet named "${options.sheet}". Its sheets are: ${names}. Pass one of these names.`,
          { file, ...(options.sheet === undefined ? {} : { sheet: options.sheet }) },
        );
      }
      sheetName = sheet.name;
      this.source = new XlsxReader({
        file,
        sheet,
        date1904: index.date1904,
        limits,
        warnings: this.warnings,
      });
    } else {
      if (size === 0) throw emptyFile(file);
      sheetName = basename(file);
      this.source = new CsvReader({
        file,
        sheet: sheetName,
        limits,
        warnings: this.warnings,
        encoding: options.encoding,
        delimiter: options.delimiter,
      });
    }
    const source = this.source;
    source.table.headerRow = options.headerRow;
    this.generator = source.batches();
    while (source.table.columns === null) {
      let result: IteratorResult<SheetRow[], void>;
      try {
        result = await this.generator.next();
      } catch (error) {
        await this.close();
        throw error;
      }
      if (result.done) {
        this.done = true;
        if (source.table.columns !== null) break;
        if (format === 'xlsx' && options.optionalSheet) return this.info(format, sheetName, [], true);
        throw emptyFile(file, format === 'xlsx' ? sheetName : undefined);
      }
      if (result.value.length > 0) this.buffered.push(result.value);
    }
    return this.info(format, sheetName, source.table.columns ?? [], false);
  }

  private info(format: SheetFormat, sheet: string, columns: SheetColumn[], missing: boolean): SheetInfo {
    const info: SheetInfo = {
      file: this.file,
      format,
      sheet,
      sheetNames: this.sheetNames,
      columns,
      missing,
      headerRow: this.source?.table.headerRowNumber ?? 0,
    };
    if (this.source instanceof CsvReader) {
      if (this.source.encoding) info.encoding = this.source.encoding;
      if (this.source.delimiter) info.delimiter = this.source.delimiter;
    }
    return info;
  }
}

function emptyFile(file: string, sheet?: string): SheetError {
  return new SheetError(
    'empty_file',
    sheet === undefined
      ? `${file} is empty: it has no header row. Put the column names on the first line.`
      : `${file}: the sheet "${sheet}" is empty: it has no header row. Put the column names on its first row.`,
    { file, ...(sheet === undefined ? {} : { sheet }) },
  );
}

/**
 * Reads a CSV or XLSX sheet as a stream of rows `{ sheet, rowNumber, cells }` keyed by the
 * lower-cased headers. Nothing is read until `open()` or the first iteration. Errors are
 * SheetError with a stable `code`.
 *
 * ```ts
 * const sheet = readSheet('products.xlsx', { sheet: 'products' });
 * const { columns } = await sheet.open();
 * for await (const row of sheet) { … }
 * console.log(sheet.warnings);
 * ```
 */
export function readSheet(file: string, options: ReadSheetOptions = {}): SheetReader {
  return new SheetReaderImpl(file, options);
}

/** The rows of a sheet in batches: `readSheet(file, options).batches()`. */
export function readSheetBatches(file: string, options: ReadSheetOptions = {}): AsyncIterable<SheetRow[]> {
  return readSheet(file, options).batches();
}

export interface SheetListing {
  name: string;
  state: WorkbookSheet['state'];
}

/** The worksheets of an XLSX workbook in workbook order (chart sheets excluded). A CSV has one sheet. */
export async function listSheets(
  file: string,
  options: Pick<ReadSheetOptions, 'format'> = {},
): Promise<SheetListing[]> {
  try {
    await stat(file);
  } catch (error) {
    throw new SheetError('file_not_found', `${file} was not found. Check the path.`, { file, cause: error });
  }
  const format = options.format ?? formatFromPath(file) ?? (await sniffFormat(file));
  if (format === 'csv') return [{ name: basename(file), state: 'visible' }];
  const { readWorkbookIndex } = await import('./xlsx-reader.js');
  const index = await readWorkbookIndex(file);
  return index.sheets.map(({ name, state }) => ({ name, state }));
}
