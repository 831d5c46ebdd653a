import type { CellValue } from './sheet-row.js';

/** Result of decoding one cell: a value, or a stable code and a message that says what to write instead. */
export type CellResult<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

export const cellOk = <T>(value: T): CellResult<T> => ({ ok: true, value });
export const cellError = <T = never>(code: string, message: string): CellResult<T> => ({
  ok: false,
  code,
  message,
});

/** A blank cell: null, '' or only whitespace. Blank means "leave untouched" unless the user opts in. */
export function isBlank(value: CellValue | undefined): value is null | undefined | '' {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** The text of a cell as a person would read it (numbers without exponent where exact, dates as ISO). */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? value.toFixed(0) : String(value);
  }
  return String(value);
}
