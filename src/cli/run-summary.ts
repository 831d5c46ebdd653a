import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
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
