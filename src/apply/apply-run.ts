import type { ExecuteOptions, ExecuteSummary } from './execute-plan.js';
import { executeOperations } from './execute-plan.js';
import type { JournalOptions } from './journal.js';
import { Journal } from './journal.js';
import type { RunDirectory, RunStatus } from './run-directory.js';

export interface ApplyRunOptions<Op, R> extends Omit<ExecuteOptions<Op, R>, 'journal'> {
  journal?: JournalOptions;
}

/**
 * Runs (or resumes) operations in a run directory: holds the journal's lock, sets run.json's
 * status to `applying` (with this pid) and then to `applied` (every operation tried, some may
 * have failed), `interrupted` (signal) or `failed` (a fatal error, e.g. unreachable), with the
 * counts. Calling it again on the same run resumes it.
 */
export async function applyRun<Op, R>(
  run: RunDirectory,
  ops: readonly Op[],
  options: ApplyRunOptions<Op, R>,
): Promise<ExecuteSummary<Op, R>> {
  const { journal: journalOptions, ...execute } = options;
  const journal = Journal.open(run.file('journal'), journalOptions);
  try {
    run.setStatus('applying');
    let summary: ExecuteSummary<Op, R>;
    try {
      summary = await executeOperations(ops, { ...execute, journal });
    } catch (error) {
      run.setStatus('failed');
      throw error;
    }
    const status: RunStatus =
      summary.status === 'completed'
        ? 'applied'
        : summary.status === 'interrupted'
          ? 'interrupted'
          : 'failed';
    const { total, done, executed, reused, reconciled, failed, unknown, notRun } = summary.counts;
    run.setStatus(status, {
      ...run.meta.counts,
      ops_total: total,
      ops_done: done,
      ops_executed: executed,
      ops_reused: reused,
      ops_reconciled: reconciled,
      ops_failed: failed,
      ops_unknown: unknown,
      ops_not_run: notRun,
    });
    return summary;
  } finally {
    journal.close();
  }
}
