import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { TemplatePlan, TemplatePlanEntry } from '../../plan/template-plan.js';
import { templateReview } from '../../report/template-review.js';
import { countLines, issueLines, reviewState, sheetRunFacts } from '../sheet-run-report.js';
import type { TemplatePlanFile } from './template-plan-file.js';
import type { TemplateRowOutcome } from './template-job.js';

/** Rows with at least one error (the sheet's own problems and the plan's: duplicate or taken names). */
export function invalidRowCount(issues: readonly RowIssue[]): number {
  return new Set(issues.filter((i) => i.severity === 'error').map((i) => `${i.sheet}\0${i.rowNumber}`)).size;
}

export function templateCounts(plan: TemplatePlan): Record<string, number> {
  return {
    create: plan.counts.create,
    unchanged: plan.counts.unchanged,
    invalid: invalidRowCount(plan.issues.filter((i) => i.rowNumber > 1)),
  };
}

/** "row 2: order_ready (UTILITY, 2 variables, 1 button)" */
export function describeTemplateEntry(e: TemplatePlanEntry): string {
  const vars = Object.keys(e.body.parameter_examples ?? {}).length;
  const buttons = e.body.buttons?.length ?? 0;
  const parts = [e.body.category, `${vars} variable${vars === 1 ? '' : 's'}`];
  if (buttons > 0) parts.push(`${buttons} button${buttons === 1 ? '' : 's'}`);
  const what =
    e.action === 'unchanged'
      ? `exists already (${e.existing?.status ?? 'unknown status'})`
      : `create (${parts.join(', ')})`;
  return `row ${e.rowNumber}: ${e.name}: ${what}`;
}

/** report.html / report.md of a templates run: the plan, and after an apply what was created. */
export function writeTemplateReport(
  run: RunDirectory,
  file: TemplatePlanFile,
  applied?: {
    status: 'completed' | 'interrupted' | 'aborted';
    created: number;
    failed: number;
    templates: readonly TemplateRowOutcome[];
    /** Templates not created, by plan key (`pending`, `failed: …`). */
    notWritten: Readonly<Record<string, string>>;
  },
): void {
  const counts = templateCounts(file.plan);
  writeReport(run.file('report'), {
    title: 'Create message templates',
    runId: run.id,
    facts: sheetRunFacts(run, file),
    counts: [
      ...countLines(counts, ['create', 'unchanged', ['invalid rows', 'invalid']]),
      ...(applied
        ? ([
            ['created', applied.created],
            ['failed', applied.failed],
          ] as const)
        : []),
    ],
    changes: applied
      ? applied.templates.map(
          (t) =>
            `row ${t.row}: ${t.name}: ${t.outcome}${t.id ? ` ${t.id}` : ''}${t.status ? ` ${t.status}` : ''}${t.error ? ` (${t.error})` : ''}`,
        )
      : file.plan.entries.map(describeTemplateEntry),
    issues: issueLines(file.plan.issues),
    notes: [
      'Templates are reviewed outside the store: follow the review with `mbulk templates status --watch`.',
    ],
    review: templateReview(file, reviewState(run, applied)),
  });
}
