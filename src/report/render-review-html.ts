import { createHash } from 'node:crypto';
import { REVIEW_PAGE_SCRIPT } from './review-page-script.js';
import { REVIEW_PAGE_STYLE } from './review-page-style.js';
import { countText } from './count-text.js';
import { pageHeadline } from './page-headline.js';
import type { ReviewCard, ReviewColumn, ReviewPage, ReviewTable } from './review-page.js';

/**
 * `report.html`: one self-contained page (inline CSS, one inline script, no external script, style
 * or font) that works offline and from a `file://` URL. The summary, the invalid rows and the
 * first cards are rendered here, escaped; every card is also embedded as JSON in a
 * `<script type="application/json">` (never executed) so the page's script can filter, search
 * and render the rest progressively. A Content-Security-Policy allows only that script (by its
 * hash): even a value that escaped its escaping could not run. Pure: no I/O.
 */

/** Cards rendered into the HTML itself (the rest come from the embedded JSON as the reader scrolls). */
export const FIRST_CARDS = 100;
/** Embedded card data at most: past it the page holds the first cards only (and says so), staying under 25 MB. */
export const MAX_EMBEDDED_BYTES = 20 * 2 ** 20;
/** Invalid rows listed on the page at most (all of them are in failed.csv). */
export const MAX_INVALID_ROWS = 2000;
/** Rows of a big plan's table per page (the first page is rendered into the HTML itself). */
export const TABLE_PAGE_ROWS = 100;

const SCRIPT_HASH = createHash('sha256').update(REVIEW_PAGE_SCRIPT).digest('base64');

