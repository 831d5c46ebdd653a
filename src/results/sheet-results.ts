import type { RunDirectory } from '../apply/run-directory.js';
import { inputLabel, runInputPath, type RunInput } from '../apply/run-input.js';
import type { RowIssue } from '../mapping/row-issue.js';
import { readSheet, type SheetInfo, type SheetReader } from '../sheets/read-sheet.js';
import type { SheetRow } from '../sheets/sheet-row.js';
import { changeRowResult, type ChangeOutcome, type RowRef } from './change-outcome.js';
import { writeRowFiles, type RowFilesSummary, type WriteRowFilesOptions } from './results-file.js';
import { RowLinesAhead, type MadeLines } from './row-lines-ahead.js';
import { invalidRowResult, type RowOutcome, type RowResult } from './row-result.js';

/** results.csv and failed.csv of a run planned from sheets, declared by the kind (the runner writes them). */
export interface SheetResults {
  /**
   * The input sheets results.csv lists, in this order, each with its failed-rows file (default:
   * the plan's `input`, label `inputLabel(input)`, failed.csv). A change's row goes to the sheet
   * whose label it carries (else the first).
   */
  sheets?: readonly ResultSheet[];
  /** Issues that make their rows invalid: each error is a failed row. */
  invalid?: readonly RowIssue[];
  /**
   * Results of rows no change carried (unchanged, skipped…, or invalid rows described by the kind:
   * each a failed row), with extra cells; a later one replaces an earlier one of the same row.
   */
  rows?: readonly DeclaredRow[];
  /** The outcome of a row nothing names (default `unchanged`). */
  otherwise?: RowOutcome;
  /**
   * What a row that ended well still says (e.g. images left out on purpose): its code, message
   * and column go on the row's results.csv line unless the row has an error of its own.
   */
  notes?: readonly RowIssue[];
  /** Extra results.csv columns (cells from `rows` and the changes' `extra`). */
  extraColumns?: readonly string[];
}

export interface ResultSheet {
  input: RunInput;
  /** The sheet label its rows carry in the plan. */
  label: string;
  /** Where its failed rows go, in its own columns. */
  failedFile: string;
}

/** A row no change carried: its result, or (without `outcome`) only extra cells for the result it has. */
export type DeclaredRow = Omit<RowResult, 'outcome'> & {
  outcome?: RowOutcome | undefined;
  extra?: Readonly<Record<string, string | undefined>> | undefined;
};

export interface FailedRow {
  sheet: string;
  row: number;
  code: string;
  message: string;
}

/** The summary of a run planned from a sheet: results.csv / failed.csv and the rows to fix. */
export interface SheetSummary {
  rows: RowFilesSummary;
  /** Failed changes (one per input row they carried) and invalid rows, in the order of the input. */
  failedRows: FailedRow[];
}

type Cells = Readonly<Record<string, string | undefined>>;

/** The readers of the input sheets, each with what its header said. */
type Opened = { reader: SheetReader; info: SheetInfo }[];

/** The input sheets results.csv lists, and how a plan's sheet label finds its own. */
class ResultSheets {
  readonly list: readonly ResultSheet[];
  private readonly indexOf = new Map<string, number>();

  constructor(run: RunDirectory, input: RunInput, declared: SheetResults) {
    this.list = declared.sheets ?? [{ input, label: inputLabel(input), failedFile: run.file('failed') }];
    this.list.forEach((s, i) => {
      if (!this.indexOf.has(s.label)) this.indexOf.set(s.label, i);
    });
  }

  /** The index of the sheet a label names (else the first). */
  at(sheet: string): number {
    return this.indexOf.get(sheet) ?? 0;
  }

  key(sheet: string, row: number): number {
    return rowKey(this.at(sheet), row);
  }

  labelOf(sheet: string): string {
    return this.labelAt(this.at(sheet));
  }

  /** The label of the sheet at an index (a tagged row's `sheet`). */
  labelAt(index: number): string {
    return (this.list[index] as ResultSheet).label;
  }

