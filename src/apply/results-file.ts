import type { RowIssue } from '../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellText } from '../sheets/cell-result.js';
import { CsvFileWriter, csvDelimiter, csvLine, type CsvFileOptions } from '../sheets/csv-file-writer.js';
import { neutralizeResultText } from '../sheets/neutralize-formula.js';
import type { OperationOutcome } from './execute-plan.js';
import type { MadeLines } from './row-lines-ahead.js';

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

/**
 * A row's outcome. `skipped`: the row asked for nothing (command `skip`) or was not reached;
 * `left_out`: a platform export's row its conversion does not import (a gift card, a grouped
 * product, a repeated row), with the reason.
 */
export type RowOutcome = 'created' | 'updated' | 'unchanged' | 'skipped' | 'left_out' | 'failed' | 'invalid';

/** One line of results.csv. */
export interface RowResult {
  sheet: string;
  /** Row number as the spreadsheet shows it. */
  row: number;
  outcome: RowOutcome;
  entityId?: string;
  /** The row's matching key (sku, reference_id, phone…). */
  key?: string;
  errorCode?: string;
  errorMessage?: string;
  /** Column letter(s) of the problem, `|`-separated when several. */
  column?: string;
  requestId?: string;
}

export const RESULTS_COLUMNS = [
  'sheet',
  'row',
  'outcome',
  'entity_id',
  'key',
  'error_code',
  'error_message',
  'column',
  'request_id',
] as const;

/** Header of the error column appended to failed.csv. */
export const FAILED_ERROR_COLUMN = 'mbulk_error';

/** Importers ignore columns with this header prefix (failed.csv's `mbulk_error`). */
export const RESERVED_COLUMN_PREFIX = 'mbulk_';

/** The fields of a results.csv line: RESULTS_COLUMNS, then the extra columns from the row's cells. */
export function resultFields(
  result: RowResult,
  extra: Readonly<Record<string, CellValue | undefined>>,
  extraColumns: readonly string[],
): string[] {
  const fields = [
    neutralizeResultText(result.sheet),
    String(result.row),
    result.outcome,
    text(result.entityId),
    text(result.key),
    text(result.errorCode),
    text(result.errorMessage),
    text(result.column),
    text(result.requestId),
  ];
  for (const column of extraColumns) fields.push(neutralizeResultText(cellText(extra[column])));
  return fields;
}

/**
 * results.csv lines of results that are only a sheet, a row number and an outcome (most rows of a
 * big sheet: unchanged), in a file without extra columns: the same line but for the row number,
 * made from parts rendered once per sheet and outcome, without a fields array and a quoting test
 * per field for each of a million rows. The same bytes as csvLine(resultFields(…)).
 */
export class PlainResultLines {
  private readonly parts = new Map<string, PlainLineParts>();
  /**
   * The parts asked for last, and for what: a big sheet's rows ask for the same, row after row, and
   * a key made and looked up for each of them cost ~0.15 µs a line (0.40 against 0.25 s for a
   * million lines).
   */
  private last: { sheet: string; outcome: RowOutcome; parts: PlainLineParts } | undefined;

  constructor(
    private readonly delimiter: string,
    private readonly extraColumns: readonly string[],
  ) {}

  /** The line of a result, or undefined when it says more than its sheet, row and outcome. */
  line(result: RowResult): string | undefined {
    return result.entityId === undefined &&
      result.key === undefined &&
      result.errorCode === undefined &&
      result.errorMessage === undefined &&
      result.column === undefined &&
      result.requestId === undefined
      ? this.lineOf(result.sheet, result.row, result.outcome)
      : undefined;
  }

  /**
   * The line of `{ sheet, row, outcome }`, or undefined when the file has extra columns (or a digit
   * for a delimiter, which a row number would then be quoted for).
   */
  lineOf(sheet: string, row: number, outcome: RowOutcome): string | undefined {
    const around = this.partsOf(sheet, outcome);
    return around && `${around.head}${row}${around.tail}`;
  }

  /** The parts of a plain line around its row number, or undefined when there is none (see `lineOf`). */
  private partsOf(sheet: string, outcome: RowOutcome): PlainLineParts | undefined {
    const last = this.last;
    if (last !== undefined && last.sheet === sheet && last.outcome === outcome) return last.parts;
    if (this.extraColumns.length > 0 || (this.delimiter >= '0' && this.delimiter <= '9')) return undefined;
    const key = `${sheet}\n${outcome}`;
    let parts = this.parts.get(key);
    if (parts === undefined) {
      // The line of row 0, cut around its row number (a row number needs no quotes).
      const line = csvLine(resultFields({ sheet, row: 0, outcome }, {}, []), this.delimiter);
      const at = csvLine([neutralizeResultText(sheet), ''], this.delimiter).length - 2;
      parts = { head: line.slice(0, at), tail: line.slice(at + 1) };
      this.parts.set(key, parts);
    }
    this.last = { sheet, outcome, parts };
    return parts;
  }
}

