import { cellError, cellOk, cellText, type CellResult } from './cell-result.js';
import type { CellValue } from './sheet-row.js';
import { visibleCut } from './visible-text.js';

/**
 * A link `[text](target)` or an image `![alt](target)` of the API's Markdown subset
 * (docs/architecture.md, the API's rule 7) whose `[` is not escaped (an odd run of backslashes
 * before it). The target may be written in `<…>` and followed by a title; only its first word is
 * the address.
 */
const MARKDOWN_LINK = /(?<!(?:^|[^\\])(?:\\\\)*\\)(!?)\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^\s)>]*)/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const HTTP_TARGET = /^https?:\/\//i;

/**
 * A description cell of the project's own sheets: Markdown as written, except that a link or an
 * image whose address is not http(s) (`javascript:`, `data:`, a relative path) is refused, naming
 * it; the storefront would otherwise render it live.
 */
export function parseDescriptionCell(value: CellValue): CellResult<string> {
  const text = cellText(value);
  for (const m of text.matchAll(MARKDOWN_LINK)) {
    const target = m[3] ?? '';
    if (HTTP_TARGET.test(target)) continue;
    const what = m[1] === '!' ? 'image' : 'link';
    const label = visibleCut(m[2] ?? '', 40);
    const scheme = SCHEME.exec(target)?.[1];
    const to = scheme !== undefined ? `${scheme}:…` : target === '' ? 'nothing' : visibleCut(target, 40);
    return cellError(
      'unsafe_link',
      `the ${what} ${m[1]}[${label}](${to}) is not an http(s) address: descriptions may only link to http:// or https:// addresses`,
    );
  }
  return cellOk(text);
}
