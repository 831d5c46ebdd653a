import type { MerchantClient } from '../../api/merchant-client.js';
import { RunDirectory, type ApplyNeed } from '../../apply/run-directory.js';
import { clientStore, PLANNER_STORE_MAX_AGE_MS } from '../../apply/run-store.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { Store } from '../../schema/index.js';
import type { ReadSheetOptions, SheetInfo } from '../../sheets/read-sheet.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import { refuseEmptySheet } from '../empty-sheet.js';
import type { JobCallbacks } from '../job-events.js';
import { inputIdentity, type InputIdentity } from '../input-identity.js';
import { rememberPlannedInput } from '../input-runs.js';
import { keepRunInput, type RunInput } from '../../apply/run-input.js';
import { openSheet, readRowsInBatches, refuseFatalHeader } from './read-input.js';
import { runPlanFlags } from './run-plan-flags.js';

/** The options every planner from a sheet takes. */
export interface PlanFromSheetOptions extends JobCallbacks {
  client: MerchantClient;
  /** The input file. */
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions | undefined;
  /** Plan a sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean | undefined;
  /**
   * The input's identity, when the caller worked it out before planning (inputRunDecision); else
   * it is worked out here. Recorded with the run, so that a re-run of the same input finds it.
   */
  identity?: InputIdentity | undefined;
  /** How the input is named in messages (a feed's URL; default: the file's base name). */
  inputShown?: string | undefined;
}

/** What a kind's `read` step returns: at least the input sheet it read and its data rows. */
export interface SheetRead {
  info: SheetInfo;
  /** Data rows of the input sheet (none: refused as a truncated file unless `allowEmpty`). */
  rows: number;
}

/** What every plan.json from a sheet starts with: its kind, the format version, the run's copy of the input. */
export interface SheetPlanHead<Kind extends string> {
  kind: Kind;
  version: 1;
  input: RunInput;
}

/** What a kind planned: how to write plan.json, run.json's options, and a refusal. */
export interface SheetPlan<File extends { kind: string }> {
  /** run.json's options: how it was planned (`runs show`, `--replan` read them). */
  options: Record<string, unknown>;
  /** plan.json: the head, and the kind's own fields (the run directory is there for more input copies). */
  file(head: SheetPlanHead<File['kind']>, run: RunDirectory): File;
  /** Why the plan may not be applied (a guardrail; exit 3). */
  refusal?: string | undefined;
  /** What an apply needs (run.json's `needs`; default: `plan-again` when there is a refusal). */
  needs?: readonly ApplyNeed[] | undefined;
}

/** The steps of planning that are a kind's own; planFromSheet runs them in its order. */
export interface SheetPlanner<Read extends SheetRead, File extends { kind: string }> {
  kind: File['kind'];
  /** The run's copy of the input is named `input-<role>.<ext>` (default: the kind). */
  role?: string;
  /** Reads the input, the store known (readInputSheet, for one sheet). */
  read(store: Store): Promise<Read>;
  /** Plans what was read against the live store (reading it as needed). */
  plan(read: Read, store: Store): Promise<SheetPlan<File>>;
  /** run.json's counts of the plan. */
  counts(file: File, read: Read): Record<string, number>;
  /** Writes report.md and report.html of the plan. */
  report(run: RunDirectory, file: File): void;
  /** Whether the input holds deltas (applying it twice adds twice; default: no). */
  deltas?(read: Read): boolean;
  /** Input files besides `file` that shape the plan (part of the input's identity). */
  extraInputs?: readonly string[] | undefined;
  /** Values besides the files that are part of the input's identity (InputIdentityOptions.params). */
  identityParams?: readonly string[] | undefined;
}

export interface PlannedFromSheet<File> {
  run: RunDirectory;
  file: File;
  store: Store;
  /** Set when a guardrail refuses the plan (exit 3); nothing may be applied. */
  refusal?: string;
}

/**
 * Plans an input sheet as a new run, in one order for every kind: the store (the one the client
 * asked for less than a minute ago), the kind reads the input, an empty sheet is refused, the kind
 * plans against the live store, then the run directory is created with its options, its copy of
 * the input, plan.json, its counts and the report. Nothing is written to the store.
 */
