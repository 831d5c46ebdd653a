import { copyFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { RunDirectory } from './run-directory.js';

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
