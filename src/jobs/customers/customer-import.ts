import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { customerJob, type ApplyCustomersOptions, type CustomerApplySummary } from './customer-job.js';

export {
  planCustomerImport,
  type PlanCustomersOptions,
  type PlannedCustomerRun,
} from './plan-customer-import.js';
export type { BlankMode, CustomerPlanFile } from './customer-plan-file.js';
export type { ApplyCustomersOptions, CustomerApplySummary } from './customer-job.js';
export { customerChanges, customerCounts, describeCustomerChange } from './customer-report.js';
export { checkCustomerDrift } from './customer-drift.js';

/**
 * Applies (or resumes) a planned customers run (see customerJob): keyed creates, absolute PATCHes,
 * before-states saved first; results.csv and failed.csv cover every input row.
 */
export function applyCustomerRun(
  run: RunDirectory,
  options: ApplyCustomersOptions,
): Promise<CustomerApplySummary> {
  return runJob(run, customerJob, options);
}
