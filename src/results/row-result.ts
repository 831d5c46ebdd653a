import type { RowIssue } from '../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellText } from '../sheets/cell-result.js';
import { csvLine } from '../sheets/csv-file-writer.js';
import { neutralizeResultText } from '../sheets/neutralize-formula.js';

/**
 * A line of results.csv or failed.csv: a row's outcome and the fields it is written as (the files
 * themselves: results-file.ts). Text we write is neutralised (see results-file.ts).
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

function text(value: string | undefined): string {
  return value === undefined ? '' : neutralizeResultText(value);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