  /** Opens a reader of every sheet's run copy, from its header row. */
  async open(run: RunDirectory): Promise<Opened> {
    const opened: Opened = [];
    try {
      for (const s of this.list) {
        const reader = readSheet(runInputPath(run, s.input), {
          ...(s.input.sheet ? { sheet: s.input.sheet } : {}),
          ...(s.input.headerRow ? { headerRow: s.input.headerRow } : {}),
        });
        opened.push({ reader, info: await reader.open() });
      }
    } catch (error) {
      // The sheets opened before the one that failed are let go too.
      for (const { reader } of opened) await reader.close();
      throw error;
    }
    return opened;
  }
}

/** Each row's result and extra cells, from what the kind declared and the changes' outcomes. */
interface RowResults {
  results: Map<number, RowResult>;
  extra: Map<number, Cells>;
  /** The failed rows, in the order of the input. */
  failed: FailedRow[];
}

function rowResults(
  sheets: ResultSheets,
  declared: SheetResults,
  changes: readonly ChangeOutcome[],
  counted: (change: ChangeOutcome) => boolean,
): RowResults {
  const labelOf = (sheet: string) => sheets.labelOf(sheet);
  const key = (sheet: string, row: number) => sheets.key(sheet, row);
  const at = (sheet: string) => sheets.at(sheet);
  const otherwise: RowOutcome = declared.otherwise ?? 'unchanged';
  const results = new Map<number, RowResult>();
  const extra = new Map<number, Cells>();
  const failed: (FailedRow & { at: number })[] = [];
  const invalid = new Map<number, RowIssue[]>();
  for (const i of declared.invalid ?? []) {
    if (i.severity !== 'error') continue;
    const k = key(i.sheet, i.rowNumber);
    const list = invalid.get(k);
    if (list) list.push(i);
    else invalid.set(k, [i]);
  }
  for (const [k, issues] of invalid) {
    const first = issues[0] as RowIssue;
    results.set(k, invalidRowResult(labelOf(first.sheet), first.rowNumber, issues));
  }
  const declaredResults = new Map<number, DeclaredRow>();
  for (const r of declared.rows ?? []) {
    const k = key(r.sheet, r.row);
    if (r.outcome !== undefined) {
      const { extra: _cells, ...result } = r;
      results.set(k, { ...result, outcome: r.outcome, sheet: labelOf(r.sheet) });
      declaredResults.set(k, r);
    }
    if (r.extra) extra.set(k, { ...r.extra });
  }
  for (const c of changes) {
    for (const ref of c.rows) {
      const k = key(ref.sheet, ref.row);
      results.set(k, changeRowResult(labelOf(ref.sheet), ref.row, c));
      declaredResults.delete(k);
      if (c.extra) extra.set(k, { ...c.extra });
      if (counted(c)) {
        const { code, message } = c.failure ?? { code: 'error', message: '' };
        failed.push({ sheet: ref.sheet, row: ref.row, code, message, at: at(ref.sheet) });
      }
    }
  }
  for (const i of declared.invalid ?? []) {
    if (i.severity === 'error') {
      failed.push({ sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message, at: at(i.sheet) });
    }
  }
  for (const r of declaredResults.values()) {
    if (r.outcome === 'failed' || r.outcome === 'invalid') {
      const { sheet, row } = r;
      failed.push({
        sheet,
        row,
        code: r.errorCode ?? r.outcome,
        message: r.errorMessage ?? '',
        at: at(sheet),
      });
    }
  }
  failed.sort((a, b) => a.at - b.at || a.row - b.row);
  for (const note of declared.notes ?? []) {
    const k = key(note.sheet, note.rowNumber);
    const r = results.get(k) ?? { sheet: labelOf(note.sheet), row: note.rowNumber, outcome: otherwise };
    if (r.errorCode !== undefined || r.outcome === 'failed' || r.outcome === 'invalid') continue;
    results.set(k, {
      ...r,
      errorCode: note.code,
      errorMessage: note.message,
      ...(note.column !== undefined ? { column: note.column } : {}),
    });
  }
  return { results, extra, failed: failed.map(({ at: _at, ...f }) => f) };
}

/** A row's result: its own, else the sheet's `otherwise`. */
function resultOf(sheets: ResultSheets, maps: RowResults, otherwise: RowOutcome, row: SheetRow): RowResult {
  return (
    maps.results.get(rowKey(Number(row.sheet), row.rowNumber)) ?? {
      sheet: sheets.labelAt(Number(row.sheet)),
      row: row.rowNumber,
      outcome: otherwise,
    }
  );
}

