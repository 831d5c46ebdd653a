import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

/**
 * A yes/no cell: true/false, yes/no, y/n, 1/0 (case-insensitive, trimmed), XLSX booleans, and the
 * numbers 1 and 0. Anything else is `boolean_invalid`, naming the accepted words.
 * Blank: `boolean_blank` (callers that treat blank as "leave untouched" check `isBlank` first).
 */
export function parseBooleanCell(value: CellValue): CellResult<boolean> {
  if (isBlank(value)) return cellError('boolean_blank', 'the cell is blank: write true or false');
  if (typeof value === 'boolean') return cellOk(value);
  if (typeof value === 'number') {
    if (value === 1) return cellOk(true);
    if (value === 0) return cellOk(false);
  } else if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return cellOk(true);
    if (FALSE_WORDS.has(word)) return cellOk(false);
  }
  return cellError(
    'boolean_invalid',
    `"${cellText(value).trim()}" is not a yes/no value: write true/false, yes/no, y/n or 1/0`,
  );
}
