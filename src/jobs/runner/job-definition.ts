import type { z } from 'zod';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { BackupEntry } from '../../apply/backup.js';
import type {
  ExecuteContext,
  ExecuteSummary,
  OperationOutcome,
  ReconcileDecision,
} from '../../apply/execute-plan.js';
import type { OperationState } from '../../apply/journal.js';
import type { RowFilesSummary, RowOutcome, RowResult } from '../../apply/results-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { WriteCheckOptions } from '../../apply/write-check.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { AbortCause, JobCallbacks } from '../job-events.js';
import type { RunInput } from '../run-input.js';
import type { DriftedEntity } from '../../plan/drifted-entity.js';

export type { DriftedEntity } from '../../plan/drifted-entity.js';

/** What every kind's apply summary has: the runner and `mbulk apply` read these. */
export interface JobSummary {
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit 4: the API unreachable or the token rejected). */
  abortedBy?: AbortCause | undefined;
  failed: number;
  failedRows?: readonly unknown[] | undefined;
}

/** What every apply takes (each kind documents which of the optional ones it reads). */
export interface ApplyJobOptions extends JobCallbacks {
  client: MerchantClient;
  /** Operations in flight at most (default 4). */
  concurrency?: number | undefined;
  /** `mbulk apply --allow-price-jumps` (products runs; default false). */
  allowPriceJumps?: boolean | undefined;
  /** Write-time re-read of products and customers (`--strict-check`). */
  writeCheck?: WriteCheckOptions | undefined;
}

/** What the runner hands a kind while it applies one run. */
export interface JobContext<File> {
  run: RunDirectory;
  /** plan.json, validated with the kind's schema. */
  file: File;
  client: MerchantClient;
  options: ApplyJobOptions;
  /** `{ signal }` for reads (writes take none: a stop lets the writes in flight finish). */
  readSignal: { signal?: AbortSignal };
  /**
   * Saves before-states to the run's backup and waits until they are on disk: call it right
   * before sending the write (the first before-state of an entity wins, across resumes too).
   */
  saveBefore(entries: ReadonlyArray<Omit<BackupEntry, 't'>>): Promise<void>;
  /** Counts one write request sent by this session (the summary's `requests`). */
  countRequest(): void;
}

/** One pass of operations through the journaled executor. */
export interface JobPass<Op> {
  operations: readonly Op[];
  /** Run again operations that failed definitely in an earlier session (default true). */
  retryFailed?: boolean;
}

