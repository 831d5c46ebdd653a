import { dirname, relative, sep } from 'node:path';
import { escapeHtml } from '../report/render-review-html.js';
import { REVIEW_PAGE_STYLE } from '../report/review-page-style.js';
import type { FleetSummary } from './fleet-summary.js';
import { countsText } from './fleet-summary.js';

/**
 * The fleet run's review page (`report.html` in its directory): the facts, the outcomes, and one
 * row per store linking its own run's review page and its log. One self-contained file with no
 * script at all (its Content-Security-Policy allows none), in the run pages' style; every value
 * is escaped; links are relative, so the fleet directory can be copied or served elsewhere whole.
 */

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE = `
.stores td.exit{text-align:right}
.stores td.outcome,.stores th{white-space:nowrap}
.stores tr.ok td.outcome{color:var(--add-fg)}
.stores tr.bad td.outcome{color:var(--del-fg);font-weight:600}
.stores td.message{color:var(--muted)}
.stores{background:var(--card)}
.stores th:nth-child(1){width:2.5em}.stores th:nth-child(2){width:11%}.stores th:nth-child(3){width:11%}
.stores th:nth-child(4){width:3.5em}.stores th:nth-child(5){width:13%}.stores th:nth-child(6){width:14%}.stores th:nth-child(7){width:6.5em}
`;

/** A relative URL from the page to a file (each path segment percent-encoded). */
function href(page: string, file: string): string {
  return relative(dirname(page), file).split(sep).map(encodeURIComponent).join('/');
}

function link(page: string, file: string | undefined, label: string): string {
  return file === undefined
    ? escapeHtml(label)
    : `<a href="${escapeHtml(href(page, file))}">${escapeHtml(label)}</a>`;
}

export function renderFleetReport(summary: FleetSummary): string {
  const page = summary.reportHtml;
  const facts: [string, string][] = [
    ['Fleet run', summary.fleetRunId],
    ['Started', summary.startedAt],
    ['Ended', summary.endedAt],
    ['File', summary.file],
    ['Job', `${summary.job} (${summary.mode === 'apply' ? 'apply' : 'plan only'})`],
    [
      'Stores',
      summary.onlyIndex !== undefined ? `only stores[${summary.onlyIndex}]` : String(summary.totals.stores),
    ],
    ['Parallel', String(summary.parallel)],
    ['Exit code', String(summary.exitCode)],
  ];
  const rows = summary.stores.map((s) => {
    const good = s.exitCode === 0;
    return [
      `<tr class="${good ? 'ok' : 'bad'}">`,
      `<td>${s.index}</td>`,
      `<td>${escapeHtml(s.name)}</td>`,
      `<td class="outcome">${escapeHtml(s.outcome)}</td>`,
      `<td class="exit">${s.exitCode}</td>`,
      `<td>${escapeHtml(countsText(s.counts))}</td>`,
      `<td>${s.runId !== undefined ? link(page, s.reportHtml, s.runId) : ''}</td>`,
      `<td>${s.log !== undefined ? link(page, s.log, 'log') : ''}${s.output !== undefined ? ` · ${link(page, s.output, 'json')}` : ''}</td>`,
      `<td class="message">${escapeHtml(s.message ?? '')}</td>`,
      '</tr>',
    ].join('');
  });
  const title = `Fleet run · ${summary.job}`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`${title} · ${summary.fleetRunId}`)}</title>`,
    `<style>${REVIEW_PAGE_STYLE}${STYLE}</style>`,
    '</head>',
    '<body>',
    `<header class="top"><h1>${escapeHtml(title)}</h1></header>`,
    '<main>',
    '<section class="summary">',
    '<dl class="facts">',
    ...facts.map(([label, value]) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`),
    '</dl>',
    '<ul class="counts">',
    ...Object.entries(summary.totals.outcomes).map(
      ([outcome, n]) =>
        `<li data-count="${escapeHtml(outcome)}"><span class="count">${n}</span> <span class="label">${escapeHtml(outcome)}</span></li>`,
    ),
    '</ul>',
    '</section>',
    `<section><h2>Stores (${summary.stores.length})</h2>`,
    '<table class="stores"><thead><tr><th>#</th><th>Store</th><th>Outcome</th><th>Exit</th><th>Plan</th><th>Run</th><th>Output</th><th>Message</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    '</section>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
