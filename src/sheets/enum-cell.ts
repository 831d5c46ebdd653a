import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';

/** Lower case, with runs of spaces, `-` and `_` folded to `_`: 'Out of Stock' ≡ 'out_of_stock'. */
function fold(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '_');
}

/**
 * One of a fixed set of values, matched case-insensitively (also ignoring the difference between spaces,
 * `-` and `_`); returns the canonical spelling from `allowed`. Anything else is `enum_invalid`, listing
 * the allowed values. Blank: `enum_blank` (callers that treat blank as "leave untouched" check `isBlank` first).
 */
export function parseEnumCell<T extends string>(value: CellValue, allowed: readonly T[]): CellResult<T> {
  if (isBlank(value)) return cellError('enum_blank', `the cell is blank: write one of ${allowed.join(', ')}`);
  const key = fold(cellText(value));
  for (const candidate of allowed) {
    if (fold(candidate) === key) return cellOk(candidate);
  }
  return cellError(
    'enum_invalid',
    `"${cellText(value).trim()}" is not allowed: write one of ${allowed.join(', ')}`,
  );
}