/** A plain results.csv line but for its row number: what comes before it and after it. */
interface PlainLineParts {
  head: string;
  tail: string;
}

/** The input's columns a failed.csv repeats: all but `mbulk_*` ones, in the sheet's order. */
export function failedColumns(columns: readonly SheetColumn[]): SheetColumn[] {
  return [...columns]
    .filter((c) => !c.key.startsWith(RESERVED_COLUMN_PREFIX))
    .sort((a, b) => a.index - b.index);
}

/** The fields of a failed.csv line: the row's cells exactly as read, then its error. */
export function failedFields(columns: readonly SheetColumn[], row: SheetRow, error: string): string[] {
  return [...columns.map((c) => cellText(row.cells[c.key])), neutralizeResultText(error)];
}

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

/**
 * results.csv line of a row that failed validation: codes `|`-joined, each message prefixed with
 * its cell when there are several, column letters `|`-joined. Warnings are left out.
 */
export function invalidRowResult(
  sheet: string,
  row: number,
  issues: readonly RowIssue[],
  key?: string,
): RowResult {
  const errors = issues.filter((i) => i.severity === 'error');
  const used = errors.length > 0 ? errors : issues;
  const result: RowResult = { sheet, row, outcome: 'invalid' };
  if (key !== undefined) result.key = key;
  result.errorCode = unique(used.map((i) => i.code)).join('|');
  result.errorMessage = issuesMessage(used);
  const columns = unique(used.flatMap((i) => (i.column !== undefined ? [i.column] : [])));
  if (columns.length > 0) result.column = columns.join('|');
  return result;
}

/** One message for a row's issues (the `mbulk_error` of failed.csv). */
export function issuesMessage(issues: readonly RowIssue[]): string {
  if (issues.length === 1) return (issues[0] as RowIssue).message;
  return issues
    .map((i) =>
      i.column !== undefined ? `${i.column}${i.header ? ` (${i.header})` : ''}: ${i.message}` : i.message,
    )
    .join('; ');
}

/**
 * results.csv line of an input row from the outcome of the operation that carried it:
 * done → `success` (created / updated…); failed → failed with the API's code, message and
 * request id; unknown → failed, code `outcome_unknown` (resume the run to settle it); not run
 * (interrupted) → skipped, code `not_run`.
 */
export function operationRowResult(
  sheet: string,
  row: number,
  outcome: OperationOutcome<unknown, unknown>,
  success: { outcome: RowOutcome; entityId?: string; key?: string },
): RowResult {
  const result: RowResult = { sheet, row, outcome: success.outcome };
  if (success.key !== undefined) result.key = success.key;
  switch (outcome.status) {
    case 'done':
      if (success.entityId !== undefined) result.entityId = success.entityId;
      return result;
    case 'failed':
    case 'unknown': {
      result.outcome = 'failed';
      const error = outcome.error;
      if (outcome.status === 'unknown') {
        result.errorCode = 'outcome_unknown';
        result.errorMessage = `Outcome unknown (${error?.message ?? 'no answer'}); it was not resent. Resume the run to settle it.`;
      } else {
        result.errorCode = outcome.error.code ?? outcome.error.type ?? 'failed';
        result.errorMessage = outcome.error.message;
      }
      const requestId = error?.requestId;
      if (requestId !== undefined) result.requestId = requestId;
      return result;
    }
    case 'not_run':
      result.outcome = 'skipped';
      result.errorCode = 'not_run';
      result.errorMessage = 'Not applied: the run stopped first. Resume the run to apply it.';
      return result;
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

/** Whether a row of this outcome also goes to its sheet's failed.csv. */
export function isFailedOutcome(outcome: RowOutcome): boolean {
  return outcome === 'failed' || outcome === 'invalid';
}

/** The `mbulk_error` of a failed row. */
export function failedMessage(result: RowResult): string {
  return result.errorMessage ?? result.errorCode ?? result.outcome;
}

/** A count of each outcome, all 0. */
export function zeroCounts(): Record<RowOutcome, number> {
  return { created: 0, updated: 0, unchanged: 0, skipped: 0, left_out: 0, failed: 0, invalid: 0 };
}

function isBatch(rows: SheetRow | readonly SheetRow[]): rows is readonly SheetRow[] {
  return Array.isArray(rows);
}

function text(value: string | undefined): string {
  return value === undefined ? '' : neutralizeResultText(value);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
