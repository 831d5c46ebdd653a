import type { ExecuteProgress } from '../../apply/execute-plan.js';
import type { JobCallbacks } from '../job-events.js';

/** The executor's progress as a job's `apply` phase. */
export function applyProgress(options: JobCallbacks): (p: ExecuteProgress) => void {
  return (p) =>
    options.onProgress?.({
      phase: 'apply',
      done: p.completed,
      total: p.total,
      failed: p.failed,
      rate: p.rate,
      etaSeconds: p.etaSeconds,
      inFlight: p.inFlight,
    });
}
