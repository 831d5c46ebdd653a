import type { AbortCause } from '../jobs/job-events.js';
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
): ExitCode {
  if (applied.abortedBy !== undefined) out.warn(`mbulk: stopped: ${applied.abortedBy.message}`);
  if (applied.abortedBy?.exitCode === ExitCode.Unreachable) return ExitCode.Unreachable;
  if (applied.abortedBy?.exitCode === ExitCode.LocalFailure) return ExitCode.LocalFailure;
  return rowsFailed || applied.status !== 'completed' ? ExitCode.RowsFailed : ExitCode.Ok;
}