export async function planFromSheet<Read extends SheetRead, File extends { kind: string }>(
  options: PlanFromSheetOptions,
  planner: SheetPlanner<Read, File>,
): Promise<PlannedFromSheet<File>> {
  const store = await clientStore(options.client, options.signal, PLANNER_STORE_MAX_AGE_MS);
  const read = await planner.read(store);
  refuseEmptySheet(options.file, read.rows, options.allowEmpty);
  const planned = await planner.plan(read, store);
  const run = RunDirectory.create(options.runsRoot, {
    kind: planner.kind,
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: planned.options,
  });
  const { info } = read;
  const input = keepRunInput(
    run,
    options.file,
    planner.role ?? planner.kind,
    info.format === 'xlsx' ? info.sheet : undefined,
  );
  // The run re-reads its copy for results.csv: from the same header row.
  if (info.headerRow > 1) input.headerRow = info.headerRow;
  const file = planned.file({ kind: planner.kind, version: 1, input }, run);
  run.writePlan(file);
  const needs = planned.needs ?? (planned.refusal !== undefined ? ['plan-again'] : []);
  // How it was planned, in the command line's words: a CLI command continuing it must match.
  const planFlags = runPlanFlags(planner.kind, run.meta.options);
  run.update({
    counts: planner.counts(file, read),
    ...(needs.length > 0 ? { needs: [...needs] } : {}),
    ...(planFlags !== undefined ? { plan_flags: planFlags } : {}),
  });
  rememberPlannedInput(
    run,
    options.identity ??
      inputIdentity({
        kind: planner.kind,
        target: options.target,
        storeId: store.id,
        file: options.file,
        shown: options.inputShown,
        sheet: options.read?.sheet,
        extraFiles: planner.extraInputs,
        params: planner.identityParams,
      }),
    planner.deltas?.(read) === true,
  );
  planner.report(run, file);
  return planned.refusal ? { run, file, store, refusal: planned.refusal } : { run, file, store };
}

/** One input sheet read: what its header and rows became. */
export interface InputSheet<Columns, Rows> extends SheetRead {
  columns: Columns;
  /** The header's issues (its errors other than the fatal ones make every row invalid, or not: the kind's call). */
  headerIssues: RowIssue[];
  /** What took the rows. */
  taken: Rows;
}

/**
 * Reads one input sheet: opens it, resolves its header (`fatal` of its issues, by default its
 * errors, refuse the sheet: SheetHeaderError, exit 2), then hands every data row, in batches with
 * the `read` progress and the reader's warnings at the end, to what `take` returns for the columns
 * (it may read the live store first, for a planner that plans row by row). Stock reads its sheet
 * while `take` reads the live store: readStockSheet (src/jobs/stock/read-stock-sheet.ts).
 */
export async function readInputSheet<Columns, Rows extends { add(row: SheetRow): void }>(
  options: PlanFromSheetOptions,
  steps: InputSheetSteps<Columns, Rows>,
): Promise<InputSheet<Columns, Rows>> {
  const { reader, info, columns, issues } = await openInputSheet(options, steps);
  const taken = await steps.take(columns, info);
  const rows = await readRowsInBatches(reader, options.file, options, (row) => taken.add(row));
  return { info, rows, columns, headerIssues: issues, taken };
}

/** What reading one input sheet asks of a kind: its header, the issues that refuse it, what takes its rows. */
export interface InputSheetSteps<Columns, Rows> {
  header(info: SheetInfo): { columns: Columns; issues: RowIssue[] };
  fatal?(issue: RowIssue): boolean;
  take(columns: Columns, info: SheetInfo): Rows | Promise<Rows>;
}

/** Opens an input sheet and resolves its header, refusing a fatal one (SheetHeaderError, exit 2). */
export async function openInputSheet<Columns>(
  options: PlanFromSheetOptions,
  steps: Pick<InputSheetSteps<Columns, unknown>, 'header' | 'fatal'>,
) {
  const { reader, info } = await openSheet(options.file, options.read);
  const { columns, issues } = steps.header(info);
  const { fatal } = steps;
  await refuseFatalHeader(reader, options.file, fatal ? issues.filter((i) => fatal(i)) : issues);
  return { reader, info, columns, issues };
}