/** The failed files of the sheets, by the index their rows carry. */
function failedFilesOf(
  sheets: ResultSheets,
  opened: readonly { info: SheetInfo }[],
): WriteRowFilesOptions['failedFiles'] {
  return Object.fromEntries(
    sheets.list.map((s, i) => {
      const { info } = opened[i] as { info: SheetInfo };
      return [String(i), { file: s.failedFile, columns: info.columns, delimiter: info.delimiter }];
    }),
  );
}

/**
 * results.csv and failed.csv made ahead, while a run's operations go: the rows of the plan's
 * changes (`held`) wait in their places for their outcome; every other row gets its lines now, from
 * what the kind declared (no change names it, so its result cannot change). Reading starts at
 * once, a batch per turn of the event loop (the operations' own work goes between), and stops at
 * the end of the inputs or once 64 MiB (`maxBytes`) of lines and held rows are kept.
 * writeSheetResults writes what was made, then reads on from there.
 */
export class SheetResultsAhead {
  private readonly sheets: ResultSheets;
  private readonly held: Set<number>;
  /** Once the inputs are open: their readers, the rows not read yet, the lines made. */
  private reading: { opened: Opened; rows: AsyncIterator<SheetRow[]>; lines: RowLinesAhead } | undefined;
  private stopped = false;
  private failure: unknown;
  private readonly rendering: Promise<void>;
  private read = 0;

  constructor(
    private readonly run: RunDirectory,
    input: RunInput,
    private readonly declared: SheetResults,
    held: readonly RowRef[],
    maxBytes?: number,
  ) {
    this.sheets = new ResultSheets(run, input, declared);
    this.held = new Set(held.map((r) => this.sheets.key(r.sheet, r.row)));
    this.rendering = this.render(maxBytes);
  }

  /** Rows read ahead so far (held ones included). */
  get rowsRead(): number {
    return this.read;
  }

  /**
   * Stops reading ahead (at the end of a batch) and hands over what was made, unless it failed or
   * a change names a row it did not hold (then nothing is used, and the inputs are let go).
   */
  async take(changes: readonly ChangeOutcome[]): Promise<MadeAhead | undefined> {
    await this.stop();
    const holds = changes.every((c) => c.rows.every((r) => this.held.has(this.sheets.key(r.sheet, r.row))));
    const { reading } = this;
    if (this.failure !== undefined || !holds || reading === undefined) {
      await this.discard();
      return undefined;
    }
    return { sheets: this.sheets, opened: reading.opened, rest: reading.rows, lines: reading.lines.take() };
  }

  /** Stops and lets go of the inputs: nothing made ahead is used. */
  async discard(): Promise<void> {
    await this.stop();
    if (this.reading === undefined) return;
    await this.reading.rows.return?.();
    for (const { reader } of this.reading.opened) await reader.close();
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    await this.rendering;
  }

  private async render(maxBytes: number | undefined): Promise<void> {
    try {
      const opened = await this.sheets.open(this.run);
      const lines = new RowLinesAhead(
        this.declared.extraColumns ?? [],
        failedFilesOf(this.sheets, opened),
        ',',
        maxBytes,
      );
      const rows = tagged(opened.map((o) => o.reader));
      this.reading = { opened, rows, lines };
      // What the kind declared: the result of every row no change names.
      const maps = rowResults(this.sheets, this.declared, [], () => false);
      const otherwise = this.declared.otherwise ?? 'unchanged';
      const { held, sheets } = this;
      while (!this.stopped && !lines.full) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.stopped) break;
        const next = await rows.next();
        if (next.done === true) break;
        for (const row of next.value) {
          const k = rowKey(Number(row.sheet), row.rowNumber);
          if (held.has(k)) {
            lines.hold(row);
            continue;
          }
          const own = maps.results.get(k);
          const withCells = addExtra(row, maps.extra);
          if (own !== undefined) lines.add(withCells, own);
          else lines.addPlain(withCells, sheets.labelAt(Number(row.sheet)), otherwise);
        }
        this.read += next.value.length;
      }
    } catch (error) {
      this.failure = error;
    }
  }
}

