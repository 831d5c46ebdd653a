import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  type CustomerPlan,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import { customerEntryChange } from '../../plan/plan-changes.js';
import { customerReview } from '../../report/customer-review.js';
import { countLines, errorRowNumbers, issueLines, reviewState, sheetRunFacts } from '../sheet-run-report.js';
import type { CustomerPlanFile } from './customer-plan-file.js';

/** Counts for people and run.json: rows, create, update, unchanged, skipped, invalid. */
export function customerCounts(file: Pick<CustomerPlanFile, 'plan' | 'rows'>): Record<string, number> {
  const { counts } = file.plan;
  return {
    rows: file.rows,
    create: counts.create,
    update: counts.update,
    unchanged: counts.noop,
    skipped: counts.skip,
    invalid: errorRowNumbers(file.plan.issues).size,
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

/** The plan's counts as the review page shows them (the report: `rows` first). */
const PLANNED = ['create', 'update', 'unchanged', 'skipped', ['invalid rows', 'invalid']] as const;

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
    facts: sheetRunFacts(
      run,
      file,
      [
        ['Blank cells', file.blank === 'clear' ? 'a blank email erases the live one' : 'leave live values'],
        ['Matched on', (file.match ?? DEFAULT_CUSTOMER_MATCH).join(', then ')],
      ],
      `${file.store.name} (${file.store.id}), national phone numbers read as ${file.store.country}`,
    ),
    counts: [
      ...countLines(counts, ['rows', ...PLANNED]),
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
    issues: issueLines(file.plan.issues),
    review: customerReview(file, {
      ...reviewState(run, applied),
      // The page shows the counts of this state only: planned, or done.
      counts: applied
        ? [
            ['created', applied.created],
            ['updated', applied.updated],
            ['failed', applied.failed],
          ]
        : countLines(counts, PLANNED),
    }),
  });
}
