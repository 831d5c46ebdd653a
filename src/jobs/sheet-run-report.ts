import type { RunDirectory } from '../apply/run-directory.js';
import type { RunInput } from '../apply/run-input.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import type { ReviewOptions } from '../report/product-review.js';

/**
 * The parts of a report (report.md, report.html) every kind planned from a sheet writes alike:
 * its opening facts, its counts as labelled lines, its row issues, and the review page's state.
 */

type Fact = readonly [label: string, value: string];

/**
 * The facts a report of a run from a sheet opens with: its input, store and target, the kind's own
 * facts, then the run's status. `store`: the store as the kind shows it (default `Name (id)`).
 */
export function sheetRunFacts(
  run: RunDirectory,
  file: { input: RunInput; store: { id: string; name: string } },
  own: readonly Fact[] = [],
  store = `${file.store.name} (${file.store.id})`,
): Fact[] {
  return [
    ['Input', file.input.original],
    ['Store', store],
    ['Target', run.meta.target],
    ...own,
    ['Status', run.refresh().status],
  ];
}

/**
 * A kind's counts as `[label, count]` lines, in the order named: a name is its label, or
 * `[label, name]` shows the count `name` as `label` (a count the kind did not make is 0).
 */
export function countLines(
  counts: Readonly<Record<string, number>>,
  names: ReadonlyArray<string | readonly [label: string, name: string]>,
): [string, number][] {
  return names.map((n) => (typeof n === 'string' ? [n, counts[n] ?? 0] : [n[0], counts[n[1]] ?? 0]));
}

/** Row issues as report lines: `error: stock.csv row 3, column B (quantity): …`. */
export function issueLines(issues: readonly RowIssue[]): string[] {
  return issues.map((i) => `${i.severity}: ${formatRowIssue(i)}`);
}

/** The numbers of the rows with an error (invalid rows). */
export function errorRowNumbers(issues: readonly RowIssue[]): Set<number> {
  return new Set(issues.filter((i) => i.severity === 'error').map((i) => i.rowNumber));
}

/**
 * What the review page shows of the run's state: before an apply, the command that applies it;
 * after one, failed.csv, what was not written (by plan key) and, for a run that did not complete,
 * the command that resumes it.
 */
export function reviewState(
  run: RunDirectory,
  applied?: {
    status: 'completed' | 'interrupted' | 'aborted';
    notWritten?: Readonly<Record<string, string>>;
  },
): ReviewOptions {
  if (!applied) return { applyCommand: `mbulk apply ${run.id}`, failedWritten: false };
  return {
    failedWritten: true,
    ...(applied.notWritten ? { applied: { notWritten: applied.notWritten } } : {}),
    ...(applied.status !== 'completed' ? { resumeCommand: `mbulk runs resume ${run.id}` } : {}),
  };
}
