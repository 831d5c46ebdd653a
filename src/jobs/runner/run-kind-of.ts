import type { MerchantClient } from '../../api/merchant-client.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { WriteCheckOptions } from '../../apply/write-check.js';
import type { AbortCause, JobCallbacks } from '../job-events.js';
import type {
  ApplyJobOptions,
  DriftCheck,
  JobDefinition,
  PlanFileBase,
  SummaryFields,
} from './job-definition.js';
import type { EntitySummary } from '../../results/entity-results.js';
import type { SheetSummary } from '../../results/sheet-results.js';
import type { InvalidRowsError } from './invalid-rows-error.js';
import { planProblem, readPlanFile } from './plan-file.js';
import { runJob } from './run-job.js';
import { cliSummaryOf } from './summary-fields.js';

/**
 * What `mbulk apply RUN` hands a run of any kind: the options every apply takes, and each kind's
 * own (a kind reads only its own).
 */
export interface SavedRunApplyOptions extends ApplyJobOptions {
  /** Products: write a plan whose prices jump (`--allow-price-jumps`). */
  allowPriceJumps?: boolean | undefined;
  /** Products: write a plan the delete guard refused (`--allow-deletes`). */
  allowDeletes?: boolean | undefined;
  /** Products and customers: the write-time re-read (`--strict-check`). */
  writeCheck?: WriteCheckOptions | undefined;
}

/** What `mbulk apply RUN` and `mbulk runs resume RUN` need of every kind of run. */
export interface RunKind {
  /** Applies or resumes the run; `ok` false when rows failed or the run did not complete. */
  apply(
    run: RunDirectory,
    options: SavedRunApplyOptions,
  ): Promise<{
    ok: boolean;
    status: string;
    /** The summary as the CLI shows it (`mbulk apply --json`). */
    summary: Record<string, unknown>;
    /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached). */
    abortedBy?: AbortCause | undefined;
    /** The kind's own summary of the apply, as its runner returned it (a StockApplySummary for stock…). */
    detail: unknown;
  }>;
  /**
   * What is wrong with the run's plan.json against the kind's schema (edited or damaged by hand, a
   * foreign kind, an unknown format version), or undefined: "damaged plan", never a TypeError.
   */
  planProblem(run: RunDirectory): string | undefined;
  /** Writes the plan's report.md and review page again (a run not applied yet: its plan's page). */
  reportPlan(run: RunDirectory): void;
  /** The plan's invalid rows when it was not planned to skip them (nothing may be written), or undefined. */
  invalidRows?(run: RunDirectory): InvalidRowsError | undefined;
  drift?: DriftCheck | undefined;
  /** A run planned before run.json recorded `input_deltas` is taken to hold deltas (JobDefinition). */
  deltasUnrecorded?: true;
  /** Plans the run's own input again against the live store, as a new run (`mbulk apply --replan`). */
  replan?(
    run: RunDirectory,
    options: JobCallbacks & { client: MerchantClient; target: string },
  ): Promise<{ run: RunDirectory; refusal?: string | undefined }>;
}

/** A job definition as the RunKind the CLI applies: ok only when it completed with no failed row or write. */
export function runKindOf<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Fields extends SummaryFields,
  Own extends object,
>(definition: JobDefinition<File, Op, R, Fields, Own, SavedRunApplyOptions>): RunKind {
  const kind: RunKind = {
    apply: async (run, options) => {
      const s = await runJob(run, definition, options);
      const listed: Partial<SheetSummary & EntitySummary> = s;
      const failures = listed.failedRows ?? listed.failures ?? [];
      const ok = s.status === 'completed' && failures.length === 0 && s.failed === 0;
      return {
        ok,
        status: s.status,
        abortedBy: s.abortedBy,
        summary: cliSummaryOf(definition.summary, s),
        detail: s,
      };
    },
    planProblem: (run) => planProblem(definition.planSchema, run.readPlan()),
    reportPlan: (run) => definition.report(run, readPlanFile(run, definition.planSchema)),
  };
  const { drift, replan, deltasUnrecorded, invalidRows } = definition;
  if (invalidRows) kind.invalidRows = (run) => invalidRows(run, readPlanFile(run, definition.planSchema));
  if (drift) kind.drift = drift;
  if (deltasUnrecorded) kind.deltasUnrecorded = deltasUnrecorded;
  if (replan) kind.replan = (run, options) => replan(run, readPlanFile(run, definition.planSchema), options);
  return kind;
}
