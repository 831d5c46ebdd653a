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
 * Runs `body` with the writer and closes it (also on failure, so files and spools are released;
 * the first error wins). The output is complete only when this resolves.
 */
export async function withWriter<T>(writer: SheetWriter, body: () => Promise<T>): Promise<T> {
  let ok = false;
  try {
    const result = await body();
    ok = true;
    return result;
  } finally {
    await writer.close().catch((error: unknown) => {
      if (ok) throw error;
    });
  }
}

/** The format of an export file from its extension (`.csv`, `.xlsx`, `.json`), or undefined. */
export function formatOfPath(path: string): 'csv' | 'xlsx' | 'json' | undefined {
  const m = /\.([^./\\]+)$/.exec(path);
  const ext = m?.[1]?.toLowerCase();
  return ext === 'csv' || ext === 'xlsx' || ext === 'json' ? ext : undefined;
}
