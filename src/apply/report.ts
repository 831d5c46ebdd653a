import { dirname, join } from 'node:path';
import { renderReviewHtml } from '../report/render-review-html.js';
import { reviewFromLines } from '../report/review-from-lines.js';
import type { ReviewBody, ReviewPage } from '../report/review-page.js';
import { runIdTime } from '../report/run-id-time.js';
import { readDriftRefusal, RUN_FILES, type DriftRefusalRecord } from './run-directory.js';
import { AtomicFileSync, writeFileAtomic } from '../files/atomic-file.js';
import { visibleText } from '../sheets/visible-text.js';

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
  /**
   * Every rendered change line: report.md lists all of them (the CLI prints the first few and
   * points here, so "every change is in report.md" must stay true).
   */
  changes?: readonly string[];
  /** Every rendered issue line (row errors, warnings, failed operations). */
  issues?: readonly string[];
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

/** Renders report.md as one string (tests, `--report FILE`); `writeReport` streams the same text. */
export function renderReport(input: ReportInput): string {
  let text = '';
  for (const chunk of reportChunks(input)) text += chunk;
  return text;
}

/**
 * report.md piece by piece, every change and every issue in it. Line content goes into fenced
 * blocks, so sheet text cannot break the Markdown, and its control characters are shown as escapes
 * (`visibleText`), so `cat report.md` cannot draw on a terminal either.
 */
export function* reportChunks(input: ReportInput): Generator<string> {
  const head: string[] = [`# ${oneLine(input.title)}`, ''];
  if (input.runId !== undefined) head.push(`Run \`${oneLine(input.runId)}\``, '');
  if (input.facts && input.facts.length > 0) {
    for (const [label, value] of input.facts) head.push(`- **${oneLine(label)}**: ${oneLine(value)}`);
    head.push('');
  }
  head.push('## Counts', '', '| | count |', '|---|---:|');
  for (const [label, count] of input.counts)
    head.push(`| ${oneLine(label).replace(/\|/g, '\\|')} | ${count} |`);
  head.push('');
  yield `${head.join('\n')}\n`;
  yield* section('Changes', input.changes ?? []);
  yield* section('Issues', input.issues ?? []);
  if (input.notes && input.notes.length > 0) {
    const notes = ['## Next steps', ''];
    for (const note of input.notes) notes.push(`- ${oneLine(note)}`);
    yield `${notes.join('\n')}\n`;
  }
}

/** Renders and writes report.md (streamed in pieces) and, beside it, report.html (the review page), atomically. */
export function writeReport(file: string, input: ReportInput): void {
  const md = new AtomicFileSync(file);
  try {
    let pending = '';
    for (const chunk of reportChunks(input)) {
      pending += chunk;
      if (pending.length >= 1 << 16) {
        md.write(pending);
        pending = '';
      }
    }
    md.write(pending);
  } catch (error) {
    md.discard();
    throw error;
  }
  md.commit();
  const page = reviewPage(input);
  const drift = readDriftRefusal(dirname(file));
  writeFileAtomic(
    join(dirname(file), RUN_FILES.reportHtml),
    renderReviewHtml(drift === undefined ? page : withDriftRefusal(page, drift)),
  );
}

/**
 * The page of a run whose apply was refused because the live store changed since planning: the
 * refusal first, with what changed and the way out, and no apply command.
 */
function withDriftRefusal(page: ReviewPage, drift: DriftRefusalRecord): ReviewPage {
  const what = `${drift.entities} ${drift.entities === 1 ? 'entity' : 'entities'}`;
  const refusal = {
    message: `The live store changed since planning (${what}, checked ${drift.checkedAt}): ${drift.lines
      .map((line) => line.trim())
      .join('; ')}`,
    fix: drift.fix,
  };
  // The plan as it stands would be refused again: the way out is the refusal's fix, no apply command.
  const rest = { ...page };
  delete rest.applyCommand;
  return { ...rest, refusals: [refusal, ...(page.refusals ?? [])] };
}

function* section(title: string, lines: readonly string[]): Generator<string> {
  if (lines.length === 0) return;
  yield `## ${title} (${lines.length})\n\n${FENCE}text\n`;
  for (let i = 0; i < lines.length; i += 1000) {
    yield `${lines
      .slice(i, i + 1000)
      .map((line) => visibleText(line.replace(/```/g, "'''").replace(/\r?\n|\r/g, ' ⏎ ')))
      .join('\n')}\n`;
  }
  yield `${FENCE}\n\n`;
}

const FENCE = '```';

function oneLine(text: string): string {
  return visibleText(text.replace(/\r?\n|\r/g, ' '));
}
