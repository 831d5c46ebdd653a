import type { ColumnSpec, ColumnType, SheetHandle, SheetWriter } from '../sheets/sheet-writer.js';

/**
 * Shared pieces of the catalog exports (products, customers, templates): column helpers, the
 * money column type for `--money units|minor`, and a row writer that honours backpressure.
 */

export type MoneyMode = 'units' | 'minor';

/** A column whose header is its key (exports use the import's canonical names). */
export function column(key: string, type: ColumnType, width?: number): ColumnSpec {
  return width === undefined ? { key, header: key, type } : { key, header: key, type, width };
}

/** Money columns: currency units with the store's decimals, or raw minor units with `minor`. */
export function moneyType(mode: MoneyMode): ColumnType {
  return mode === 'minor' ? 'integer' : 'money';
}

/** Writes one row and waits when the writer asks to. */
export async function writeRow(sheet: SheetHandle, row: Readonly<Record<string, unknown>>): Promise<void> {
  const pending = sheet.write(row);
  if (pending) await pending;
}

/**
 * Runs `body` with the writer and closes it. On failure the writer is aborted instead (temporary
 * files discarded, the previous target files left untouched) and the error is rethrown, so a failed
 * export never publishes a partial file. The output is complete only when this resolves.
 */
export async function withWriter<T>(writer: SheetWriter, body: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await body();
  } catch (error) {
    await writer.abort().catch(() => undefined);
    throw error;
  }
  await writer.close();
  return result;
}

/** The format of an export file from its extension (`.csv`, `.xlsx`, `.json`), or undefined. */
export function formatOfPath(path: string): 'csv' | 'xlsx' | 'json' | undefined {
  const m = /\.([^./\\]+)$/.exec(path);
  const ext = m?.[1]?.toLowerCase();
  return ext === 'csv' || ext === 'xlsx' || ext === 'json' ? ext : undefined;
}
