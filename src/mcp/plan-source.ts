import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import { csvLine } from '../sheets/csv-file-writer.js';

/** A sheet cell given inline: text, a number, a boolean, or empty. */
const CellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * Where `plan_import` reads its sheet: exactly one of a file on the server's machine, an https URL,
 * CSV text, or JSON records (one object per row, keys are the column headers), so an assistant can
 * build a sheet itself.
 */
export const PlanSourceSchema = z
  .object({
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A CSV or XLSX file on the server's machine, relative to the directory its operator lets it read (--files-root; absolute paths only inside it)",
      ),
    url: z.string().min(1).optional().describe('An https:// URL of a CSV or XLSX file'),
    csv: z.string().min(1).optional().describe('The sheet as CSV text, header row first'),
    records: z
      .array(z.record(z.string(), CellSchema))
      .min(1)
      .optional()
      .describe('The sheet as JSON records: one object per row, keys are the column headers'),
  })
  .describe('Exactly one of file, url, csv, records');
export type PlanSource = z.infer<typeof PlanSourceSchema>;

/** A source made into a file the planners read, and how to let go of it. */
export interface SourceFile {
  file: string;
  /** Removes what was written or downloaded (the run keeps its own copy of the input). */
  dispose(): void;
}

export interface OpenSourceOptions {
  /**
   * The one directory files are read from: relative paths are resolved in it, and a path that
   * leaves it (`..`, an absolute path elsewhere, a symlink pointing out) is refused.
   */
  filesRoot: string;
  /** Downloads an https:// source into a file of its own directory (removed after planning). */
  download(url: string): Promise<string>;
  /** The file name an inline sheet is given (it names the run's copy of the input). */
  inlineName: string;
}

/** Makes a file of the source: a path as given, a download, or the inline rows written as CSV. */
export async function openPlanSource(source: PlanSource, options: OpenSourceOptions): Promise<SourceFile> {
  const given = (['file', 'url', 'csv', 'records'] as const).filter((k) => source[k] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      `give exactly one source: file, url, csv or records (got ${given.length === 0 ? 'none' : given.join(', ')})`,
      'source',
    );
  }
  if (source.file !== undefined)
    return { file: confinedFile(source.file, options.filesRoot), dispose: () => {} };
  if (source.url !== undefined) {
    if (!/^https:\/\//i.test(source.url)) throw new UsageError('a source url must be https://', 'source');
    const file = await options.download(source.url);
    return { file, dispose: () => rmSync(dirname(file), { recursive: true, force: true }) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-mcp-'));
  const file = join(dir, options.inlineName);
  writeFileAtomic(file, source.csv ?? recordsToCsv(source.records ?? []));
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** JSON records as CSV: every key of any record is a column, in the order first seen. */
export function recordsToCsv(records: readonly Record<string, string | number | boolean | null>[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const r of records)
    for (const k of Object.keys(r))
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
  let text = csvLine(columns);
  for (const r of records) text += csvLine(columns.map((c) => String(r[c] ?? '')));
  return text;
}

/** Whether `path` is `root` or inside it (both absolute). */
function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * `file` resolved in `root`, refused unless it stays inside it as written and once every symlink
 * is followed (the real path is what is read). A file that does not exist is the planner's error.
 */
export function confinedFile(file: string, root: string): string {
  const refused = (why: string) =>
    new UsageError(
      `source.file ${JSON.stringify(file)} ${why}; this server reads files only inside ${root} (the operator sets it with: mbulk mcp --files-root DIR). Give a path inside it, or send the sheet as source.csv or source.records`,
      'source',
    );
  const realRoot = realpathSync(root);
  const path = resolve(root, file);
  if (!inside(path, root) && !inside(path, realRoot)) throw refused('is outside the files root');
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // Not there: the planner says so; its directory must not lead out either.
      const parent = realParent(path);
      if (parent !== undefined && !inside(parent, realRoot))
        throw refused('leads outside the files root (a symlink)');
      return path;
    }
    throw error;
  }
  if (!inside(real, realRoot)) throw refused('leads outside the files root (a symlink)');
  return real;
}

/** The real path of the nearest existing directory above `path`. */
function realParent(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      return realpathSync(dir);
    } catch {
      if (dirname(dir) === dir) return undefined;
    }
  }
}
