import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { CsvFileWriter, csvDelimiter, type CsvFileOptions } from '../sheets/csv-file-writer.js';
import type { MadeLines } from './row-lines-ahead.js';
import {
  failedColumns,
  failedFields,
  failedMessage,
  FAILED_ERROR_COLUMN,
  isFailedOutcome,
  PlainResultLines,
  resultFields,
  RESULTS_COLUMNS,
  zeroCounts,
  type RowOutcome,
  type RowResult,
} from './row-result.js';

/**
 * `results.csv` (every input row with its outcome) and `failed.csv` (only the failed and
 * invalid rows, in the input's own columns, ready to fix and import again).
 *
 * Both are written by the one CSV writer (src/sheets/csv-file-writer.ts: RFC 4180, CRLF, a UTF-8
 * BOM, rows streamed to a temporary file that replaces the target on `close()`, so a crash never
 * leaves a truncated results file in place of a complete one).
 *
 * Formula neutralisation (docs/architecture.md, safety rule 5): text we write into results.csv, and the
 * `mbulk_error` column of failed.csv, get a leading `'` when they start with `=`, `+`, `-`, `@`,
 * tab or CR (plain numbers such as `-5` are left alone: `neutralizeResultText`). The user's own values in failed.csv are
 * written exactly as read, so that fixing and re-importing the file gives back the same cells:
 * they came from the user's sheet, and altering them would corrupt the data on re-import.
 *
 * failed.csv ends with one extra column, `mbulk_error`. Importers must ignore columns whose
 * header starts with `mbulk_` (no warning), so that the file imports as it is; when the input
 * was itself a failed.csv its old `mbulk_*` columns are dropped rather than repeated.
 */

/** Writer of results.csv: RESULTS_COLUMNS, then any extra columns the caller names (e.g. the row's key columns). */
export class ResultsCsvWriter {
  readonly counts: Record<RowOutcome, number> = zeroCounts();

  private readonly plain: PlainResultLines;

  private constructor(
    private readonly csv: CsvFileWriter,
    readonly extraColumns: readonly string[],
    delimiter: string,
  ) {
    this.plain = new PlainResultLines(delimiter, extraColumns);
  }

  static async open(
    file: string,
    extraColumns: readonly string[] = [],
    options: CsvFileOptions = {},
  ): Promise<ResultsCsvWriter> {
    return new ResultsCsvWriter(
      await CsvFileWriter.open(file, [...RESULTS_COLUMNS, ...extraColumns], options),
      extraColumns,
      csvDelimiter(options.delimiter),
    );
  }

  /** Appends one line (await a returned promise: see CsvFileWriter.writeRow). */
  write(
    result: RowResult,
    extra: Readonly<Record<string, CellValue | undefined>> = {},
  ): void | Promise<void> {
    this.counts[result.outcome]++;
    const plain = this.plain.line(result);
    if (plain !== undefined) return this.csv.writeLines(plain, 1);
    return this.csv.writeRow(resultFields(result, extra, this.extraColumns));
  }

  /** Appends lines made ahead (RowLinesAhead), their outcomes counted there. */
  writeLines(lines: Uint8Array, rows: number): void | Promise<void> {
    return this.csv.writeLines(lines, rows);
  }

  /** Counts outcomes of lines made ahead. */
  countAhead(counts: Readonly<Record<RowOutcome, number>>): void {
    for (const outcome of Object.keys(counts) as RowOutcome[]) this.counts[outcome] += counts[outcome];
  }

  close(): Promise<void> {
    return this.csv.commit();
  }

  discard(): Promise<void> {
    return this.csv.discard();
  }
}

/**
 * Writer of failed.csv for one input sheet: the sheet's own headers in their order (minus any
 * `mbulk_*` columns) and values exactly as read, then `mbulk_error`.
 */
export class FailedCsvWriter {
  private constructor(
    private readonly csv: CsvFileWriter,
    private readonly columns: readonly SheetColumn[],
  ) {}

  static async open(
    file: string,
    columns: readonly SheetColumn[],
    options: CsvFileOptions = {},
  ): Promise<FailedCsvWriter> {
    const kept = failedColumns(columns);
    const csv = await CsvFileWriter.open(file, [...kept.map((c) => c.header), FAILED_ERROR_COLUMN], options);
    return new FailedCsvWriter(csv, kept);
  }