/** The page's Content-Security-Policy: its own script only, inline styles, images from http(s). */
export const REVIEW_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  "style-src 'unsafe-inline'",
  'img-src http: https: data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an HTML element or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON that can sit inside a `<script>` element: `<`, `>` and `&` as `\u003c`… so no value can
 * close the element or open a comment, and U+2028/U+2029 escaped for old parsers.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${code}`;
  });
}

function isImageUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function actionClass(action: string): string {
  return action.replace(/[^a-z0-9-]/gi, '');
}

/**
 * How a note reads: errors, failures and refusals red, warnings amber, anything else (a neutral
 * note: "sent as a delta", "kept") muted. The page script's `noteClass` is the same.
 */
export function noteClass(note: string): string {
  if (/^(error|failed|refused)\b/i.test(note)) return 'n-error';
  if (/^warning\b/i.test(note)) return 'n-warning';
  return 'n-note';
}

/** `done`, `pending`, `failed: …` as a class: `o-done`, `o-pending`, `o-failed`. */
export function outcomeClass(outcome: string): string {
  return `o-${(/^[a-z]+/i.exec(outcome)?.[0] ?? 'other').toLowerCase()}`;
}

/** One card, the same markup as the page script's `renderCard`. */
export function renderCard(card: ReviewCard, columns: readonly ReviewColumn[]): string {
  const out: string[] = [
    `<article class="card a-${actionClass(card.action)}${card.refused ? ' refused' : ''}" data-action="${escapeHtml(card.action)}">`,
    `<header><span class="badge">${escapeHtml(card.action)}</span>`,
  ];
  if (card.refused) out.push('<span class="badge refused-badge">refused</span>');
  if (card.outcome)
    out.push(`<span class="badge outcome ${outcomeClass(card.outcome)}">${escapeHtml(card.outcome)}</span>`);
  out.push(`<h3 class="name">${escapeHtml(card.name)}</h3>`);
  if (card.key) out.push(`<code class="key">${escapeHtml(card.key)}</code>`);
  out.push('</header>');
  if (card.refused) out.push(`<p class="refused-reason">Refused: ${escapeHtml(card.refused)}</p>`);
  const images = card.images ?? [];
  if (images.length > 0) {
    out.push('<div class="thumbs">');
    images.forEach((url, i) => {
      if (isImageUrl(url)) {
        const alt = `Image ${i + 1} of ${card.name}`;
        out.push(
          `<img loading="lazy" decoding="async" referrerpolicy="no-referrer" width="72" height="72" alt="${escapeHtml(alt)}" title="${escapeHtml(url)}" src="${escapeHtml(url)}">`,
        );
      } else out.push(`<span class="image-text">${escapeHtml(url)}</span>`);
    });
    out.push('</div>');
  }
  const rows = card.rows ?? [];
  if (rows.length > 0) {
    out.push('<table><thead><tr>');
    for (const column of columns) out.push(`<th>${escapeHtml(column.label)}</th>`);
    out.push('</tr></thead><tbody>');
    for (const row of rows) {
      out.push(row.tone ? `<tr class="t-${row.tone}">` : '<tr>');
      row.cells.forEach((cell, k) => {
        const classes = cellClasses(columns[k]?.role, cell);
        out.push(
          classes ? `<td class="${classes}">${escapeHtml(cell)}</td>` : `<td>${escapeHtml(cell)}</td>`,
        );
      });
      out.push('</tr>');
    }
    out.push('</tbody></table>');
  }
  if (card.preview !== undefined) out.push(`<pre class="preview">${escapeHtml(card.preview)}</pre>`);
  const notes = card.notes ?? [];
  if (notes.length > 0) {
    out.push('<ul class="notes">');
    for (const note of notes) out.push(`<li class="${noteClass(note)}">${escapeHtml(note)}</li>`);
    out.push('</ul>');
  }
  out.push('</article>');
  return out.join('');
}

/**
 * The decisions, in the order a person needs them: what refuses the plan (red, each with the
 * exact flag or fix), the command that applies it (with the flag) or continues it, the counts of
 * this state, then warnings and notes. The run's metadata is folded below (`renderFacts`).
 */
function renderDecisions(page: ReviewPage): string {
  const out: string[] = ['<section class="decisions">'];
  const refusals = page.refusals ?? [];
  if (refusals.length > 0) {
    out.push('<div class="refusals" id="refusals" role="alert"><h2>Refused</h2><ul>');
    for (const r of refusals)
      out.push(
        `<li><span class="refusal">${escapeHtml(r.message)}</span><span class="fix">${escapeHtml(r.fix)}</span></li>`,
      );
    out.push('</ul></div>');
  }
  if (page.applyCommand !== undefined) {
    const lead =
      refusals.length > 0
        ? 'To apply it anyway, once you have checked the refused changes:'
        : 'To apply this plan:';
    out.push(`<p class="apply">${lead} <code id="apply-command">${escapeHtml(page.applyCommand)}</code></p>`);
  }
  if (page.resumeCommand !== undefined) {
    out.push(
      `<p class="resume">Not every change was written. Continue with: <code id="resume-command">${escapeHtml(page.resumeCommand)}</code></p>`,
    );
  }
  out.push('<ul class="counts" id="counts">');
  for (const [label, count] of page.counts) {
    out.push(
      `<li data-count="${escapeHtml(label)}"><span class="count">${countText(count)}</span> <span class="label">${escapeHtml(label)}</span></li>`,
    );
  }
  out.push('</ul>');
  const notes = page.notes ?? [];
  if (notes.length > 0) {
    out.push('<ul class="warnings" id="warnings">');
    for (const note of notes) out.push(`<li class="${noteClass(note)}">${escapeHtml(note)}</li>`);
    out.push('</ul>');
  }
  out.push('</section>');
  return out.join('\n');
}

/** The run's metadata (input, target, options, imported columns…), folded. */
function renderFacts(page: ReviewPage): string {
  const facts: [string, string][] = [];
  if (page.runId !== undefined) facts.push(['Run', page.runId]);
  if (page.createdAt !== undefined) facts.push(['Created', page.createdAt]);
  facts.push(...page.facts);
  const out: string[] = [
    '<details class="meta" id="meta"><summary>Run details: input, target, options, columns</summary><dl class="facts">',
  ];
  for (const [label, value] of facts)
    out.push(`<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`);
  out.push('</dl></details>');
  return out.join('\n');
}

/** A table cell's text (a delta signed: `+6`), the same as the page script's `cellText`. */
function cellText(cell: string | number, role: string | undefined): string {
  return role === 'delta' && typeof cell === 'number' && cell > 0 ? `+${cell}` : String(cell);
}

/**
 * An amount or a number (`11.90 MYR`, `-1,234.50`, `+6`): its cell never breaks inside it (class
 * `amount`), so on a phone a price is never split across lines (`11.9` / `0` / `MYR`). The page
 * script's `AMOUNT` is the same.
 */
export const AMOUNT = /^[+-]?[\d,]*\d(\.\d+)?( [A-Z]{3})?$/;

/** The classes of a cell: its column's role, and `amount` for an amount (AMOUNT). */
function cellClasses(role: string | undefined, text: string): string {
  const classes = role ? [`c-${role}`] : [];
  if (AMOUNT.test(text)) classes.push('amount');
  return classes.join(' ');
}

/** A table cell, escaped. */
function cellHtml(cell: string | number, role: string | undefined): string {
  const text = cellText(cell, role);
  const value = escapeHtml(text);
  if (role === 'outcome') return `<td class="c-outcome ${outcomeClass(String(cell))}">${value}</td>`;
  const classes = cellClasses(role, text);
  return classes ? `<td class="${classes}">${value}</td>` : `<td>${value}</td>`;
}

/**
 * A many-row plan as one table: totals, filter buttons (by the columns it has), a search, sortable
 * headers, and the first page of rows (the page script pages through the rest of the embedded rows).
 */
function renderTable(table: ReviewTable): string {
  const roles = new Set(table.columns.map((c) => c.role));
  const out: string[] = ['<section class="big" id="big"><h2>Changes</h2><ul class="totals" id="totals">'];
  for (const [label, value] of table.totals)
    out.push(
      `<li data-total="${escapeHtml(label)}"><span class="count">${countText(value)}</span> <span class="label">${escapeHtml(label)}</span></li>`,
    );
  out.push('</ul><nav class="filters" aria-label="Filter rows">');
  const filters: [string, string][] = [['all', 'all']];
  // Numeric quantities only (stock): a table of field changes holds text.
  if (roles.has('delta')) filters.push(['zero', 'goes to zero']);
  if (roles.has('delta'))
    filters.push(['decrease', 'decrease'], ['increase', 'increase'], ['biggest', 'biggest changes']);
  if (roles.has('outcome')) filters.push(['failed', 'failed'], ['pending', 'pending']);
  for (const [key, label] of filters)
    out.push(
      `<button type="button" data-tfilter="${key}" aria-pressed="${key === 'all'}">${escapeHtml(label)}</button>`,
    );
  out.push(
    '<input id="tsearch" type="search" placeholder="Search names, keys, values…" aria-label="Search rows">',
    '</nav>',
    `<p id="tshown" class="shown">Rows 1–${Math.min(TABLE_PAGE_ROWS, table.rows.length)} of ${countText(table.rows.length)}</p>`,
    '<table class="rows" id="rows"><thead><tr>',
  );
  table.columns.forEach((c, i) => {
    out.push(
      `<th><button type="button" class="sort" data-sort="${i}" title="Sort by ${escapeHtml(c.label)}">${escapeHtml(c.label)}</button></th>`,
    );
  });
  out.push('</tr></thead><tbody id="trows">');
  for (const row of table.rows.slice(0, TABLE_PAGE_ROWS)) {
    out.push('<tr>', ...row.map((cell, k) => cellHtml(cell, table.columns[k]?.role)), '</tr>');
  }
  out.push(
    '</tbody></table>',
    '<nav class="pager"><button type="button" id="tprev" disabled>← Previous</button><button type="button" id="tnext"' +
      (table.rows.length > TABLE_PAGE_ROWS ? '' : ' disabled') +
      '>Next →</button></nav>',
    '</section>',
  );
  return out.join('');
}

function renderFilters(page: ReviewPage): string {
  const byAction = new Map<string, number>();
  for (const card of page.cards) byAction.set(card.action, (byAction.get(card.action) ?? 0) + 1);
  const out: string[] = [
    '<nav class="filters" aria-label="Filter">',
    `<button type="button" data-filter="all" aria-pressed="true">all <span>${page.cards.length}</span></button>`,
  ];
  for (const [action, n] of byAction) {
    out.push(
      `<button type="button" data-filter="${escapeHtml(action)}" aria-pressed="false">${escapeHtml(action)} <span>${n}</span></button>`,
    );
  }
  const refused = page.cards.filter((c) => c.refused).length;
  if (refused > 0)
    out.push(
      `<button type="button" data-filter="refused" aria-pressed="false">refused <span>${refused}</span></button>`,
    );
  out.push(
    '<input id="search" type="search" placeholder="Search names, keys, values…" aria-label="Search">',
    '</nav>',
  );
  return out.join('\n');
}

function renderInvalid(page: ReviewPage): string {
  if (page.invalid.length === 0) return '';
  const out: string[] = [
    `<section class="invalid" id="invalid"><h2>Invalid rows (${page.invalid.length})</h2>`,
  ];
  if (page.failedFile) {
    const link = `<a href="${escapeHtml(page.failedFile.href)}">${escapeHtml(page.failedFile.href)}</a>`;
    out.push(
      page.failedFile.written
        ? `<p>These rows, in the sheet's own columns, are in ${link}: fix them there and import it again.</p>`
        : `<p>Nothing is written for these rows. Applying the run writes them to ${link}, in the sheet's own columns, to fix and import again.</p>`,
    );
  }
  out.push(
    '<table><thead><tr><th>File</th><th>Row</th><th>Column</th><th>Header</th><th>Code</th><th>Message</th></tr></thead><tbody>',
  );
  for (const row of page.invalid.slice(0, MAX_INVALID_ROWS)) {
    out.push(
      `<tr><td>${escapeHtml(row.file)}</td><td>${row.row}</td><td>${escapeHtml(row.column ?? '')}</td><td>${escapeHtml(row.header ?? '')}</td><td>${escapeHtml(row.code ?? '')}</td><td>${escapeHtml(row.message)}</td></tr>`,
    );
  }
  out.push('</tbody></table>');
  if (page.invalid.length > MAX_INVALID_ROWS)
    out.push(`<p>First ${MAX_INVALID_ROWS} of ${page.invalid.length}; every one is in results.csv.</p>`);
  out.push('</section>');
  return out.join('\n');
}

