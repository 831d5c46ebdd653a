import { applyRun } from '../../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../../apply/backup.js';
import { defaultIsFatal, type ExecuteSummary, type OperationOutcome } from '../../apply/execute-plan.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { checkRunStore } from '../../apply/run-store.js';
import { countChanges } from '../../results/change-counts.js';
import { failureOf, type ChangeOutcome, type RowRef } from '../../results/change-outcome.js';
import { writeEntityResults } from '../../results/entity-results.js';
import { SheetResultsAhead, writeSheetResults } from '../../results/sheet-results.js';
import { abortFields } from '../job-events.js';
import { applyProgress } from './apply-progress.js';
import type {
  ApplyJobOptions,
  JobContext,
  JobDefinition,
  JobSession,
  JobSummary,
  JobTally,
  PlanFileBase,
  SummaryFields,
} from './job-definition.js';
import { readPlanFile } from './plan-file.js';
import { releasePlanningMemory } from './release-memory.js';
import { countsNotRunApart, runCountsOf, summaryOf } from './summary-fields.js';

/**
 * Applies (or resumes) a planned run of any kind: validates plan.json with the kind's schema, lets
 * the kind refuse (then its invalid rows), runs its operations through the journaled executor (and the kind's second pass) with the backup opened and always closed (try/finally) and
 * finalised, tallies every change once, writes results.csv / failed.csv, derives the summary and
 * run.json's counts from the kind's declaration, writes the report, and returns the summary.
 */
export async function runJob<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Fields extends SummaryFields,
  Own extends object,
  Options extends ApplyJobOptions,
>(
  run: RunDirectory,
  definition: JobDefinition<File, Op, R, Fields, Own, Options>,
  options: NoInfer<Options>,
): Promise<JobSummary<File, Fields, Own>> {
  // A plan made in this process may have left hundreds of MB of garbage (a million-item index).
  releasePlanningMemory();
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, options.client);
  const file = readPlanFile(run, definition.planSchema);
  definition.refuse?.(run, file, options);
  const invalid = definition.invalidRows?.(run, file);
  if (invalid) throw invalid;
  const backup = definition.backup === false ? undefined : BackupLog.open(run.file('backupLog'));
  let requests = 0;
  /** The highest `start` record flushed before a request was handed to the kind. */
  const startedSeq = { highest: 0 };
  const ctx: JobContext<File, Options> = {
    run,
    file,
    client: options.client,
    options,
    readSignal: options.signal ? { signal: options.signal } : {},
    saveBefore: async (entries) => {
      if (!backup) throw new Error(`${definition.kind} runs keep no backup`);
      // The journal is at least this long (evidence against a journal cut short).
      if (backup.record(entries, startedSeq.highest || undefined) > 0) await backup.flush();
    },
    countRequest: () => {
      requests++;
    },
  };
  const started = performance.now();
  const session = definition.session(ctx);
  const results = session.results;
  const declared = results !== undefined && !('entities' in results) ? results : {};
  // results.csv is made while the operations go, but for the rows of their changes.
  const ahead =
    file.input !== undefined && session.operations.length > 0
      ? new SheetResultsAhead(run, file.input, declared, changeRows(session))
      : undefined;
  const applyAndWriteResults = async () => {
    let passes: { execution: ExecuteSummary<Op, R>; reused: number };
    try {
      passes = await executePasses(run, session, options, startedSeq);
    } finally {
      if (backup) {
        await backup.flush();
        backup.close();
      }
    }
    if (backup) finalizeBackup(run.file('backupLog'), run.file('backup'), { runId: run.id });
    const { execution } = passes;
    session.finish?.(execution);

    const changes = execution.outcomes.flatMap((o) => withFailure(o, session.changes(o)));
    // A change the run did not reach is a failure, unless the kind counts those apart.
    const notRunApart = countsNotRunApart(definition.summary);
    const counted = (c: ChangeOutcome) => c.status !== 'done' && (c.status !== 'not_run' || !notRunApart);
    const t: JobTally<Op, R> = {
      ...countChanges(changes, counted),
      execution,
      changes,
      requests,
      reused: passes.reused,
      seconds: (performance.now() - started) / 1000,
      ...abortFields(execution),
    };
    const shape =
      file.input !== undefined
        ? await writeSheetResults(run, file.input, declared, changes, counted, ahead)
        : await writeEntityResults(
            run.file('results'),
            changes,
            results !== undefined && 'entities' in results ? results.entities : [],
            counted,
          );
    return { t, changes, shape };
  };
  // Should anything throw before results.csv is written, what was made ahead is let go.
  const { t, changes, shape } = await applyAndWriteResults().catch(async (error: unknown) => {
    await ahead?.discard().catch(() => undefined);
    throw error;
  });
  const summary = summaryOf<File, Fields, Own>(definition.summary, run, t, session.values?.(t), shape);
  run.update({
    counts: {
      ...run.meta.counts,
      ...runCountsOf(definition.summary, summary),
      // Entities (a product, a stock item…), beside the operations (ops_*: a stock batch is one):
      // what an interrupted run says it wrote.
      changes_total: changes.length,
      changes_done: changes.filter((c) => c.status === 'done').length,
    },
  });
  definition.report(run, file, summary);
  return summary;
}

/** The first pass over every operation, then the kind's `secondPass`, if any. */
async function executePasses<Op extends { key: string }, R>(
  run: RunDirectory,
  session: JobSession<Op, R, object>,
  options: ApplyJobOptions,
  startedSeq: { highest: number },
): Promise<{ execution: ExecuteSummary<Op, R>; reused: number }> {
  const { isFatal } = session;
  let passes = 0;
  const pass = (operations: readonly Op[], retryFailed?: boolean) =>
    applyRun<Op, R>(run, operations, {
      concurrency: options.concurrency ?? 4,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(retryFailed !== undefined ? { retryFailed } : {}),
      // A later pass follows this process's own journal: what it lacks was never sent.
      continuesSession: passes++ > 0,
      keyOf: (op) => op.key,
      execute: (op, exec) => {
        startedSeq.highest = Math.max(startedSeq.highest, exec.seq ?? 0);
        return session.execute(op, exec);
      },
      ...(session.reconcile ? { reconcile: session.reconcile.bind(session) } : {}),
      ...(isFatal ? { isFatal: (error: unknown) => defaultIsFatal(error) || isFatal(error) } : {}),
      onProgress: applyProgress(options),
    });
  const first = await pass(session.operations);
  const second = session.secondPass?.(first);
  const execution = second ? await pass(second.operations, second.retryFailed) : first;
  return { execution, reused: first.counts.reused };
}

/**
 * The input rows the session's operations carry, whatever their outcome: `changes` is a pure
 * mapping, asked here of each operation as not run yet.
 */
function changeRows<Op extends { key: string }, R>(session: JobSession<Op, R, object>): RowRef[] {
  return session.operations.flatMap((op) =>
    session.changes({ status: 'not_run', op, key: op.key }).flatMap((c) => c.rows),
  );
}

/** An operation's changes, each not done with why: its own failure (an item of a batch), else the operation's. */
function withFailure(outcome: OperationOutcome<unknown, unknown>, changes: ChangeOutcome[]): ChangeOutcome[] {
  if (changes.every((c) => c.status === 'done' || c.failure)) return changes;
  const failure = failureOf(outcome);
  return changes.map((c) => (c.status === 'done' || c.failure ? c : { ...c, failure }));
}