  get rows(): number {
    return this.csv.rows;
  }

  /** Appends one line (await a returned promise: see CsvFileWriter.writeRow). */
  write(row: SheetRow, error: string): void | Promise<void> {
    return this.csv.writeRow(failedFields(this.columns, row, error));
  }

  /** Appends lines made ahead (RowLinesAhead). */
  writeLines(lines: string, rows: number): void | Promise<void> {
    return this.csv.writeLines(lines, rows);
  }

  close(): Promise<void> {
    return this.csv.commit();
  }

  discard(): Promise<void> {
    return this.csv.discard();
  }
}

export interface WriteRowFilesOptions {
  /**
   * The input rows again (re-read the file: rows are streamed, not kept), one by one or in batches
   * (a reader's `batches()`: a million rows, no await for each).
   */
  rows: AsyncIterable<SheetRow | readonly SheetRow[]> | Iterable<SheetRow>;
  /** The outcome of one input row. */
  resultOf: (row: SheetRow) => RowResult;
  resultsFile: string;
  /** failed.csv per sheet name; rows of a sheet without a file get no failed.csv line. */
  failedFiles: Readonly<
    Record<string, { file: string; columns: readonly SheetColumn[]; delimiter?: string | undefined }>
  >;
  /** Extra results.csv columns copied from each row's cells (e.g. `sku`). */
  extraColumns?: readonly string[];
  csv?: CsvFileOptions;
}

export interface RowFilesSummary {
  counts: Record<RowOutcome, number>;
  /** Rows written to each failed file, by sheet. */
  failedRows: Record<string, number>;
}

/**
 * Streams the input rows once, writing results.csv (every row) and failed.csv (failed and
 * invalid rows). A failed file that ends up empty is still written (header only), so a
 * previous run's failed rows are never mistaken for this run's. With `ahead`, its lines and held
 * rows come first, then `rows` (the rows not read ahead).
 */
export async function writeRowFiles(
  options: WriteRowFilesOptions,
  ahead?: MadeLines,
): Promise<RowFilesSummary> {
  const extraColumns = options.extraColumns ?? [];
  const results = await ResultsCsvWriter.open(options.resultsFile, extraColumns, options.csv);
  const failed = new Map<string, FailedCsvWriter>();
  // A promise only when a writer hands one back (a flush): most rows are buffered, and a million
  // rows are not a million awaits.
  const writeRow = (row: SheetRow): void | Promise<void> => {
    const result = options.resultOf(row);
    const written = results.write(result, row.cells);
    if (!isFailedOutcome(result.outcome)) return written;
    const writer = failed.get(row.sheet);
    const message = failedMessage(result);
    return written ? written.then(() => writer?.write(row, message)) : writer?.write(row, message);
  };
  try {
    for (const [sheet, target] of Object.entries(options.failedFiles)) {
      const csv =
        target.delimiter === undefined ? options.csv : { ...options.csv, delimiter: target.delimiter };
      failed.set(sheet, await FailedCsvWriter.open(target.file, target.columns, csv));
    }
    if (ahead) results.countAhead(ahead.counts);
    // Each piece is let go once written (up to 64 MiB of them).
    const pieces = ahead?.pieces ?? [];
    for (let piece = pieces.shift(); piece !== undefined; piece = pieces.shift()) {
      if ('held' in piece) {
        const written = writeRow(piece.held);
        if (written) await written;
        continue;
      }
      const { lines } = piece;
      const written = results.writeLines(lines.results, lines.rows);
      if (written) await written;
      for (const [sheet, f] of lines.failed ?? []) {
        const failedWritten = failed.get(sheet)?.writeLines(f.lines, f.rows);
        if (failedWritten) await failedWritten;
      }
    }
    for await (const rows of options.rows) {
      for (const row of isBatch(rows) ? rows : [rows]) {
        const written = writeRow(row);
        if (written) await written;
      }
    }
  } catch (error) {
    await results.discard();
    for (const writer of failed.values()) await writer.discard();
    throw error;
  }
  await results.close();
  const failedRows: Record<string, number> = {};
  for (const [sheet, writer] of failed) {
    failedRows[sheet] = writer.rows;
    await writer.close();
  }
  return { counts: results.counts, failedRows };
}

function isBatch(rows: SheetRow | readonly SheetRow[]): rows is readonly SheetRow[] {
  return Array.isArray(rows);
}
