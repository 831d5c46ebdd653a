import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { planRollback, type PlanRollbackOptions, type PlannedRollback } from './plan-rollback.js';
import { RollbackError } from './rollback-plan-file.js';
import { rollbackJob, type ApplyRollbackOptions, type RollbackApplySummary } from './rollback-job.js';

export { planRollback, type PlanRollbackOptions, type PlannedRollback } from './plan-rollback.js';
export { readRollbackPlan, RollbackError, type RollbackPlanFile } from './rollback-plan-file.js';
export type { ApplyRollbackOptions, RollbackApplySummary, RollbackFailure } from './rollback-job.js';
export { describeRestore, restoreLines } from './rollback-report.js';
export { checkRollbackDrift } from './rollback-drift.js';

/**
 * Applies (or resumes) a planned rollback (see rollbackJob): absolute writes and DELETEs, journaled
 * and safe to replay; the live state of each entity as planned is saved first.
 */
export function applyRollbackRun(
  run: RunDirectory,
  options: ApplyRollbackOptions,
): Promise<RollbackApplySummary> {
  return runJob(run, rollbackJob, options);
}

export interface RollbackRunOptions extends PlanRollbackOptions {
  concurrency?: number | undefined;
}

/**
 * Plans and applies the rollback of `source` in one go (the library's short form of
 * `mbulk runs rollback RUN --apply --yes`). Throws RollbackError (exit 3) when refused.
 */
export async function rollbackRun(
  source: RunDirectory,
  options: RollbackRunOptions,
): Promise<{ planned: PlannedRollback; applied: RollbackApplySummary }> {
  const planned = await planRollback(source, options);
  if (planned.refusal) throw new RollbackError(planned.refusal, 'refused');
  const applied = await applyRollbackRun(planned.run, options);
  return { planned, applied };
}
