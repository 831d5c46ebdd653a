import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { stockJob, type ApplyStockOptions, type StockApplySummary } from './stock-job.js';

export { planStockImport, type PlanStockOptions, type PlannedStockRun } from './plan-stock-import.js';
export type { StockPlanFile } from './stock-plan-file.js';
export type { ApplyStockOptions, StockApplySummary } from './stock-job.js';
export { describeStockChange, stockCounts } from './stock-report.js';

/**
 * Applies (or resumes) a planned stock run (see stockJob): batches with deterministic
 * Idempotency-Keys, or one PATCH per item where the batch route is missing.
 */
export function applyStockRun(run: RunDirectory, options: ApplyStockOptions): Promise<StockApplySummary> {
  return runJob(run, stockJob, options);
}
