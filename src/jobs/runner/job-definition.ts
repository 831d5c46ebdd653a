import type { InvalidRowsError } from './invalid-rows-error.js';
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
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RunInput } from '../../apply/run-input.js';
import type { ChangeCounts } from '../../results/change-counts.js';
import type { ChangeOutcome, ChangeWord } from '../../results/change-outcome.js';
import type { EntityLine, EntitySummary } from '../../results/entity-results.js';
import type { SheetResults, SheetSummary } from '../../results/sheet-results.js';
import type { AbortCause, JobCallbacks } from '../job-events.js';
import type { DriftedEntity } from '../../plan/drifted-entity.js';

export type { DriftedEntity } from '../../plan/drifted-entity.js';

/**
 * What every apply takes. A kind with options of its own extends it (products:
 * `allowPriceJumps`, `writeCheck`) and names that type in its definition.
 */
export interface ApplyJobOptions extends JobCallbacks {
  client: MerchantClient;
  /** Operations in flight at most (default 4). */
  concurrency?: number | undefined;
}

/** What every plan.json has: `input` for the kinds planned from a sheet (results.csv mirrors its rows). */
export interface PlanFileBase {
  kind: string;
  version: number;
  input?: RunInput | undefined;
}

/**
 * Entities a run's plan touches that changed since planning, its own started writes aside (empty:
 * safe to apply); its reads stop when `signal` aborts (Ctrl-C during the check).
 */
export type DriftCheck = (
  run: RunDirectory,
  client: MerchantClient,
  options?: { signal?: AbortSignal | undefined },
) => Promise<DriftedEntity[]>;

/** What the runner hands a kind while it applies one run. */
export interface JobContext<File, Options extends ApplyJobOptions = ApplyJobOptions> {
  run: RunDirectory;
  /** plan.json, validated with the kind's schema. */
  file: File;
  client: MerchantClient;
  options: Options;
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

/** What the runner tallied: every change counted once (the source of every count a kind declares). */
export interface JobTally<Op, R> extends ChangeCounts {
  /** The last pass's execution (an outcome for every operation). */
  execution: ExecuteSummary<Op, R>;
  changes: readonly ChangeOutcome[];
  /** Write requests sent by this session (`ctx.countRequest`). */
  requests: number;
  /** Operations an earlier session had done: reused from the journal, not sent again. */
  reused: number;
  /** Seconds this apply spent writing. */
  seconds: number;
  /** Set when a fatal error stopped the apply (exit 4: the API unreachable or the token rejected). */
  abortedBy?: AbortCause;
}

/** Where a count of the summary comes from (see JobTally). */
export type CountSource =
  /** Every done change. */
  | 'done'
  /** Done changes of these outcomes. */
  | readonly ChangeWord[]
  | 'failed'
  | 'notRun'
  | 'requests'
  | 'reused'
  /** A number of the kind's own (its session's `summary`). */
  | 'own';

/**
 * One field of a kind's apply summary, declared once: the runner puts it in the summary (counts
 * under their name), run.json's counts and the CLI summary (`mbulk apply --json`, whose numbers
 * are its `Applied: …` line, in this order).
 */
export interface SummaryField {
  /** A count (see CountSource), or `'own'` for a value of the kind's own (a mode, a list). */
  of: CountSource;
  /** Its key in run.json's counts (numbers only; default: its name), or false: not kept there. */
  run?: string | false;
  /** Its key in the CLI summary (default: its name), or false: not shown there. */
  cli?: string | false;
}

/**
 * A kind's summary fields, in the order the CLI shows them. Changes the run did not reach count
 * as failed unless the kind declares a `notRun` count: then they are counted apart (a run to
 * resume, not rows to fix).
 */
export type SummaryFields = Readonly<Record<string, SummaryField>>;

/** What every apply summary has. */
export interface SummaryBase {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit 4: the API unreachable or the token rejected). */
  abortedBy?: AbortCause | undefined;
  /**
   * Changes that failed, whose outcome is unknown, or (unless the kind counts them apart in
   * `notRun`) that the run did not reach.
   */
  failed: number;
  /** Changes whose outcome is unknown (counted in `failed`): resume the run to settle them. */
  unknown: number;
}

/** The apply summary a kind's declaration makes: its counts, its own values, its results. */
export type JobSummary<File, Fields extends SummaryFields, Own extends object> = SummaryBase & {
  [K in keyof Fields as Fields[K]['of'] extends 'own' ? never : K]: number;
} & Own &
  (File extends { input: RunInput } ? SheetSummary : EntitySummary);

