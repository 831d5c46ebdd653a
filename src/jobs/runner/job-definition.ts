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
import type { RowIssue } from '../../mapping/row-issue.js';
import type { AbortCause, JobCallbacks } from '../job-events.js';
import type { RunInput } from '../run-input.js';
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

/**
 * What a done change did to its entity. The results.csv of a run from a sheet, whose outcome words
 * are fewer, shows `hidden`, `deleted` and `restored` rows as `updated`; the counts (and the entity
 * lines of a run without a sheet) keep them apart.
 */
export type ChangeWord = 'created' | 'updated' | 'hidden' | 'deleted' | 'restored';

/** An input row: the sheet label rows carry, and the row number as the spreadsheet shows it. */
export interface RowRef {
  sheet: string;
  row: number;
}

/** How one planned change (a row, an item of a batch, an entity) ended: one per entity it wrote. */
export interface ChangeOutcome {
  status: 'done' | 'failed' | 'unknown' | 'not_run';
  /** What it did, when done. */
  outcome: ChangeWord;
  /** Why it did not apply: set unless done. */
  failure?: ChangeFailure | undefined;
  /** The input rows it was planned from (its results.csv lines); none for an entity no row names. */
  rows: readonly RowRef[];
  /** results.csv `entity_id` of its rows. */
  entityId?: string | undefined;
  /** results.csv `key` of its rows (sku, phone, template name…). */
  key?: string | undefined;
  /** For results listed by entity (a run without an input sheet): its type and label. */
  entity?: { type: string; label: string } | undefined;
  /** Extra results.csv cells of its rows (see SheetResults.extraColumns). */
  extra?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface ChangeFailure {
  code: string;
  message: string;
  requestId?: string | undefined;
}

export interface FailedRow {
  sheet: string;
  row: number;
  code: string;
  message: string;
}

/** A change of a run without an input sheet that did not apply (rollback: an entity not restored). */
export interface EntityFailure {
  type: string;
  id: string;
  code: string;
  message: string;
}

/** What the runner tallied: every change counted once (the source of every count a kind declares). */
export interface JobTally<Op, R> {
  /** The last pass's execution (an outcome for every operation). */
  execution: ExecuteSummary<Op, R>;
  changes: readonly ChangeOutcome[];
  /** Done changes, by what they did. */
  done: Readonly<Record<ChangeWord, number>>;
  /**
   * Changes that failed, whose outcome is unknown, and (for a kind that declares no `notRun`
   * count) those the run did not reach.
   */
  failed: number;
  unknown: number;
  /** Changes the run did not reach because it stopped first (resume it to apply them). */
  notRun: number;
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

/** The summary of a run planned from a sheet: results.csv / failed.csv and the rows to fix. */
export interface SheetSummary {
  rows: RowFilesSummary;
  /** Failed changes (one per input row they carried) and invalid rows, in the order of the input. */
  failedRows: FailedRow[];
}

/** The summary of a run without an input sheet: the entities whose change did not apply. */
export interface EntitySummary {
  failures: EntityFailure[];
}

/** The apply summary a kind's declaration makes: its counts, its own values, its results. */
export type JobSummary<File, Fields extends SummaryFields, Own extends object> = SummaryBase & {
  [K in keyof Fields as Fields[K]['of'] extends 'own' ? never : K]: number;
} & Own &
  (File extends { input: RunInput } ? SheetSummary : EntitySummary);

/** results.csv and failed.csv of a run planned from sheets, declared by the kind (the runner writes them). */
export interface SheetResults {
  /**
   * The input sheets results.csv lists, in this order, each with its failed-rows file (default:
   * the plan's `input`, label `inputLabel(input)`, failed.csv). A change's row goes to the sheet
   * whose label it carries (else the first).
   */
  sheets?: readonly ResultSheet[];
  /** Issues that make their rows invalid: each error is a failed row. */
  invalid?: readonly RowIssue[];
  /**
   * Results of rows no change carried (unchanged, skipped…, or invalid rows described by the kind:
   * each a failed row), with extra cells; a later one replaces an earlier one of the same row.
   */
  rows?: readonly DeclaredRow[];
  /** The outcome of a row nothing names (default `unchanged`). */
  otherwise?: RowOutcome;
  /**
   * What a row that ended well still says (e.g. images left out on purpose): its code, message
   * and column go on the row's results.csv line unless the row has an error of its own.
   */
  notes?: readonly RowIssue[];
  /** Extra results.csv columns (cells from `rows` and the changes' `extra`). */
  extraColumns?: readonly string[];
}

export interface ResultSheet {
  input: RunInput;
  /** The sheet label its rows carry in the plan. */
  label: string;
  /** Where its failed rows go, in its own columns. */
  failedFile: string;
}

/** A row no change carried: its result, or (without `outcome`) only extra cells for the result it has. */
export type DeclaredRow = Omit<RowResult, 'outcome'> & {
  outcome?: RowOutcome | undefined;
  extra?: Readonly<Record<string, string | undefined>> | undefined;
};

/** results.csv lines of a run without an input sheet for entities no change carried. */
export interface EntityLine {
  type: string;
  id: string;
  label: string;
  outcome: string;
  /** Why (the error message column). */
  reason: string;
}

/** The operations of one apply of one run, with the closures that send and settle them. */
export interface JobSession<Op extends { key: string }, R, Own extends object> {
  /** The operations, each with a key that is stable across resumes. */
  operations: readonly Op[];
  /**
   * Operations left with an unknown outcome are sent once more in this apply (default false):
   * for keyed writes, whose replay the service answers from its memory.
   */
  replayUnknown?: boolean;
  /**
   * Another way to send them when a pass stops on an error `when` accepts (stock: one PATCH per
   * item where the batch route answers 404): such an error stops the pass, and the operations
   * `instead()` returns are sent (once).
   */
  fallback?: { when(error: unknown): boolean; instead(): readonly Op[] };
  /** Sends one operation (after `ctx.saveBefore` of what it touches). */
  execute(op: Op, exec: ExecuteContext): Promise<R>;
  /** Settles an operation whose outcome is unknown by re-reading the store. */
  reconcile?(op: Op, state: OperationState): Promise<ReconcileDecision<R>>;
  /**
   * Keyed operations a resume re-reads (`reconcile`) rather than sends again when its journal does
   * not prove them and their key may have expired (default none: sent again under their key).
   * Operations that are not idempotent are always re-read.
   */
  reReadExpired?(op: Op): boolean;
  /** An error that stops the whole run (besides the default: unreachable, token rejected). */
  isFatal?(error: unknown): boolean;
  /**
   * The planned changes an operation carried and how each ended: a pure mapping. Also asked of
   * every operation as not run before any is sent, for the input rows they carry.
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
  /** Starts applying: the operations and how to send them. */
  session: (ctx: JobContext<File, Options>) => JobSession<Op, R, Own>;
  /** The summary's counts and values, declared once (see SummaryFields). */
  summary: Fields;
  /** Writes report.html / report.md; `applied` after an apply. */
  report(run: RunDirectory, file: File, applied?: JobSummary<File, Fields, Own>): void;
  /** Entities the plan touches that changed since planning, its own started writes aside. */
  drift?(
    run: RunDirectory,
    client: MerchantClient,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<DriftedEntity[]>;
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

/** The summary type of a definition (`StockApplySummary = SummaryOf<typeof stockJob>`). */
export type SummaryOf<D> =
  D extends JobDefinition<infer File, infer _Op, infer _R, infer Fields, infer Own, infer _O>
    ? JobSummary<File, Fields, Own>
    : never;