/** How one planned change (a row, an item of a batch, an entity) ended. */
export interface ChangeOutcome {
  /** Sheet name as rows carry it, or the entity type for runs that are not read from a sheet. */
  sheet: string;
  /** Input row (0 when the change has no row, e.g. a rollback entity). */
  row: number;
  status: 'done' | 'failed' | 'unknown' | 'not_run';
  /** Why it did not apply: set unless done. */
  failure?: ChangeFailure | undefined;
  /** results.csv when it applied: the outcome word, the entity id, the row key. */
  success: { outcome: RowOutcome; entityId?: string | undefined; key?: string | undefined };
  /** Extra results.csv cells of this row. */
  extra?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface ChangeFailure {
  code: string;
  message: string;
  requestId?: string | undefined;
}

/** What the runner tallied, for the kind's summary. */
export interface JobTally<Op, R> {
  execution: ExecuteSummary<Op, R>;
  changes: ChangeOutcome[];
  done: number;
  /** Failed or unknown (and not run, for kinds whose `notRun` is `'failure'`). */
  failed: number;
  unknown: number;
  /** Not tried because the run stopped first (0 for kinds whose `notRun` is `'failure'`). */
  notRun: number;
  /** Write requests sent by this session. */
  requests: number;
  /** results.csv / failed.csv (undefined for kinds that write their own results file). */
  rows: RowFilesSummary | undefined;
  /** Failed changes and invalid rows, in row order. */
  failedRows: FailedRow[];
  /** Set when a fatal error stopped the apply (exit 4: the API unreachable or the token rejected). */
  abortedBy?: AbortCause;
}

export interface FailedRow {
  sheet: string;
  row: number;
  code: string;
  message: string;
}

/** The operations of one apply of one run, with the closures that send and settle them. */
export interface JobSession<Op extends { key: string }, R, Summary> {
  /** The first pass. */
  first: JobPass<Op>;
  /** After a pass: the next one, or undefined when done (stock falls back to per-item writes). */
  next?(execution: ExecuteSummary<Op, R>): JobPass<Op> | undefined;
  /** Sends one operation (after `ctx.saveBefore` of what it touches). */
  execute(op: Op, exec: ExecuteContext): Promise<R>;
  /** Settles an operation whose outcome is unknown by re-reading the store. */
  reconcile?(op: Op, state: OperationState): Promise<ReconcileDecision<R>>;
  /** An error that stops the whole run (default: exit code 4, unreachable or token rejected). */
  isFatal?(error: unknown): boolean;
  /** The planned changes an operation carried and how each ended (see `changesOf`). */
  changes(outcome: OperationOutcome<Op, R>): ChangeOutcome[];
  /**
   * Writes the results files itself (rollback: one row per entity). Default: results.csv and
   * failed.csv over the run's input, from invalid rows, `rowResults` and the changes.
   */
  writeResults?(
    changes: readonly ChangeOutcome[],
    execution: ExecuteSummary<Op, R>,
  ): Promise<RowFilesSummary | undefined>;
  /** results.csv for rows no operation carried (skipped, unchanged…); see `otherwise`. */
  rowResults?(label: string, rows: RowResults): void;
  /** The kind's summary from the tally. */
  summarize(tally: JobTally<Op, R>): Summary;
}

/** Rows of the input that no operation carried (skipped, unchanged…), for results.csv. */
export interface RowResults {
  byRow: Map<number, RowResult>;
  extra: Map<number, Record<string, string | undefined>>;
}

/**
 * What a kind of job supplies; the runner (runJob) owns the rest: the validated plan file, the
 * backup lifecycle, the journal and executor, the outcome tally, results.csv / failed.csv, the
 * run's counts and the report.
 */
/** What every plan.json has: `input` for the kinds planned from a sheet (results.csv mirrors its rows). */
export interface PlanFileBase {
  kind: string;
  version: number;
  input?: RunInput | undefined;
}

export interface JobDefinition<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Summary extends JobSummary,
> {
  kind: string;
  /** plan.json's schema: `kind` discriminator, format `version`, the fields apply reads. */
  planSchema: z.ZodType<unknown>;
  /** Whether writes save before-states (default true; sends and template submissions have none). */
  backup?: boolean;
  /** Whether a change the run did not reach counts as failed (default `'pending'`: counted apart). */
  notRun?: 'failure' | 'pending';
  /** Throws when the plan may not be applied (refused at planning, invalid rows…): nothing is sent. */
  refuse?(run: RunDirectory, file: File, options: ApplyJobOptions): void;
  /** Starts applying: the operations and how to send them. */
  session(ctx: JobContext<File>): JobSession<Op, R, Summary>;
  /** Row issues that make rows invalid (results.csv `invalid`, failed.csv). Default: none. */
  invalidIssues?(file: File): readonly RowIssue[];
  /** results.csv outcome of a row nothing mentions (default `unchanged`). */
  otherwise?: RowOutcome;
  /** Extra results.csv columns (their cells come from `rowResults` and the changes). */
  extraColumns?: readonly string[];
  /** What the apply adds to run.json's counts. */
  runCounts(summary: Summary): Record<string, number>;
  /** Writes report.html / report.md; `applied` after an apply. */
  report(run: RunDirectory, file: File, applied?: Summary): void;
  /** The apply summary as `mbulk apply --json` prints it. */
  cliSummary(summary: Summary): Record<string, unknown>;
  /** Entities the plan touches that changed since planning, its own started writes aside. */
  drift?(run: RunDirectory, client: MerchantClient): Promise<DriftedEntity[]>;
  /**
   * Why planning the input of a started run again would repeat writes (relative changes such as
   * stock deltas), or undefined when it would not: `--replan` refuses a started run then.
   */
  replanRepeats?(file: File): string | undefined;
  /** Plans the run's own input again against the live store, as a new run (`mbulk apply --replan`). */
  replan?(
    run: RunDirectory,
    file: File,
    options: JobCallbacks & { client: MerchantClient; target: string },
  ): Promise<{ run: RunDirectory; refusal?: string | undefined }>;
}
