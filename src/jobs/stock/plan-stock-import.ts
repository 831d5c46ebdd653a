import type { MerchantClient } from '../../api/merchant-client.js';
import { RunDirectory } from '../../apply/run-directory.js';
import { clientStore, PLANNER_STORE_MAX_AGE_MS } from '../../apply/run-store.js';
import { resolveStockColumns } from '../../mapping/stock-sheet.js';
import { prependAll } from '../../plan/append-all.js';
import { StockPlanner, checkMaxChanges, parseMaxChanges } from '../../plan/stock-plan.js';
import type { Store } from '../../schema/index.js';
import type { ReadSheetOptions } from '../../sheets/read-sheet.js';
import { refuseEmptySheet } from '../empty-sheet.js';
import type { JobCallbacks } from '../job-events.js';
import { keepRunInput } from '../run-input.js';
import { openSheet, readRowsInBatches, refuseFatalHeader } from '../runner/read-input.js';
import { UsageError } from '../../errors/usage-error.js';
import { readLiveInventory } from './live-inventory.js';
import type { StockPlanFile } from './stock-plan-file.js';
import { stockCounts, writeStockReport } from './stock-report.js';

export interface PlanStockOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  preserveSales?: boolean;
  /** Entries per batch request (default 100). */
  batchSize?: number;
  /** `N` or `P%`: refuse a plan that changes more items. */
  maxChanges?: string | undefined;
  /** Plan a sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean | undefined;
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
  const { client } = options;
  const limit = options.maxChanges === undefined ? undefined : parseMaxChanges(options.maxChanges);
  if (options.maxChanges !== undefined && limit === undefined) {
    throw new UsageError(
      `--max-changes must be a count (50) or a percentage (10%), not "${options.maxChanges}"`,
      'max-changes',
    );
  }
  const store = await clientStore(client, options.signal, PLANNER_STORE_MAX_AGE_MS);
  const { reader, info } = await openSheet(options.file, options.read);
  const { columns, issues: headerIssues } = resolveStockColumns(info.sheet, info.columns);
  await refuseFatalHeader(reader, options.file, headerIssues);
  const index = await readLiveInventory(client, options);
  const planner = new StockPlanner(index, columns, { preserveSales: options.preserveSales ?? false });
  const rows = await readRowsInBatches(reader, options.file, options, (row) => planner.add(row));
  const plan = planner.finish();
  refuseEmptySheet(options.file, rows, options.allowEmpty);
  prependAll(plan.issues, headerIssues);

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'stock',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: {
      preserveSales: plan.options.preserveSales,
      batchSize: options.batchSize ?? 100,
      ...(options.maxChanges ? { maxChanges: options.maxChanges } : {}),
      ...(options.allowEmpty ? { allowEmpty: true } : {}),
    },
    counts: stockCounts(plan),
  });
  const file: StockPlanFile = {
    kind: 'stock',
    version: 1,
    store: { id: store.id, name: store.name, currency: store.currency },
    input: keepRunInput(run, options.file, 'stock', info.format === 'xlsx' ? info.sheet : undefined),
    batchSize: Math.max(1, options.batchSize ?? 100),
    liveItems: index.size,
    plan,
  };
  const refusal = limit ? checkMaxChanges(plan.changes.length, index.size, limit) : undefined;
  if (refusal) file.refusal = refusal;
  run.writePlan(file);
  writeStockReport(run, file);
  return refusal ? { run, file, store, refusal } : { run, file, store };
}
