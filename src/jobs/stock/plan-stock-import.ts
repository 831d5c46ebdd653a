import type { RunDirectory } from '../../apply/run-directory.js';
import { resolveStockColumns } from '../../mapping/stock-sheet.js';
import { prependAll } from '../../plan/append-all.js';
import { StockPlanner, checkMaxChanges, parseMaxChanges } from '../../plan/stock-plan.js';
import { StockSheetDigest } from '../../plan/stock-sheet-digest.js';
import type { Store } from '../../schema/index.js';
import { UsageError } from '../../errors/usage-error.js';
import { planFromSheet, type PlanFromSheetOptions } from '../runner/plan-from-sheet.js';
import { readStockSheet } from './read-stock-sheet.js';
import { lastLiveItems, readLiveInventory } from './live-inventory.js';
import type { StockPlanFile } from './stock-plan-file.js';
import { stockCounts, writeStockReport } from './stock-report.js';

export interface PlanStockOptions extends PlanFromSheetOptions {
  preserveSales?: boolean;
  /** Entries per batch request (default 100). */
  batchSize?: number;
  /** `N` or `P%`: refuse a plan that changes more items. */
  maxChanges?: string | undefined;
}

export interface PlannedStockRun {
  run: RunDirectory;
  file: StockPlanFile;
  store: Store;
  /** Set when a guardrail refuses the plan (exit 3); nothing may be applied. */
  refusal?: string;
}

/** Reads the sheet, the live inventory, and plans (dry run): only items whose quantity changes. */
export async function planStockImport(options: PlanStockOptions): Promise<PlannedStockRun> {
  const limit = options.maxChanges === undefined ? undefined : parseMaxChanges(options.maxChanges);
  if (options.maxChanges !== undefined && limit === undefined) {
    throw new UsageError(
      `--max-changes must be a count (50) or a percentage (10%), not "${options.maxChanges}"`,
      'max-changes',
    );
  }
  const preserveSales = options.preserveSales ?? false;
  const batchSize = options.batchSize ?? 100;
  return planFromSheet(options, {
    kind: 'stock',
    // The planner sees each row against the live inventory: it is read first. A sheet of `sku`
    // and `quantity` alone is read meanwhile, kept small, and planned once the index is complete.
    read: () =>
      readStockSheet(options, {
        header: (info) => resolveStockColumns(info.sheet, info.columns),
        early: (columns) => StockSheetDigest.of(columns),
        take: async (columns) => {
          const index = await readLiveInventory(
            options.client,
            options,
            lastLiveItems(options.runsRoot, options.target),
          );
          return Object.assign(new StockPlanner(index, columns, { preserveSales }), {
            liveItems: index.size,
          });
        },
      }),
    plan: async ({ taken, headerIssues }, store) => {
      const plan = taken.finish();
      prependAll(plan.issues, headerIssues);
      const refusal = limit ? checkMaxChanges(plan.changes.length, taken.liveItems, limit) : undefined;
      return {
        options: {
          preserveSales: plan.options.preserveSales,
          batchSize,
          ...(options.maxChanges ? { maxChanges: options.maxChanges } : {}),
          ...(options.allowEmpty ? { allowEmpty: true } : {}),
        },
        file: (head) => ({
          ...head,
          store: { id: store.id, name: store.name, currency: store.currency },
          batchSize: Math.max(1, batchSize),
          liveItems: taken.liveItems,
          plan,
          ...(refusal ? { refusal } : {}),
        }),
        refusal,
      };
    },
    counts: (file) => stockCounts(file.plan),
    // A sheet of `delta_quantity` adds to the stock: applied twice, it adds twice.
    deltas: (read) => read.columns.delta_quantity !== undefined,
    report: writeStockReport,
  });
}
