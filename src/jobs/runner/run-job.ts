import { applyRun } from '../../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../../apply/backup.js';
import { checkRunStore } from '../../apply/run-store.js';
import type { ExecuteSummary } from '../../apply/execute-plan.js';
import { invalidRowResult, type RowFilesSummary } from '../../apply/results-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { abortFields } from '../job-events.js';
import { inputLabel, writeInputResults } from '../run-input.js';
import { applyProgress } from './apply-progress.js';
import { changeRowResult } from './change-outcome.js';
import type {
  ApplyJobOptions,
  ChangeOutcome,
  FailedRow,
  JobContext,
  JobDefinition,
  JobSummary,
  PlanFileBase,
  JobSession,
  JobTally,
  RowResults,
} from './job-definition.js';
import { readPlanFile } from './plan-file.js';

/**
 * Applies (or resumes) a planned run of any kind: validates plan.json with the kind's schema, lets
 * the kind refuse, runs its operations through the journaled executor (pass after pass) with the
 * backup opened and always closed (try/finally) and finalised, tallies every change, writes
 * results.csv / failed.csv, run.json's counts and the report, and returns the kind's summary.
 */
export async function runJob<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Summary extends JobSummary,
>(
  run: RunDirectory,
  definition: JobDefinition<File, Op, R, Summary>,
  options: ApplyJobOptions,
): Promise<Summary> {
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, options.client);
  const file = readPlanFile<File>(run, definition.planSchema);
  definition.refuse?.(run, file, options);
  const backup = definition.backup === false ? undefined : BackupLog.open(run.file('backupLog'));
  let requests = 0;
  const ctx: JobContext<File> = {
    run,
    file,
    client: options.client,
    options,
    readSignal: options.signal ? { signal: options.signal } : {},
    saveBefore: async (entries) => {
      if (!backup) throw new Error(`${definition.kind} runs keep no backup`);
      backup.record(entries);
      await backup.flush();
    },
    countRequest: () => {
      requests++;
    },
  };
  const session = definition.session(ctx);
  let execution: ExecuteSummary<Op, R>;
  try {
    execution = await executePasses(run, session, options);
  } finally {
    if (backup) {
      await backup.flush();
      backup.close();
    }
  }
  if (backup) finalizeBackup(run.file('backupLog'), run.file('backup'), { runId: run.id });

  const changes = execution.outcomes.flatMap((o) => session.changes(o));
  const rows = session.writeResults
    ? await session.writeResults(changes, execution)
    : await writeResults(run, definition, session, file, changes);
  const summary = session.summarize(tally(definition, file, execution, changes, rows, requests));
  run.update({ counts: { ...run.meta.counts, ...definition.runCounts(summary) } });
  definition.report(run, file, summary);
  return summary;
}

async function executePasses<Op extends { key: string }, R>(
  run: RunDirectory,
  session: JobSession<Op, R, unknown>,
  options: ApplyJobOptions,
): Promise<ExecuteSummary<Op, R>> {
  let pass: ReturnType<NonNullable<typeof session.next>> = session.first;
  let execution: ExecuteSummary<Op, R> | undefined;
  while (pass) {
    execution = await applyRun<Op, R>(run, pass.operations, {
      concurrency: options.concurrency ?? 4,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(pass.retryFailed !== undefined ? { retryFailed: pass.retryFailed } : {}),
      keyOf: (op) => op.key,
      execute: (op, exec) => session.execute(op, exec),
      ...(session.reconcile ? { reconcile: session.reconcile.bind(session) } : {}),
      ...(session.isFatal ? { isFatal: session.isFatal.bind(session) } : {}),
      onProgress: applyProgress(options),
    });
    pass = session.next?.(execution);
  }
  return execution as ExecuteSummary<Op, R>;
}

/** Error issues of rows, grouped by row number (a row is invalid when it has one). */
function invalidRows(issues: readonly RowIssue[]): Map<number, RowIssue[]> {
  const byRow = new Map<number, RowIssue[]>();
  for (const i of issues) {
    if (i.severity !== 'error') continue;
    const list = byRow.get(i.rowNumber) ?? [];
    list.push(i);
    byRow.set(i.rowNumber, list);
  }
  return byRow;
}

async function writeResults<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Summary extends JobSummary,
>(
  run: RunDirectory,
  definition: JobDefinition<File, Op, R, Summary>,
  session: JobSession<Op, R, Summary>,
  file: File,
  changes: readonly ChangeOutcome[],
): Promise<RowFilesSummary | undefined> {
  const input = file.input;
  if (!input) return undefined;
  const label = inputLabel(input);
  const rows: RowResults = { byRow: new Map(), extra: new Map() };
  for (const [row, issues] of invalidRows(definition.invalidIssues?.(file) ?? [])) {
    rows.byRow.set(row, invalidRowResult(label, row, issues));
  }
  session.rowResults?.(label, rows);
  for (const c of changes) {
    rows.byRow.set(c.row, changeRowResult(label, c));
    if (c.extra) rows.extra.set(c.row, { ...c.extra });
  }
  return writeInputResults(run, input, rows.byRow, {
    otherwise: definition.otherwise ?? 'unchanged',
    ...(definition.extraColumns ? { extra: rows.extra, extraColumns: definition.extraColumns } : {}),
  });
}

/** Counts every change once: done, failed (unknown included), not run; failed rows in row order. */
function tally<File extends PlanFileBase, Op extends { key: string }, R, Summary extends JobSummary>(
  definition: JobDefinition<File, Op, R, Summary>,
  file: File,
  execution: ExecuteSummary<Op, R>,
  changes: ChangeOutcome[],
  rows: RowFilesSummary | undefined,
  requests: number,
): JobTally<Op, R> {
  const notRunFails = definition.notRun === 'failure';
  const failedRows: FailedRow[] = [];
  let done = 0;
  let failed = 0;
  let unknown = 0;
  let notRun = 0;
  for (const c of changes) {
    if (c.status === 'done') {
      done++;
      continue;
    }
    // Not tried because the run stopped first: a run to resume, not a failure to fix (most kinds).
    if (c.status === 'not_run' && !notRunFails) {
      notRun++;
      continue;
    }
    failed++;
    if (c.status === 'unknown') unknown++;
    failedRows.push({
      sheet: c.sheet,
      row: c.row,
      code: c.failure?.code ?? 'error',
      message: c.failure?.message ?? '',
    });
  }
  for (const i of definition.invalidIssues?.(file) ?? []) {
    if (i.severity === 'error')
      failedRows.push({ sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message });
  }
  failedRows.sort((a, b) => a.row - b.row);
  return {
    execution,
    changes,
    done,
    failed,
    unknown,
    notRun,
    requests,
    rows,
    failedRows,
    ...abortFields(execution),
  };
}
