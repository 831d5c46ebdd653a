import type { ExecuteOptions, ExecuteSummary } from './execute-plan.js';
import { executeOperations } from './execute-plan.js';
import type { JournalOptions } from './journal.js';
import { Journal, SETTLED_KEY, journalDamage } from './journal.js';
import { runJournalEvidence } from './journal-evidence.js';
import type { RunDirectory, RunStatus } from './run-directory.js';
import { MbulkError } from '../errors/mbulk-error.js';

export interface ApplyRunOptions<Op, R> extends Omit<ExecuteOptions<Op, R>, 'journal'> {
  journal?: JournalOptions;
  /**
   * This process wrote the journal up to now (a second pass of one apply, e.g. a fallback): what
   * it does not hold was never sent. Otherwise a run started before is a resume, and every write
   * its journal does not prove is proven against the store before it is sent (`unjournaledSince`).
   */
  continuesSession?: boolean;
}

/**
 * The journal of a run cannot prove what was sent (bad checksum, missing records, zeroed bytes):
 * resuming it blindly could send a write twice. Usage error (exit 2): `runs resume --reconcile`.
 */
export class JournalDamagedError extends MbulkError {
  static override readonly errorName: string = 'JournalDamagedError';
  readonly code = 'journal_damaged';
  constructor(
    readonly runId: string,
    readonly file: string,
    readonly damage: readonly string[],
  ) {
    super(
      'usage',
      `the journal ${file} is damaged (${damage.slice(0, 3).join('; ')}${damage.length > 3 ? `; and ${damage.length - 3} more` : ''}); it cannot tell what was already sent, so nothing was written. To settle every operation it cannot prove by re-reading the store (no delta is resent): mbulk runs resume ${runId} --reconcile`,
    );
  }
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
  const { journal: journalOptions, continuesSession, ...execute } = options;
  const journal = Journal.open(run.file('journal'), journalOptions);
  try {
    const { previous } = journal;
    const evidence = runJournalEvidence(run);
    const damage = journalDamage(previous, evidence);
    const settle =
      execute.settleUnproven ?? (run.settleUnproven ? { since: run.meta.created_at } : undefined);
    if (damage.length > 0 && !settle) throw new JournalDamagedError(run.id, journal.file, damage);
    // A run started before: its journal may have lost its last records without a trace (a run
    // directory restored from a snapshot, a copy, a file system that ignored fdatasync), so
    // what it does not prove may have been sent, after its last record at the earliest.
    const resumed =
      continuesSession !== true &&
      (run.meta.status !== 'planned' || previous.records > 0 || evidence.backupSeq !== undefined);
    const unjournaledSince =
      execute.unjournaledSince ?? (resumed ? (previous.lastAt ?? run.meta.created_at) : undefined);
    run.setStatus('applying');
    let summary: ExecuteSummary<Op, R>;
    try {
      summary = await executeOperations(ops, {
        ...execute,
        journal,
        ...(settle ? { settleUnproven: settle } : {}),
        ...(unjournaledSince !== undefined ? { unjournaledSince } : {}),
      });
    } catch (error) {
      // Records were written before the failure: a later resume must still notice a truncation.
      run.setStatus('failed');
      run.update({ journal_seq: journal.lastSeq });
      throw error;
    }
    if (damage.length > 0 && summary.status === 'completed' && summary.counts.unknown === 0) {
      // Every operation the damaged journal could not prove was settled against the store: say
      // so in the journal, so later sessions (`runs resume`, `runs show`) see a settled run.
      journal.append({ op: 'reconcile', phase: 'settled', key: SETTLED_KEY });
      await journal.flush();
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
    // How long the journal is: a later resume that finds it shorter knows it was truncated.
    run.update({ journal_seq: journal.lastSeq });
    return summary;
  } finally {
    journal.close();
  }
}
