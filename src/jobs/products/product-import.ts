import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { productJob, type ApplyProductsOptions, type ProductApplySummary } from './product-job.js';

export {
  planProductImport,
  type PlanProductsImportOptions,
  type PlannedProductRun,
} from './plan-product-import.js';
export { readProductPlan, type ProductOpResult, type ProductPlanFile } from './product-plan-file.js';
export type { ApplyProductsOptions, ProductApplySummary } from './product-job.js';
export {
  amountsNote,
  describeProductEntry,
  formatRowTally,
  liveName,
  productRowTally,
  type ProductRowTally,
  productCounts,
  summarizeCreate,
  writeEntries,
  writeFullProductReport,
} from './product-report.js';
export { failedOptionsFile } from './product-results.js';
export { checkProductDrift, type DriftedProduct } from './product-drift.js';
export { replanProductRun, runsRootOf, type ReplanProductsOptions } from './replan-product-run.js';

/**
 * Applies (or resumes) a planned products run (see productJob): keyed creates, absolute PATCHes and
 * DELETEs, lost PATCH answers reconciled by re-reading, before-states saved first. Works on a
 * RunDirectory loaded from disk in a new process.
 */
export function applyProductRun(
  run: RunDirectory,
  options: ApplyProductsOptions,
): Promise<ProductApplySummary> {
  return runJob(run, productJob, options);
}
