import type { CellValue } from '../sheets/sheet-row.js';

/**
 * The column `mbulk export products` writes on every row: when the export was taken (ISO 8601).
 * Importers ignore `mbulk_` columns as data; the product import reads this one to leave alone the
 * stock of items that changed after the export (sales since would otherwise be lost).
 */
export const EXPORTED_AT_COLUMN = 'mbulk_exported_at';

/** Epoch ms of an `mbulk_exported_at` cell (ISO text, or an XLSX date), or undefined if unreadable. */
export function exportedAtMs(value: CellValue | undefined): number | undefined {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const ms = Date.parse(value.trim());
  return Number.isFinite(ms) ? ms : undefined;
}
