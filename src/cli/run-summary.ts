import { SETTLED_KEY, type JournalSnapshot } from '../apply/journal.js';
import type { RunDirectory, RunMeta } from '../apply/run-directory.js';
import type { AbortCause } from '../jobs/job-events.js';
import { opsProgress, unfinishedHeadline } from '../apply/unfinished-headline.js';
import { adviseApiError, type ApiSources } from './connection-advice.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import { ExitCode } from './exit-code.js';
import type { Output } from './output.js';

/** Prints row issues, the first `max` of them, then how many more are in the report. */
export function printIssues(out: Output, issues: readonly RowIssue[], max = 20): void {
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  for (const [label, list] of [
    ['error', errors],
    ['warning', warnings],
  ] as const) {
    if (list.length === 0) continue;
    out.line(`${list.length} ${label}${list.length === 1 ? '' : 's'}:`);
    for (const i of list.slice(0, max)) out.line(`  ${formatRowIssue(i)}`);
    if (list.length > max) out.line(`  … and ${list.length - max} more (see the run's report.md)`);
  }
}

/** "create 3 · update 10 · unchanged 987" */
export function formatCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
}

/**
 * The exit code of an apply that returned (its results are written): 4 when a fatal error stopped
 * it because the API could not be reached or rejected the token (the cause is printed), 5 when a
 * local failure (disk full, read-only, permission) stopped it, 1 when
 * rows failed or it did not complete, else 0.
 */
export function applyExitCode(
  out: Output,
  applied: { status: string; abortedBy?: AbortCause | undefined },
  rowsFailed: boolean,
  sources?: ApiSources,
): ExitCode {
  if (applied.abortedBy !== undefined) {
    const advice =
      sources !== undefined && applied.abortedBy.exitCode === ExitCode.Unreachable
        ? adviseApiError(applied.abortedBy.error, sources)
        : undefined;
    out.warn(`mbulk: stopped: ${advice ?? applied.abortedBy.message}`);
  }
  if (applied.abortedBy?.exitCode === ExitCode.Unreachable) return ExitCode.Unreachable;
  if (applied.abortedBy?.exitCode === ExitCode.LocalFailure) return ExitCode.LocalFailure;
  if (applied.status === 'interrupted') return ExitCode.Interrupted;
  return rowsFailed || applied.status !== 'completed' ? ExitCode.RowsFailed : ExitCode.Ok;
}

/**
 * How far a run's operations got. run.json's counts are written when an apply ends; a process
 * that quit at once (a second Ctrl-C, a kill) never wrote them, so the journal, which records every
 * operation before and after it is sent, says how far it got: done, and failed or of unknown
 * outcome. The total is run.json's (undefined when no apply ever ended). A damaged journal is not
 * counted (run.json's counts then stand).
 */
export function runProgress(
  meta: RunMeta,
  journal?: JournalSnapshot,
): { done: number; total: number | undefined; failed: number } | undefined {
  const counted = opsProgress(meta.counts);
  if (journal === undefined || journal.records === 0 || journal.damage.length > 0) return counted;
  let done = 0;
  let failed = 0;
  for (const [key, state] of journal.states) {
    if (key === SETTLED_KEY) continue;
    if (state.status === 'done') done++;
    else if (state.status === 'failed' || state.status === 'unknown') failed++;
  }
  return { done, total: counted?.total, failed };
}

/**
 * The headline of an apply that did not complete (unfinishedHeadline), from the run's run.json;
 * `resume` is the command that continues it (default `mbulk runs resume RUN`; see run-hints.ts).
 */
export function unfinishedLine(run: RunDirectory, status: string, resume?: string): string {
  return unfinishedHeadline(run.id, status, run.refresh().counts, resume);
}

/**
 * The label of an apply's counts line: `Applied` (or the command's own word: `Sent`, `Rolled
 * back`) only for a run that completed; one that stopped says what it wrote before it stopped.
 */
export function doneLabel(word: string, status: string): string {
  return status === 'completed' ? word : 'Written before it stopped';
}

/**
 * The summary every apply prints (import, apply, resume): "Applied: 3 created · 2 updated · 0
 * failed · 5 write requests" from the counts of the apply's summary, in their order.
 */
export function appliedLine(summary: Readonly<Record<string, unknown>>, status: string): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(summary)) {
    if (typeof value !== 'number') continue;
    if (key === 'writeRequests') parts.push(plural(value, 'write request'));
    else if (key === 'notRun') {
      if (value > 0) parts.push(`${value} not yet applied (resume the run)`);
    } else parts.push(`${value} ${key === 'reused' ? 'reused' : key}`);
  }
  const mode = typeof summary['mode'] === 'string' ? ` (${summary['mode']})` : '';
  return `${doneLabel('Applied', status)}: ${parts.join(' · ')}${mode}`;
}