/** What SheetResultsAhead made, for writeSheetResults. */
interface MadeAhead {
  sheets: ResultSheets;
  opened: Opened;
  /** The rows not read ahead. */
  rest: AsyncIterator<SheetRow[]>;
  lines: MadeLines;
}

/**
 * results.csv (every row of every input sheet, in order: its change's outcome, else what the kind
 * declared, else `otherwise`) and each sheet's failed-rows file, by re-reading the run's copies of
 * the inputs; and the failed rows: failed changes (one per row they carried), errors of invalid
 * rows, and declared failed or invalid rows, in the order of the input. With `ahead` (made while
 * the operations went), its lines are written first and the inputs read on from where it stopped;
 * unless a change names a row it did not hold, or it failed: then the inputs are read again.
 */
export async function writeSheetResults(
  run: RunDirectory,
  input: RunInput,
  declared: SheetResults,
  changes: readonly ChangeOutcome[],
  counted: (change: ChangeOutcome) => boolean,
  ahead?: SheetResultsAhead,
): Promise<SheetSummary> {
  const made = await ahead?.take(changes);
  const sheets = made?.sheets ?? new ResultSheets(run, input, declared);
  const maps = rowResults(sheets, declared, changes, counted);
  const otherwise: RowOutcome = declared.otherwise ?? 'unchanged';
  const opened = made?.opened ?? (await sheets.open(run));
  const rest = made?.rest ?? tagged(opened.map((o) => o.reader));
  // The held rows get the extra cells their changes' outcomes brought, as the rows not read yet do.
  const lines = made && {
    counts: made.lines.counts,
    pieces: made.lines.pieces.map((p) => ('held' in p ? { held: addExtra(p.held, maps.extra) } : p)),
  };
  const written = await writeRowFiles(
    {
      rows: withExtra(rest, maps.extra),
      resultOf: (row) => resultOf(sheets, maps, otherwise, row),
      resultsFile: run.file('results'),
      failedFiles: failedFilesOf(sheets, opened),
      ...(declared.extraColumns ? { extraColumns: declared.extraColumns } : {}),
    },
    lines,
  );
  // Failed rows written per sheet, by the sheet's own name.
  const failedRows: Record<string, number> = {};
  opened.forEach(({ info }, i) => {
    failedRows[info.sheet] = (failedRows[info.sheet] ?? 0) + (written.failedRows[String(i)] ?? 0);
  });
  return { rows: { counts: written.counts, failedRows }, failedRows: maps.failed };
}

/** One number per row of every sheet (the sheet's index, its row number), for the maps of results. */
function rowKey(sheet: number, row: number): number {
  return sheet * 2 ** 32 + row;
}

/** The rows of every sheet in turn, in the readers' batches, each tagged with its sheet's index. */
async function* tagged(readers: readonly Pick<SheetReader, 'batches'>[]): AsyncGenerator<SheetRow[]> {
  for (const [i, reader] of readers.entries()) {
    const sheet = String(i);
    for await (const batch of reader.batches()) {
      yield batch.map((row) => ({ sheet, rowNumber: row.rowNumber, cells: row.cells }));
    }
  }
}

/** Tagged rows with the extra cells of their results added. */
async function* withExtra(
  rows: AsyncIterator<SheetRow[]>,
  extra: ReadonlyMap<number, Cells>,
): AsyncGenerator<SheetRow[]> {
  try {
    for (let next = await rows.next(); next.done !== true; next = await rows.next()) {
      yield extra.size === 0 ? next.value : next.value.map((row) => addExtra(row, extra));
    }
  } finally {
    // Stopped early (a write failed): the readers under `rows` are let go.
    await rows.return?.();
  }
}

/** A tagged row with the extra cells of its result added (never over the input's own cells). */
function addExtra(row: SheetRow, extra: ReadonlyMap<number, Cells>): SheetRow {
  const add = extra.size === 0 ? undefined : extra.get(rowKey(Number(row.sheet), row.rowNumber));
  if (!add) return row;
  const cells = { ...row.cells };
  for (const [k, v] of Object.entries(add)) if (v !== undefined && !(k in row.cells)) cells[k] = v;
  return { ...row, cells };
}
