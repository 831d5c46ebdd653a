import {
  invalidRowResult,
  writeRowFiles,
  type RowOutcome,
  type RowResult,
} from '../../apply/results-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { readSheet, type SheetInfo, type SheetReader } from '../../sheets/read-sheet.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import { inputLabel, runInputPath, type RunInput } from '../run-input.js';
import { changeRowResult } from './change-outcome.js';
import type {
  ChangeOutcome,
  DeclaredRow,
  FailedRow,
  ResultSheet,
  SheetResults,
  SheetSummary,
} from './job-definition.js';

type Cells = Readonly<Record<string, string | undefined>>;

/**
 * results.csv (every row of every input sheet, in order: its change's outcome, else what the kind
 * declared, else `otherwise`) and each sheet's failed-rows file, by re-reading the run's copies of
 * the inputs; and the failed rows: failed changes (one per row they carried), errors of invalid
 * rows, and declared failed or invalid rows, in the order of the input.
 */
export async function writeSheetResults(
  run: RunDirectory,
  input: RunInput,
  declared: SheetResults,
  changes: readonly ChangeOutcome[],
  counted: (change: ChangeOutcome) => boolean,
): Promise<SheetSummary> {
  const sheets: readonly ResultSheet[] = declared.sheets ?? [
    { input, label: inputLabel(input), failedFile: run.file('failed') },
  ];
  const indexOf = new Map<string, number>();
  sheets.forEach((s, i) => {
    if (!indexOf.has(s.label)) indexOf.set(s.label, i);
  });
  const at = (sheet: string) => indexOf.get(sheet) ?? 0;
  const key = (sheet: string, row: number) => rowKey(at(sheet), row);
  const labelOf = (sheet: string) => (sheets[at(sheet)] as ResultSheet).label;

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

  const opened: { reader: SheetReader; info: SheetInfo }[] = [];
  for (const s of sheets) {
    const reader = readSheet(runInputPath(run, s.input), {
      ...(s.input.sheet ? { sheet: s.input.sheet } : {}),
      ...(s.input.headerRow ? { headerRow: s.input.headerRow } : {}),
    });
    opened.push({ reader, info: await reader.open() });
  }
  const rows = await writeRowFiles({
    // Each row is tagged with its sheet's index: it finds its result, and its failed-rows file.
    rows: tagged(
      opened.map((o) => o.reader),
      extra,
    ),
    resultOf: (row) =>
      results.get(rowKey(Number(row.sheet), row.rowNumber)) ?? {
        sheet: (sheets[Number(row.sheet)] as ResultSheet).label,
        row: row.rowNumber,
        outcome: otherwise,
      },
    resultsFile: run.file('results'),
    failedFiles: Object.fromEntries(
      sheets.map((s, i) => {
        const { info } = opened[i] as { info: SheetInfo };
        return [String(i), { file: s.failedFile, columns: info.columns, delimiter: info.delimiter }];
      }),
    ),
    ...(declared.extraColumns ? { extraColumns: declared.extraColumns } : {}),
  });
  // Failed rows written per sheet, by the sheet's own name.
  const failedRows: Record<string, number> = {};
  opened.forEach(({ info }, i) => {
    failedRows[info.sheet] = (failedRows[info.sheet] ?? 0) + (rows.failedRows[String(i)] ?? 0);
  });
  return {
    rows: { counts: rows.counts, failedRows },
    failedRows: failed.map(({ at: _at, ...f }) => f),
  };
}

/** One number per row of every sheet (the sheet's index, its row number), for the maps of results. */
function rowKey(sheet: number, row: number): number {
  return sheet * 2 ** 32 + row;
}

/**
 * The rows of every sheet in turn, in the readers' batches, each tagged with its sheet's index,
 * with the extra cells of its result added (never over the input's own cells).
 */
async function* tagged(
  readers: readonly Pick<SheetReader, 'batches'>[],
  extra: ReadonlyMap<number, Cells>,
): AsyncGenerator<SheetRow[]> {
  for (const [i, reader] of readers.entries()) {
    const sheet = String(i);
    for await (const batch of reader.batches()) {
      yield batch.map((row) => {
        const add = extra.size === 0 ? undefined : extra.get(rowKey(i, row.rowNumber));
        let cells = row.cells;
        if (add) {
          cells = { ...row.cells };
          for (const [k, v] of Object.entries(add)) if (v !== undefined && !(k in row.cells)) cells[k] = v;
        }
        return { sheet, rowNumber: row.rowNumber, cells };
      });
    }
  }
}