/** "1 write request", "3 write requests". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** "sheet row 4: code: message" for each failed row (or failure) of an apply's summary. */
export function failureLines(summary: Readonly<Record<string, unknown>>): string[] {
  const list = summary['failedRows'] ?? summary['failures'];
  if (!Array.isArray(list)) return [];
  return list.map((f: Record<string, unknown>) => {
    const where =
      f['row'] !== undefined
        ? `${String(f['sheet'] ?? '')} row ${String(f['row'])}`.trim()
        : `${String(f['type'] ?? '')} ${String(f['id'] ?? '')}`.trim();
    return `failed ${where}: ${String(f['code'] ?? 'error')}: ${String(f['message'] ?? '')}`;
  });
}

/** A run's counts for people: only those that are not zero, the executor's bookkeeping left out. */
export function shownCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .filter(([k, v]) => v !== 0 && !k.startsWith('ops_') && !k.startsWith('changes_'))
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
}

/** What an apply did, as run.json counts it (the rest of its counts are the plan's). */
const OUTCOME_COUNTS = new Set([
  'created',
  'updated',
  'hidden',
  'deleted',
  'restored',
  'sent',
  'applied',
  'failed',
  'not reached',
  'requests',
]);

/** run.json's counts split into the plan's and the apply's outcome, each without zeros. */
export function splitCounts(counts: Readonly<Record<string, number>>): { planned: string; outcome: string } {
  const planned: Record<string, number> = {};
  const outcome: Record<string, number> = {};
  for (const [k, v] of Object.entries(counts)) (OUTCOME_COUNTS.has(k) ? outcome : planned)[k] = v;
  return { planned: shownCounts(planned), outcome: shownCounts(outcome) };
}

/**
 * One hint when every row of a sheet is invalid: that is rarely N separate mistakes, mostly one
 * cause, named here (undefined when some rows are valid, or the sheet has one row).
 */
export function allInvalidHint(
  rows: number,
  invalid: number,
  what: { command: string; sheet?: string | undefined },
): string | undefined {
  if (rows < 2 || invalid < rows) return undefined;
  const sheet =
    what.sheet === undefined
      ? 'the right sheet (--sheet NAME for a workbook)'
      : `the right sheet (${what.sheet})`;
  return `hint: all ${rows} rows are invalid, which usually means one cause, not ${rows} bad rows: is it ${sheet}, the right delimiter (a comma, semicolon or tab), the right format for mbulk ${what.command} (its columns: mbulk ${what.command} --help), and the right store?`;
}

/** The write operations of an applied run that failed or whose outcome is unknown (run.json counts). */
function unfinishedOps(counts: Readonly<Record<string, number>>): number {
  return (counts['ops_failed'] ?? 0) + (counts['ops_unknown'] ?? 0);
}

/**
 * Whether `mbulk runs resume` continues a run: an interrupted or failed one, or one applied with
 * failed or unknown operations (resume retries those; apply-saved-run's endedWithFailures).
 */
export function isResumable(status: string, counts: Readonly<Record<string, number>>): boolean {
  return (
    status === 'interrupted' || status === 'failed' || (status === 'applied' && unfinishedOps(counts) > 0)
  );
}

/** The flag of each option a planned run may need (run.json's `needs`, ApplyNeed). */
const NEED_FLAGS: Readonly<Record<string, string>> = {
  allowDeletes: '--allow-deletes',
  allowPriceJumps: '--allow-price-jumps',
};

/** What a planned run needs to be applied: run.json's `needs`, and whether a drift check refused it. */
export interface PlannedRunNeeds {
  needs?: readonly string[] | undefined;
  /** drift.json holds a refusal: the store changed since planning, so only `--replan` applies it. */
  drifted?: boolean | undefined;
}

/**
 * The command a run calls for next, by its status and counts (undefined: none). For a planned run
 * it is one that will not be refused: with the flags its refusal needs (`--allow-deletes`,
 * `--allow-price-jumps`), `--replan` once a drift check refused it, or none when no flag lifts it.
 */
export function nextCommand(
  id: string,
  kind: string,
  status: string,
  counts: Readonly<Record<string, number>> = {},
  planned: PlannedRunNeeds = {},
): string | undefined {
  if (status === 'interrupted' || status === 'failed') return `Continue with: mbulk runs resume ${id}`;
  if (isResumable(status, counts)) {
    const n = unfinishedOps(counts);
    return `Continue with: mbulk runs resume ${id} (retries its ${n} failed write${n === 1 ? '' : 's'}; one that may have been sent is checked against the store first)`;
  }
  if (status === 'planned') {
    const needs = planned.needs ?? [];
    if (needs.includes('plan-again'))
      return `Refused when planned, and no flag lifts it: plan it again (why: mbulk runs show ${id} --report)`;
    if (kind === 'rollback') return `Apply with: mbulk runs rollback ${id} --apply`;
    const flags = needs.flatMap((n) => (NEED_FLAGS[n] !== undefined ? [` ${NEED_FLAGS[n]}`] : [])).join('');
    if (planned.drifted === true)
      return `Apply with: mbulk apply ${id} --replan${flags} (the store changed since planning: it is planned again from the run's copy of the input)`;
    return `Apply with: mbulk apply ${id}${flags}`;
  }
  if (status === 'applied' && kind !== 'rollback') return `Undo with: mbulk runs rollback ${id}`;
  return undefined;
}
