import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';

export interface IntegerCellOptions {
  /** Smallest accepted value (inclusive). Default: none. */
  min?: number;
  /** Largest accepted value (inclusive). Default: none (but always within ±2^53). */
  max?: number;
}

/**
 * A whole number. Strict but sensible:
 * - accepted: XLSX integral numbers (3), digit strings with an optional sign ('3', '-3', '+3'), and a
 *   zero fraction ('3.0', '3.00': what some tools print for integer columns);
 * - XLSX float noise within 1e-9 of an integer (2.9999999999999996 from a formula) rounds to it;
 * - rejected: '1.5' (`integer_not_whole`), '1e3', '1,000', '3 pcs', booleans, dates (`integer_invalid`),
 *   beyond min/max (`integer_too_small` / `integer_too_large`), beyond ±2^53 (`integer_too_large`).
 * Blank: `integer_blank` (callers that treat blank as "leave untouched" check `isBlank` first).
 */
export function parseIntegerCell(value: CellValue, options: IntegerCellOptions = {}): CellResult<number> {
  if (isBlank(value)) return cellError('integer_blank', 'the cell is blank: write a whole number such as 12');
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      return cellError('integer_invalid', `${value} is not a whole number: write e.g. 12`);
    const rounded = Math.round(value);
    if (Math.abs(value - rounded) > 1e-9 * Math.max(1, Math.abs(value))) {
      return cellError(
        'integer_not_whole',
        `${cellText(value)} is not a whole number: write e.g. ${rounded}`,
      );
    }
    n = rounded;
  } else if (typeof value === 'string') {
    const text = value.trim().replace(/^\u2212/, '-');
    const m = /^([-+]?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (!m) {
      return cellError(
        'integer_invalid',
        `"${text}" is not a whole number: write digits only, such as 12 (no separators, units or exponents)`,
      );
    }
    const [, sign = '', digits = '', frac = ''] = m;
    if (/[1-9]/.test(frac)) {
      return cellError(
        'integer_not_whole',
        `"${text}" is not a whole number: write e.g. ${sign === '-' ? '-' : ''}${digits}`,
      );
    }
    n = Number(`${sign}${digits}`);
  } else {
    return cellError('integer_invalid', `"${cellText(value)}" is not a whole number: write e.g. 12`);
  }
  if (!Number.isSafeInteger(n)) return cellError('integer_too_large', `${cellText(value)} is too large`);
  if (options.min !== undefined && n < options.min) {
    return cellError(
      'integer_too_small',
      `${n} is below the minimum ${options.min}: write ${options.min} or more`,
    );
  }
  if (options.max !== undefined && n > options.max) {
    return cellError(
      'integer_too_large',
      `${n} is above the maximum ${options.max}: write ${options.max} or less`,
    );
  }
  return cellOk(n === 0 ? 0 : n);
}
