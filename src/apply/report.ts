import { dirname, join } from 'node:path';
import { renderReviewHtml } from '../report/render-review-html.js';
import { reviewFromLines } from '../report/review-from-lines.js';
import type { ReviewBody, ReviewPage } from '../report/review-page.js';
import { runIdTime } from '../report/run-id-time.js';
import { RUN_FILES } from './run-directory.js';
import { writeFileAtomic } from '../files/atomic-file.js';

/**
 * `report.md`: what a run planned or did, for people. It takes lines already rendered by the
 * importer (a change "product ref-12: price 19.99 → 17.99", an issue from formatRowIssue) so it
 * stays independent of every entity kind.
 */

export interface ReportInput {
  /** e.g. `Import products`. */
  title: string;
  runId?: string;
  /** Key facts shown as a list: input file, target, status, mode… */
  facts?: ReadonlyArray<readonly [label: string, value: string]>;
  /** Counts table, in the given order (e.g. create 3, update 10, noop 987). */
  counts: ReadonlyArray<readonly [label: string, count: number]>;
  /** Rendered change lines (all of them or more than shown; the first `maxChanges` are shown). */
  changes?: readonly string[];
  /** Total number of changes when `changes` holds only the first ones (default: changes.length). */
  totalChanges?: number;
  /** Rendered issue lines (row errors, warnings, failed operations). */
  issues?: readonly string[];
  totalIssues?: number;
  /** Changes shown at most (default 200). */
  maxChanges?: number;
  /** Issues shown at most (default 500). */
  maxIssues?: number;
  /** Free lines at the end (next steps: "fix failed.csv and run mbulk import … again"). */
  notes?: readonly string[];
  /** The cards of report.html (default: one card per change line). */
  review?: ReviewBody;
}

/** The review page (report.html) of a report: its facts and counts, and the job's cards. */
export function reviewPage(input: ReportInput): ReviewPage {
  const page: ReviewPage = {
    title: input.title,
    facts: (input.facts ?? []).map(([label, value]) => [label, value]),
    // The page says `unchanged` where plans say `noop` (its filter buttons do too).
    counts: input.counts.map(([label, count]) => [label === 'noop' ? 'unchanged' : label, count]),
    ...(input.review ?? reviewFromLines(input.changes ?? [], input.issues ?? [])),
  };
  if (input.runId !== undefined) {
    page.runId = input.runId;
    const time = runIdTime(input.runId);
    if (time !== undefined) page.createdAt = time;
  }
  return page;
}

/** Renders report.md. Line content goes into fenced blocks, so sheet text cannot break the Markdown. */
export function renderReport(input: ReportInput): string {
  const out: string[] = [`# ${oneLine(input.title)}`, ''];
  if (input.runId !== undefined) out.push(`Run \`${oneLine(input.runId)}\``, '');
  if (input.facts && input.facts.length > 0) {
    for (const [label, value] of input.facts) out.push(`- **${oneLine(label)}**: ${oneLine(value)}`);
    out.push('');
  }
  out.push('## Counts', '', '| | count |', '|---|---:|');
  for (const [label, count] of input.counts)
    out.push(`| ${oneLine(label).replace(/\|/g, '\\|')} | ${count} |`);
  out.push('');
  section(out, 'Changes', input.changes ?? [], input.totalChanges, input.maxChanges ?? 200);
  section(out, 'Issues', input.issues ?? [], input.totalIssues, input.maxIssues ?? 500);
  if (input.notes && input.notes.length > 0) {
    out.push('## Next steps', '');
    for (const note of input.notes) out.push(`- ${oneLine(note)}`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** Renders and writes report.md and, beside it, report.html (the review page), atomically. */
export function writeReport(file: string, input: ReportInput): void {
  writeFileAtomic(file, renderReport(input));
  writeFileAtomic(join(dirname(file), RUN_FILES.reportHtml), renderReviewHtml(reviewPage(input)));
}

function section(
  out: string[],
  title: string,
  lines: readonly string[],
  total: number | undefined,
  max: number,
): void {
  const all = Math.max(total ?? lines.length, lines.length);
  if (all === 0) return;
  const shown = lines.slice(0, max);
  out.push(`## ${title} (${all})`, '');
  if (shown.length < all) out.push(`First ${shown.length} of ${all}.`, '');
  out.push('```text');
  for (const line of shown) out.push(line.replace(/```/g, "'''").replace(/\r?\n|\r/g, ' ⏎ '));
  out.push('```', '');
}

function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ');
}
