import type { CellValue } from './sheet-row.js';
import { cellText, isBlank } from './cell-result.js';

/** The separator of list cells (`tags`, `links`, `category_ids`, `images`). */
export const LIST_SEPARATOR = '|';

/**
 * A `|`-separated list: items trimmed, empty items dropped, order and duplicates kept
 * ('a | b||c' → ['a', 'b', 'c']). Never fails. Blank → [] (an empty list): callers for which blank means
 * "leave untouched" must check `isBlank` before calling. XLSX numbers/dates become their text (`cellText`).
 */
export function parseListCell(value: CellValue): string[] {
  if (isBlank(value)) return [];
  const out: string[] = [];
  for (const part of cellText(value).split(LIST_SEPARATOR)) {
    const item = part.trim();
    if (item !== '') out.push(item);
  }
  return out;
}

/** The inverse for writers: items joined with `|` (items must not themselves contain `|`). */
export function formatListCell(items: readonly string[]): string {
  return items.join(LIST_SEPARATOR);
}
