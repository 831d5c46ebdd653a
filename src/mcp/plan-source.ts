import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Papa from 'papaparse';
import { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';

/** A sheet cell given inline: text, a number, a boolean, or empty. */
const CellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * Where `plan_import` reads its sheet: exactly one of a file on the server's machine, an https URL,
 * CSV text, or JSON records (one object per row, keys are the column headers), so an assistant can
 * build a sheet itself.
 */
export const PlanSourceSchema = z
  .object({
    file: z.string().min(1).optional().describe("A CSV or XLSX file path on the server's machine"),
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
  /** Relative file paths are read from here. */
  cwd: string;
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
  if (source.file !== undefined) return { file: resolve(options.cwd, source.file), dispose: () => {} };
  if (source.url !== undefined) {
    if (!/^https:\/\//i.test(source.url)) throw new UsageError('a source url must be https://', 'source');
    const file = await options.download(source.url);
    return { file, dispose: () => rmSync(dirname(file), { recursive: true, force: true }) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-mcp-'));
  const file = join(dir, options.inlineName);
  writeFileSync(file, source.csv ?? recordsToCsv(source.records ?? []));
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
  const data = records.map((r) => columns.map((c) => r[c] ?? ''));
  return `${Papa.unparse({ fields: columns, data }, { newline: '\n' })}\n`;
}
