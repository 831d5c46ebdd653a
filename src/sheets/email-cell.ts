import { z } from 'zod';
import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';

const Email = z.email();

/**
 * An e-mail address, trimmed, checked with zod's `z.email()`; the spelling is kept (matching by e-mail
 * is case-insensitive elsewhere). Invalid: `email_invalid`. Blank: `email_blank` (callers that treat
 * blank as "leave untouched" check `isBlank` first).
 */
export function parseEmailCell(value: CellValue): CellResult<string> {
  if (isBlank(value))
    return cellError('email_blank', 'the cell is blank: write an e-mail address such as name@example.com');
  const text = cellText(value).trim();
  if (!Email.safeParse(text).success) {
    return cellError(
      'email_invalid',
      `"${text}" is not an e-mail address: write one such as name@example.com`,
    );
  }
  return cellOk(text);
}
