import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { formatRowIssue } from '../../mapping/row-issue.js';
import type { StockChange, StockPlan } from '../../plan/stock-plan.js';
import { stockChange } from '../../plan/plan-changes.js';
import { stockReview } from '../../report/stock-review.js';
import type { StockPlanFile } from './stock-plan-file.js';

export function stockCounts(plan: StockPlan): Record<string, number> {
  const invalidRows = new Set(plan.issues.filter((i) => i.severity === 'error').map((i) => i.rowNumber));
  return {
    rows: plan.rows,
    change: plan.changes.length,
    unchanged: plan.unchanged,
    skipped: plan.skipped.length,
    invalid: invalidRows.size,
  };
}

/** A change as people read it: `TEE-BLK-M (Tee / Black M): 5 → 8`. */
export function describeStockChange(c: StockChange): string {
  const how = c.mode === 'delta' ? ` (delta ${c.value > 0 ? '+' : ''}${c.value})` : '';
  // Read as the MCP tools read it (plan-changes.ts): the same quantity before and after.
  const [quantity] = stockChange(c).fields;
  return `row ${c.rowNumber}: ${c.sku ?? c.itemId} (${c.name}): ${String(quantity?.before)} → ${String(quantity?.after)}${how}`;
}

/** report.html / report.md of a stock run: the plan, and after an apply what was written. */
export function writeStockReport(
  run: RunDirectory,
  file: StockPlanFile,
  applied?: {
    applied: number;
    failed: number;
    requests: number;
    failedRows: readonly { row: number; code: string; message: string }[];
    pendingItems: readonly string[];
    status: 'completed' | 'interrupted' | 'aborted';
  },
): void {
  const counts = stockCounts(file.plan);
  writeReport(run.file('report'), {
    title: 'Import stock',
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      [
        'Mode',
        file.plan.options.preserveSales
          ? 'deltas from the planned quantities (--preserve-sales)'
          : 'absolute quantities',
      ],
      ['Status', run.refresh().status],
      ...(file.refusal ? ([['Refused', file.refusal]] as const) : []),
    ],
    counts: [
      ['rows', counts['rows'] ?? 0],
      ['change', counts['change'] ?? 0],
      ['unchanged', counts['unchanged'] ?? 0],
      ['skipped', counts['skipped'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['applied', applied.applied],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: file.plan.changes.map(describeStockChange),
    issues: [
      ...file.plan.issues.map((i) => `${i.severity}: ${formatRowIssue(i)}`),
      ...file.plan.skipped.map((s) => `skipped: ${s.sheet} row ${s.rowNumber}: ${s.reason}`),
    ],
    review: stockReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
      outcomes: applied,
      // The page shows the counts of this state only: planned, or done.
      counts: applied
        ? [
            ['updated', applied.applied],
            ['failed', applied.failed],
            ['pending', applied.pendingItems.length],
          ]
        : [
            ['change', counts['change'] ?? 0],
            ['unchanged', counts['unchanged'] ?? 0],
            ['skipped', counts['skipped'] ?? 0],
            ['invalid rows', counts['invalid'] ?? 0],
          ],
      ...(applied && applied.status !== 'completed' ? { resumeCommand: `mbulk runs resume ${run.id}` } : {}),
    }),
  });
}
