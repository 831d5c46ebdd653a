import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { formatRowIssue } from '../../mapping/row-issue.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  type CustomerPlan,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import { customerEntryChange } from '../../plan/plan-changes.js';
import { customerReview } from '../../report/customer-review.js';
import type { CustomerPlanFile } from './customer-plan-file.js';

export function invalidRowNumbers(plan: CustomerPlan): Set<number> {
  return new Set(plan.issues.filter((i) => i.severity === 'error').map((i) => i.rowNumber));
}

/** Counts for people and run.json: rows, create, update, unchanged, skipped, invalid. */
export function customerCounts(file: Pick<CustomerPlanFile, 'plan' | 'rows'>): Record<string, number> {
  const { counts } = file.plan;
  return {
    rows: file.rows,
    create: counts.create,
    update: counts.update,
    unchanged: counts.noop,
    skipped: counts.skip,
    invalid: invalidRowNumbers(file.plan).size,
  };
}

/** Planned writes (creates and updates), in sheet order. */
export function customerChanges(plan: CustomerPlan): CustomerPlanEntry[] {
  return plan.entries.filter((e) => e.action === 'create' || e.action === 'update');
}

function show(value: unknown): string {
  return value === null || value === undefined || value === '' ? '(blank)' : String(value);
}

/**
 * A planned change as people read it:
 * `row 3: update cus_01 Aina (matched by phone): name: Aina → Aina Binti (renaming matched customer); email: (blank) → a@x.com`
 * `row 5: create Chen: name: Chen; phone: 60172223333; email: chen@example.com`
 */
export function describeCustomerChange(e: CustomerPlanEntry): string {
  // Read as the MCP tools read it (plan-changes.ts): the same fields, the same values.
  const changes = customerEntryChange(e).fields;
  if (e.action === 'create') {
    const fields = changes.map((c) => `${c.field}: ${show(c.after)}`).join('; ');
    return `row ${e.rowNumber}: create ${e.create?.name ?? ''}: ${fields}`;
  }
  const who = `${e.customerId ?? ''} ${e.before?.name ?? ''}`.trim();
  const how = e.matchedBy ? ` (matched by ${e.matchedBy})` : '';
  const fields = changes
    .map((c) => {
      const text = `${c.field}: ${show(c.before)} → ${show(c.after)}`;
      // A new name on a matched customer is the one change people must not miss: it is either a
      // correction or a row that describes someone else.
      return c.field === 'name' ? `${text} (renaming matched customer)` : text;
    })
    .join('; ');
  return `row ${e.rowNumber}: ${e.action} ${who}${how}: ${fields}`;
}

/** report.html / report.md of a customers run: the plan, and after an apply what was written. */
export function writeCustomerReport(
  run: RunDirectory,
  file: CustomerPlanFile,
  applied?: {
    status: 'completed' | 'interrupted' | 'aborted';
    created: number;
    updated: number;
    failed: number;
    requests: number;
    /** Customers not written, by plan key (`pending`, `failed: …`). */
    notWritten: Readonly<Record<string, string>>;
  },
): void {
  const counts = customerCounts(file);
  const changes = customerChanges(file.plan);
  writeReport(run.file('report'), {
    title: 'Import customers',
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      [
        'Store',
        `${file.store.name} (${file.store.id}), national phone numbers read as ${file.store.country}`,
      ],
      ['Target', run.meta.target],
      ['Blank cells', file.blank === 'clear' ? 'a blank email erases the live one' : 'leave live values'],
      ['Matched on', (file.match ?? DEFAULT_CUSTOMER_MATCH).join(', then ')],
      ['Status', run.refresh().status],
    ],
    counts: [
      ['rows', counts['rows'] ?? 0],
      ['create', counts['create'] ?? 0],
      ['update', counts['update'] ?? 0],
      ['unchanged', counts['unchanged'] ?? 0],
      ['skipped', counts['skipped'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['created', applied.created],
            ['updated', applied.updated],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: changes.map(describeCustomerChange),
    issues: file.plan.issues.map((i) => `${i.severity}: ${formatRowIssue(i)}`),
    review: customerReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
      ...(applied && applied.status !== 'completed' ? { resumeCommand: `mbulk runs resume ${run.id}` } : {}),
      ...(applied ? { applied: { notWritten: applied.notWritten } } : {}),
      // The page shows the counts of this state only: planned, or done.
      counts: applied
        ? [
            ['created', applied.created],
            ['updated', applied.updated],
            ['failed', applied.failed],
          ]
        : [
            ['create', counts['create'] ?? 0],
            ['update', counts['update'] ?? 0],
            ['unchanged', counts['unchanged'] ?? 0],
            ['skipped', counts['skipped'] ?? 0],
            ['invalid rows', counts['invalid'] ?? 0],
          ],
    }),
  });
}