/**
 * The cards that fit the byte budget: the embedded JSON text (script-safe) and the HTML of the
 * first ones (both count against the budget).
 */
function embed(page: ReviewPage): { json: string; kept: ReviewCard[]; first: string[] } {
  const parts: string[] = [];
  const first: string[] = [];
  let bytes = 0;
  for (const card of page.cards) {
    const json = scriptSafeJson(card);
    const html = parts.length < FIRST_CARDS ? renderCard(card, page.columns) : '';
    bytes += Buffer.byteLength(json) + Buffer.byteLength(html) + 2;
    if (bytes > MAX_EMBEDDED_BYTES) break;
    parts.push(json);
    if (html) first.push(html);
  }
  const table = page.table ? `,"table":${scriptSafeJson(page.table)}` : '';
  return {
    json: `{"columns":${scriptSafeJson(page.columns)},"cards":[${parts.join(',')}]${table}}`,
    kept: page.cards.slice(0, parts.length),
    first,
  };
}

/** Renders the whole page. */
export function renderReviewHtml(page: ReviewPage): string {
  const { json, kept, first } = embed(page);
  const total = Math.max(page.totalCards ?? 0, page.cards.length);
  const held = { ...page, cards: kept };
  const partial =
    kept.length < total
      ? `<p class="partial">This page holds the first ${kept.length} of ${total} entities, to stay small enough to open; every change is in report.md beside it (and in plan.json).</p>`
      : '';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(REVIEW_PAGE_CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.runId ? `${page.title} · ${page.runId}` : page.title)}</title>`,
    `<style>${REVIEW_PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    `<header class="top"><h1>${escapeHtml(page.title)}</h1><p class="headline" id="headline">${escapeHtml(pageHeadline(page))}</p></header>`,
    '<main>',
    renderDecisions(page),
    renderFacts(page),
    renderInvalid(page),
    page.table ? renderTable(page.table) : '',
    // A table page lists its other entities (skipped rows…) as cards below, when there are any.
    page.table && total === 0
      ? ''
      : [
          `<section class="changes"><h2>${page.table ? 'Other rows' : 'Entities'} (${total})</h2>`,
          partial,
          renderFilters(held),
          `<p id="shown" class="shown">Showing ${first.length} of ${kept.length}</p>`,
          `<div id="cards" class="cards">${first.join('\n')}</div>`,
          `<button type="button" id="more" class="more"${first.length >= kept.length ? ' hidden' : ''}>Show more</button>`,
          '</section>',
        ].join('\n'),
    '</main>',
    `<script type="application/json" id="review-data">${json}</script>`,
    `<script>${REVIEW_PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
