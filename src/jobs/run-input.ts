import { copyFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { RunDirectory } from '../apply/run-directory.js';
import {
  writeRowFiles,
  type RowFilesSummary,
  type RowOutcome,
  type RowResult,
} from '../apply/results-file.js';
import { readSheet } from '../sheets/read-sheet.js';
import type { SheetRow } from '../sheets/sheet-row.js';

/** Where a run keeps its own copy of an input file: results.csv is written from it after applying. */
export interface RunInput {
  /** The path the user gave. */
  original: string;
  /** File name of the copy inside the run directory. */
  copy: string;
  /** XLSX sheet read, if any. */
  sheet?: string | undefined;
  /** The header row when it is not the first non-blank row (`--header-row`, or found below a title). */
  headerRow?: number | undefined;
}

/**
 * Copies an input file into the run directory, so that results.csv and failed.csv can be written
 * (and the run resumed) even if the user's file changes or moves afterwards.
 */
export function keepRunInput(run: RunDirectory, file: string, role: string, sheet?: string): RunInput {
  const copy = `input-${role}${extname(file).toLowerCase() || '.csv'}`;
  copyFileSync(file, join(run.dir, copy));
  return { original: file, copy, sheet };
}

export function runInputPath(run: RunDirectory, input: RunInput): string {
  return join(run.dir, input.copy);
}

/** The sheet name rows of this input carry (the CSV base name, or the XLSX sheet). */
export function inputLabel(input: RunInput): string {
  return input.sheet ?? basename(input.original);
}

export interface InputResultsOptions {
  /** Outcome of a row with no entry in `byRow` (e.g. `unchanged`). */
  otherwise: RowOutcome;
  /** Extra results.csv cells per row number (added to the row's cells, never to failed.csv's columns). */
  extra?: ReadonlyMap<number, Readonly<Record<string, string | undefined>>>;
  extraColumns?: readonly string[];
}

/**
 * Writes results.csv (every input row) and failed.csv (failed and invalid rows, in the input's own
 * columns) by re-reading the run's copy of a single-sheet input.
 */
export async function writeInputResults(
  run: RunDirectory,
  input: RunInput,
  byRow: ReadonlyMap<number, RowResult>,
  options: InputResultsOptions,
): Promise<RowFilesSummary> {
  const label = inputLabel(input);
  const reader = readSheet(runInputPath(run, input), input.sheet ? { sheet: input.sheet } : {});
  const info = await reader.open();
  return writeRowFiles({
    rows: options.extra ? withExtraCells(reader, options.extra) : reader,
    resultOf: (row) =>
      byRow.get(row.rowNumber) ?? { sheet: label, row: row.rowNumber, outcome: options.otherwise },
    resultsFile: run.file('results'),
    failedFiles: {
      [info.sheet]: { file: run.file('failed'), columns: info.columns, delimiter: info.delimiter },
    },
    ...(options.extraColumns ? { extraColumns: options.extraColumns } : {}),
  });
}

/** Adds cells to some rows (by row number) without overwriting the input's own cells. */
export async function* withExtraCells(
  rows: AsyncIterable<SheetRow>,
  extra: ReadonlyMap<number, Readonly<Record<string, string | undefined>>>,
): AsyncGenerator<SheetRow> {
  for await (const row of rows) {
    const add = extra.get(row.rowNumber);
    if (!add) {
      yield row;
      continue;
    }
    const cells = { ...row.cells };
    for (const [k, v] of Object.entries(add)) if (v !== undefined && !(k in row.cells)) cells[k] = v;
    yield { ...row, cells };
  }
}
