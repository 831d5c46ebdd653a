import { createHash } from 'node:crypto';
import { REVIEW_PAGE_SCRIPT } from './review-page-script.js';
import { REVIEW_PAGE_STYLE } from './review-page-style.js';
import type { ReviewCard, ReviewColumn, ReviewPage } from './review-page.js';

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

/** One card, the same markup as the page script's `renderCard`. */
export function renderCard(card: ReviewCard, columns: readonly ReviewColumn[]): string {
  const out: string[] = [
    `<article class="card a-${actionClass(card.action)}" data-action="${escapeHtml(card.action)}">`,
    `<header><span class="badge">${escapeHtml(card.action)}</span><h3 class="name">${escapeHtml(card.name)}</h3>`,
  ];
  if (card.key) out.push(`<code class="key">${escapeHtml(card.key)}</code>`);
  out.push('</header>');
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
        const role = columns[k]?.role;
        out.push(role ? `<td class="c-${role}">${escapeHtml(cell)}</td>` : `<td>${escapeHtml(cell)}</td>`);
      });
      out.push('</tr>');
    }
    out.push('</tbody></table>');
  }
  if (card.preview !== undefined) out.push(`<pre class="preview">${escapeHtml(card.preview)}</pre>`);
  const notes = card.notes ?? [];
  if (notes.length > 0) {
    out.push('<ul class="notes">');
    for (const note of notes) out.push(`<li>${escapeHtml(note)}</li>`);
    out.push('</ul>');
  }
  out.push('</article>');
  return out.join('');
}

function renderSummary(page: ReviewPage): string {
  const out: string[] = ['<section class="summary">', '<dl class="facts">'];
  const facts: [string, string][] = [];
  if (page.runId !== undefined) facts.push(['Run', page.runId]);
  if (page.createdAt !== undefined) facts.push(['Created', page.createdAt]);
  facts.push(...page.facts);
  for (const [label, value] of facts)
    out.push(`<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`);
  out.push('</dl>', '<ul class="counts">');
  for (const [label, count] of page.counts) {
    out.push(
      `<li data-count="${escapeHtml(label)}"><span class="count">${count}</span> <span class="label">${escapeHtml(label)}</span></li>`,
    );
  }
  out.push('</ul>');
  const notes = page.notes ?? [];
  if (notes.length > 0) {
    out.push('<ul class="warnings">');
    for (const note of notes) out.push(`<li>${escapeHtml(note)}</li>`);
    out.push('</ul>');
  }
  if (page.applyCommand !== undefined) {
    out.push(
      `<p class="apply">To apply this plan: <code id="apply-command">${escapeHtml(page.applyCommand)}</code></p>`,
    );
  }
  out.push('</section>');
  return out.join('\n');
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
  return {
    json: `{"columns":${scriptSafeJson(page.columns)},"cards":[${parts.join(',')}]}`,
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
      ? `<p class="partial">This page holds the first ${kept.length} of ${total} entities, to stay small enough to open; every change is listed in report.md and plan.json.</p>`
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
    `<header class="top"><h1>${escapeHtml(page.title)}</h1></header>`,
    '<main>',
    renderSummary(page),
    renderInvalid(page),
    `<section class="changes"><h2>Entities (${total})</h2>`,
    partial,
    renderFilters(held),
    `<p id="shown" class="shown">Showing ${first.length} of ${kept.length}</p>`,
    `<div id="cards" class="cards">${first.join('\n')}</div>`,
    `<button type="button" id="more" class="more"${first.length >= kept.length ? ' hidden' : ''}>Show more</button>`,
    '</section>',
    '</main>',
    `<script type="application/json" id="review-data">${json}</script>`,
    `<script>${REVIEW_PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
