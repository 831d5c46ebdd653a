import { csvLine } from '../sheets/csv-file-writer.js';
import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import {
  failedColumns,
  failedFields,
  failedMessage,
  isFailedOutcome,
  PlainResultLines,
  resultFields,
  zeroCounts,
  type RowOutcome,
  type RowResult,
} from './row-result.js';

/** The lines of consecutive rows whose results were known ahead. */
export interface AheadLines {
  /** Their results.csv lines, UTF-8. */
  results: Uint8Array;
  rows: number;
  /** Their failed.csv lines, by the sheet the rows carry (none: no failed row among them). */
  failed?: Map<string, { lines: string; rows: number }>;
}

/** Lines made ahead, or a row held in its place until its result is known. */
export type AheadPiece = { lines: AheadLines } | { held: SheetRow };

/** What was made ahead: the pieces in the order of the rows, and the outcomes of their lines. */
export interface MadeLines {
  pieces: AheadPiece[];
  counts: Record<RowOutcome, number>;
}

/** What a held row is counted for, besides its cells' text: the row, its cells object, their strings. */
const HELD_ROW_BYTES = 256;

/** Bytes of the buffers the lines are encoded into as they are made. */
const CHUNK_BYTES = 256 * 1024;

/**
 * results.csv and failed.csv lines made ahead, while a run's operations go: the lines of the rows
 * whose result is known already, in order, and in their places the rows held until their change
 * has an outcome. writeRowFiles writes them as they are, then the rows still to read. The lines
 * are exactly those writeRowFiles would write for the same rows and results; results.csv's are
 * encoded as they are made (no long string to flatten later).
 */
export class RowLinesAhead {
  private readonly pieces: AheadPiece[] = [];
  private readonly failedTargets = new Map<string, { columns: SheetColumn[]; delimiter: string }>();
  private readonly counts = zeroCounts();
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Where the open piece starts in `chunk`, and where its lines end. */
  private start = 0;
  private used = 0;
  private rows = 0;
  private failed: Map<string, { lines: string; rows: number }> | undefined;
  private readonly plain: PlainResultLines;
  /** Bytes kept: the lines made (failed.csv's counted as UTF-16), and the rows held. */
  private kept = 0;

  constructor(
    private readonly extraColumns: readonly string[],
    failedFiles: Readonly<
      Record<string, { columns: readonly SheetColumn[]; delimiter?: string | undefined }>
    >,
    /** The delimiter of results.csv, and of a failed file that names none (writeRowFiles' `csv`). */
    private readonly delimiter = ',',
    /** Bytes kept at most (lines made and rows held): past them, `full` says to stop reading ahead. */
    private readonly maxBytes = 64 * 2 ** 20,
  ) {
    this.plain = new PlainResultLines(delimiter, extraColumns);
    for (const [sheet, target] of Object.entries(failedFiles)) {
      this.failedTargets.set(sheet, {
        columns: failedColumns(target.columns),
        delimiter: target.delimiter ?? delimiter,
      });
    }
  }

  /** The lines of a row whose result is known now. */
  add(row: SheetRow, result: RowResult): void {
    const line =
      this.plain.line(result) ?? csvLine(resultFields(result, row.cells, this.extraColumns), this.delimiter);
    this.put(line, result.outcome);
    if (isFailedOutcome(result.outcome)) {
      const target = this.failedTargets.get(row.sheet);
      if (target) {
        const line = csvLine(failedFields(target.columns, row, failedMessage(result)), target.delimiter);
        this.failed ??= new Map();
        const lines = this.failed.get(row.sheet);
        if (lines) {
          lines.lines += line;
          lines.rows++;
        } else this.failed.set(row.sheet, { lines: line, rows: 1 });
        this.kept += 2 * line.length;
      }
    }
  }

  /**
   * The lines of a row with no result of its own: `{ sheet: label, row, outcome }`, most of a big
   * sheet's rows (see PlainResultLines: no result object made for it).
   */
  addPlain(row: SheetRow, label: string, outcome: RowOutcome): void {
    // A failed row also has a failed.csv line: `add` makes both.
    const line = isFailedOutcome(outcome) ? undefined : this.plain.lineOf(label, row.rowNumber, outcome);
    if (line === undefined) this.add(row, { sheet: label, row: row.rowNumber, outcome });
    else this.put(line, outcome);
  }

  /**
   * A row whose result is known only once the operations ended: its lines are made then. It is
   * kept with copies of its cells: the parser's cells are slices of the text of their whole batch,
   * which a kept row would keep alive (~64 KB for each batch with a change).
   */
  hold(row: SheetRow): void {
    this.close();
    const cells = structuredClone(row.cells);
    let chars = 0;
    for (const value of Object.values(cells)) if (typeof value === 'string') chars += value.length;
    this.kept += HELD_ROW_BYTES + 2 * chars;
    this.pieces.push({ held: { ...row, cells } });
  }

  /** Whether what is kept reached `maxBytes`: read no further ahead. */
  get full(): boolean {
    return this.kept >= this.maxBytes;
  }

  /** Everything made ahead, in the order of the rows. */
  take(): MadeLines {
    this.close();
    return { pieces: this.pieces.splice(0), counts: { ...this.counts } };
  }

  /** Encodes a results.csv line after the open piece's (a new buffer when it has no room). */
  private put(line: string, outcome: RowOutcome): void {
    // At most 3 bytes of UTF-8 per UTF-16 code unit: room for that, or the piece ends here.
    if (this.used + line.length * 3 > this.chunk.length) {
      this.close();
      this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
      this.start = 0;
      this.used = 0;
    }
    const bytes = this.chunk.write(line, this.used);
    this.used += bytes;
    this.kept += bytes;
    this.rows++;
    this.counts[outcome]++;
  }

  /** Ends the open piece (its lines stay where they are in `chunk`). */
  private close(): void {
    if (this.rows === 0) return;
    const lines: AheadLines = { results: this.chunk.subarray(this.start, this.used), rows: this.rows };
    if (this.failed) lines.failed = this.failed;
    this.pieces.push({ lines });
    this.start = this.used;
    this.rows = 0;
    this.failed = undefined;
  }
}