/** The operations of one apply of one run, with the closures that send and settle them. */
export interface JobSession<Op extends { key: string }, R, Own extends object> {
  /**
   * The operations, each with a key that is stable across resumes, and what the executor reads of
   * them: `idempotent` (harmless to replay), `idempotencyKey`, `reReadExpired` (a keyed one a resume
   * re-reads with `reconcile`, not sends, when its journal does not prove it and its key may have
   * expired: stock's batches of deltas).
   */
  operations: readonly Op[];
  /**
   * After the first pass, the operations of a second and last one (default none), sent with
   * `retryFailed` (default true): stock sends one PATCH per item where the batch route answered 404
   * (its `isFatal` stopped the first pass there); messages replay the sends whose answer was lost
   * (keyed: the service answers from its memory).
   */
  secondPass?(first: ExecuteSummary<Op, R>): { operations: readonly Op[]; retryFailed?: boolean } | undefined;
  /** Sends one operation (after `ctx.saveBefore` of what it touches). */
  execute(op: Op, exec: ExecuteContext): Promise<R>;
  /** Settles an operation whose outcome is unknown by re-reading the store. */
  reconcile?(op: Op, state: OperationState): Promise<ReconcileDecision<R>>;
  /** An error that stops the whole run (besides the default: unreachable, token rejected). */
  isFatal?(error: unknown): boolean;
  /**
   * The planned changes an operation carried and how each ended: a pure mapping. Also asked of
   * every operation as not run before any is sent, for the input rows they carry. A change not
   * done without a `failure` of its own gets the operation's (failureOf) from the runner.
   */
  changes(outcome: OperationOutcome<Op, R>): ChangeOutcome[];
  /**
   * Rows (or, for a run without an input sheet, entities) no change carried, for results.csv.
   * Default: the plan's input sheet alone, every row no change carried `unchanged`. Read when the
   * session is made, and fixed from then: results.csv's lines of these rows are made while the
   * operations go.
   */
  results?: SheetResults | { entities: readonly EntityLine[] };
  /** After the last pass, before results are written (products: remember re-hosted images). */
  finish?(execution: ExecuteSummary<Op, R>): void;
  /** The kind's own summary values (a mode, a list), from the tally. */
  values?(tally: JobTally<Op, R>): Own;
}

/**
 * What a kind of job supplies; the runner (runJob) owns the rest: the validated plan file, the
 * refusal, the backup lifecycle, the journal passes, the outcome tally, results.csv / failed.csv,
 * the summary, run.json's counts, the CLI summary and the report.
 */
export interface JobDefinition<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Fields extends SummaryFields,
  Own extends object = object,
  Options extends ApplyJobOptions = ApplyJobOptions,
> {
  kind: File['kind'];
  /** plan.json's schema: `kind` discriminator, format `version`, every field apply reads. */
  planSchema: z.ZodType<File>;
  /** Whether writes save before-states (default true; sends and template submissions have none). */
  backup?: boolean;
  /** Throws when the plan may not be applied (refused at planning, invalid rows…): nothing is sent. */
  refuse?: (run: RunDirectory, file: File, options: Options) => void;
  /**
   * The plan's invalid rows when it was not planned to skip them (`--skip-invalid`): nothing may be
   * written. `applySavedRun` refuses such a run (`invalid-rows`) before the lock and the question;
   * runJob throws the same error (after `refuse`) for a caller of the kind's own apply.
   */
  invalidRows?: (run: RunDirectory, file: File) => InvalidRowsError | undefined;
  /** Starts applying: the operations and how to send them. */
  session: (ctx: JobContext<File, Options>) => JobSession<Op, R, Own>;
  /** The summary's counts and values, declared once (see SummaryFields). */
  summary: Fields;
  /** Writes report.html / report.md; `applied` after an apply. */
  report(run: RunDirectory, file: File, applied?: JobSummary<File, Fields, Own>): void;
  drift?: DriftCheck;
  /**
   * A run of this kind planned before run.json recorded `input_deltas` (2026-11-28) is taken to
   * hold deltas: `--replan` refuses it once started. Runs planned since say it themselves.
   */
  deltasUnrecorded?: true;
  /** Plans the run's own input again against the live store, as a new run (`mbulk apply --replan`). */
  replan?(
    run: RunDirectory,
    file: File,
    options: JobCallbacks & { client: MerchantClient; target: string },
  ): Promise<{ run: RunDirectory; refusal?: string | undefined }>;
}

/** The summary type of a definition (`StockApplySummary = SummaryOf<typeof stockJob>`). */
export type SummaryOf<D> =
  D extends JobDefinition<infer File, infer _Op, infer _R, infer Fields, infer Own, infer _O>
    ? JobSummary<File, Fields, Own>
    : never;
