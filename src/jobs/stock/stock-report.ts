import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { StockChange, StockPlan } from '../../plan/stock-plan.js';
import { stockChange } from '../../plan/plan-changes.js';
import { stockReview } from '../../report/stock-review.js';
import { countLines, errorRowNumbers, issueLines, reviewState, sheetRunFacts } from '../sheet-run-report.js';
import type { StockPlanFile } from './stock-plan-file.js';

export function stockCounts(plan: StockPlan): Record<string, number> {
  return {
    rows: plan.rows,
    change: plan.changes.length,
    unchanged: plan.unchanged,
    skipped: plan.skipped.length,
    invalid: errorRowNumbers(plan.issues).size,
  };
}

/** A change as people read it: `TEE-BLK-M (Tee / Black M): 5 → 8`. */
export function describeStockChange(c: StockChange): string {
  const how = c.mode === 'delta' ? ` (delta ${c.value > 0 ? '+' : ''}${c.value})` : '';
  // Read as the MCP tools read it (plan-changes.ts): the same quantity before and after.
  const [quantity] = stockChange(c).fields;
  return `row ${c.rowNumber}: ${c.sku ?? c.itemId} (${c.name}): ${String(quantity?.before)} → ${String(quantity?.after)}${how}`;
}

/** The plan's counts as the report shows them (the page: all but `rows`). */
const PLANNED = ['rows', 'change', 'unchanged', 'skipped', ['invalid rows', 'invalid']] as const;

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
      ...sheetRunFacts(run, file, [
        [
          'Mode',
          file.plan.options.preserveSales
            ? 'deltas from the planned quantities (--preserve-sales)'
            : 'absolute quantities',
        ],
      ]),
      ...(file.refusal ? ([['Refused', file.refusal]] as const) : []),
    ],
    counts: [
      ...countLines(counts, PLANNED),
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
      ...issueLines(file.plan.issues),
      ...file.plan.skipped.map((s) => `skipped: ${s.sheet} row ${s.rowNumber}: ${s.reason}`),
    ],
    review: stockReview(file, {
      ...reviewState(run, applied),
      outcomes: applied,
      // The page shows the counts of this state only: planned, or done.
      counts: applied
        ? [
            ['updated', applied.applied],
            ['failed', applied.failed],
            ['pending', applied.pendingItems.length],
          ]
        : countLines(counts, PLANNED.slice(1)),
    }),
  });
}
