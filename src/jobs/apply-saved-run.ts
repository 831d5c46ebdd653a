import type { MerchantClient } from '../api/merchant-client.js';
import { JournalDamagedError } from '../apply/apply-run.js';
import { journalDamage, readJournal, type JournalSnapshot } from '../apply/journal.js';
import { runJournalEvidence } from '../apply/journal-evidence.js';
import { LockHeldError, type LockFile } from '../apply/lock-file.js';
import type { RunDirectory } from '../apply/run-directory.js';
import { clientStore } from '../apply/run-store.js';
import { acquireStoreLock, storeBusyMessage, type StoreLockOptions } from '../apply/store-lock.js';
import type { WriteCheckOptions } from '../apply/write-check.js';
import { RefusedError } from '../errors/refused-error.js';
import { describeDriftedList } from '../plan/drifted-entity.js';
import type { Store } from '../schema/index.js';
import { rememberApplyEnded, rememberApplyStarted } from './input-runs.js';
import type { JobCallbacks, JobProgress } from './job-events.js';
import { runKind, type DriftedEntity, type RunKind } from './run-kind.js';
import type { SavedRunRefusal } from './saved-run-refusal.js';

/**
 * Why planning a started run's input again would send writes again, or undefined: its input holds
 * deltas (run.json's `input_deltas`; a run planned before it was recorded, if its kind says
 * `deltasUnrecorded`) and its journal shows writes applied or of unknown outcome.
 */
function replanRepeats(run: RunDirectory, journal: JournalSnapshot, kind: RunKind): string | undefined {
  const deltas = run.meta.input_deltas ?? (kind.deltasUnrecorded ? undefined : false);
  const states = [...journal.states.values()].map((state) => state.status);
  const [done, unknown] = [
    states.filter((s) => s === 'done').length,
    states.filter((s) => s === 'unknown').length,
  ];
  if (deltas === false || done + unknown === 0) return undefined;
  const sent = `it sent write requests of them: ${done} applied, ${unknown} of unknown outcome`;
  return deltas
    ? `its input holds deltas, and ${sent}`
    : `it was planned before runs recorded whether their input holds deltas, and is taken to; ${sent}`;
}

/** Drifted entities listed on a refused run's review page (the rest: `… and N more`). */
const DRIFT_ON_PAGE = 5;

/** A step of `applySavedRun` that reports progress. */
export type SavedRunStep = 'drift' | 'replan' | 'apply';

/** What `applySavedRun` tells between its steps (for a running commentary). */
export type SavedRunEvent =
  /** Every check before the drift check passed: the run, its kind and the store it will write to. */
  | { type: 'checked'; run: RunDirectory; kind: string; store: Store }
  /** Entities the run touches changed since planning (reported before the refusal or the replan). */
  | { type: 'drifted'; drifted: DriftedEntity[] }
  /** The run's input was planned again as a new run (`replan`), which is applied instead. */
  | { type: 'replanned'; run: RunDirectory; from: RunDirectory };

export interface ApplySavedRunOptions extends JobCallbacks {
  client: MerchantClient;
  /**
   * Where the client writes, as the run recorded it when planned (`run.meta.target`: the base URL,
   * or the local sandbox): a run planned against another service is refused (`other-target`).
   */
  target: string;
  /** Continue a started or interrupted run (`mbulk runs resume`); default: apply a planned run. */
  resume?: boolean | undefined;
  /**
   * The run was planned moments ago by this caller, which holds the store's lock since before it
   * planned (`import … --apply`, `runs rollback --apply`): its plan.json is not validated again and
   * the store is not read again for drift (the write-time checks still run). Default false.
   */
  justPlanned?: boolean | undefined;
  /** When the store drifted, plan the run's input again and apply the new plan (kinds that can). */
  replan?: boolean | undefined;
  /**
   * A resume that settles every operation the journal cannot prove done by re-reading the store:
   * accepts a damaged journal or an applied run, and skips the drift check.
   */
  reconcile?: boolean | undefined;
  concurrency?: number | undefined;
  /** Write a products plan whose prices jump (default: refused unless planned with it). */
  allowPriceJumps?: boolean | undefined;
  /** Write a products plan the delete guard refused when planned (default: refused). */
  allowDeletes?: boolean | undefined;
  /** Write-time re-read of products and customers. */
  writeCheck?: WriteCheckOptions | undefined;
  /**
   * The store's one-writer lock (see `apply/store-lock.ts`), taken once the store is known and held
   * until the last write, keyed by `target` and the store's id: the one the CLI takes, in
   * `$MBULK_LOCK_DIR` or `<tmp>/mbulk-locks` unless `dir` says another. While another process (or
   * another call in this one) holds it, the run is refused (`busy`) and nothing is written.
   * `false` only for a caller that holds the store's lock itself. Default: on.
   */
  lock?: StoreLockOptions | false | undefined;
  /** Asked after every check passed, before the first write; false is the refusal `declined`. */
  confirm?: ((run: RunDirectory, store: Store) => boolean | Promise<boolean>) | undefined;
  /**
   * Runs one step with the progress callback it should report to (the CLI shows each step as a
   * task). Default: calls `work(onProgress)`.
   */
  step?:
    | (<T>(step: SavedRunStep, work: (onProgress: (p: JobProgress) => void) => Promise<T>) => Promise<T>)
    | undefined;
  onEvent?: ((event: SavedRunEvent) => void) | undefined;
}

/** A saved run that was applied (or resumed): how it went. */
export interface AppliedSavedRun {
  applied: true;
  /** The run that was applied: a new one when it was planned again (`replannedFrom`). */
  run: RunDirectory;
  kind: string;
  store: Store;
  /** False when rows failed or the apply did not complete. */
  ok: boolean;
  status: string;
  summary: Record<string, unknown>;
  abortedBy?: Awaited<ReturnType<RunKind['apply']>>['abortedBy'];
  /** The kind's own summary of the apply (a StockApplySummary for stock…), for a caller that knows the kind. */
  detail: unknown;
  /** The run this one was planned again from. */
  replannedFrom?: string | undefined;
}

/** What `checkSavedRun` found: the run can be applied as asked (nothing remote checked yet). */
export interface SavedRunChecked {
  applied?: undefined;
  kind: RunKind;
  journal: JournalSnapshot;
}

/**
 * The checks of a saved run that need no store: not being applied by another live process, in a
 * state that can be applied (or resumed), of a kind that can be applied, with an intact plan and
 * (for a resume without `reconcile`) an intact journal of a run not yet applied, or applied with
 * failed or unknown operations.
 */
export async function checkSavedRun(
  run: RunDirectory,
  options: {
    resume?: boolean | undefined;
    reconcile?: boolean | undefined;
    justPlanned?: boolean | undefined;
  } = {},
): Promise<SavedRunChecked | SavedRunRefusal> {
  const meta = run.refresh();
  const base = { applied: false as const, runId: run.id };
  if (run.status() === 'applying') {
    return {
      ...base,
      refused: 'busy',
      category: 'refused',
      pid: meta.pid,
      message: `run ${run.id} is being applied by process ${meta.pid}; wait for it to finish`,
    };
  }
  // A rollback planned and not applied yet (`mbulk runs rollback RUN`, MCP `rollback_run`) is
  // applied like any plan: its drift check refuses it if anything it restores changed since.
  if (options.resume !== true && meta.status !== 'planned') {
    return {
      ...base,
      refused: 'not-planned',
      category: 'usage',
      status: meta.status,
      message: `run ${run.id} was already ${meta.status === 'applying' ? 'started' : meta.status}; continue it with: mbulk runs resume ${run.id}`,
    };
  }
  const kind = await runKind(meta.kind);
  if (!kind) {
    return {
      ...base,
      refused: 'not-appliable',
      category: 'usage',
      kind: meta.kind,
      message: `run ${run.id} is a ${meta.kind} run, which cannot be applied`,
    };
  }
  // A plan written moments ago by the caller is as its kind wrote it.
  const problem = options.justPlanned === true ? undefined : kind.planProblem(run);
  if (problem !== undefined) {
    return {
      ...base,
      refused: 'damaged-plan',
      category: 'usage',
      problem,
      file: run.file('plan'),
      message: `run ${run.id}: damaged plan, plan again (${run.file('plan')}: ${problem}); nothing was written. Plan again with: mbulk import ${meta.kind} ${meta.input ?? 'FILE'}`,
    };
  }
  const journal = readJournal(run.file('journal'));
  if (options.resume === true && options.reconcile !== true) {
    const damage = journalDamage(journal, runJournalEvidence(run));
    if (damage.length > 0) {
      return {
        ...base,
        refused: 'damaged-journal',
        category: 'usage',
        damage,
        file: run.file('journal'),
        message: new JournalDamagedError(run.id, run.file('journal'), damage).message,
      };
    }
    if (meta.status === 'applied' && !endedWithFailures(meta.counts, journal)) {
      return {
        ...base,
        refused: 'already-applied',
        category: 'usage',
        message: `run ${run.id} was already applied: there is nothing to resume, and resending could repeat writes. To check every operation its journal cannot prove against the store (nothing is resent blindly): mbulk runs resume ${run.id} --reconcile`,
      };
    }
  }
  return { kind, journal };
}

/**
 * A run applied with failed or unknown operations (it exited 1) can be resumed as it is: the
 * failures are retried (a write its journal does not prove unsent is re-read first), the unknown
 * outcomes replayed when harmless or settled by re-reading, never resent blindly.
 */
function endedWithFailures(counts: Record<string, number>, journal: JournalSnapshot): boolean {
  if ((counts['ops_failed'] ?? 0) + (counts['ops_unknown'] ?? 0) > 0) return true;
  for (const state of journal.states.values()) {
    if (state.status === 'failed' || state.status === 'unknown') return true;
  }
  return false;
}

/**
 * Applies a saved run (`mbulk apply RUN`), or continues a started one (`resume`: `mbulk runs
 * resume RUN`), with every check the CLI makes, in its order: nobody else is applying it, it can be
 * applied as asked (`checkSavedRun`), the client's token belongs to the store it was planned for,
 * the client writes where it was planned, the store's lock is free, and nothing it touches changed
 * since planning (for a resume: nothing it has not started; with `replan`, a drifted run is planned
 * again and the new run applied). Returns the apply's summary, or a typed refusal: nothing was
 * written then. Errors (the API unreachable, a disk full) are thrown.
 */
export async function applySavedRun(
  run: RunDirectory,
  options: ApplySavedRunOptions,
): Promise<AppliedSavedRun | SavedRunRefusal> {
  const checked = await checkSavedRun(run, options);
  if (checked.applied === false) return checked;
  const { kind, journal } = checked;
  const meta = run.meta;
  const base = { applied: false as const, runId: run.id };
  // Invalid rows a plan was not made to skip: nothing is written, for every caller alike, before
  // the store is asked, its lock taken or the question put (a started run passed this check).
  const invalid = meta.status === 'planned' ? kind.invalidRows?.(run) : undefined;
  if (invalid !== undefined) {
    return {
      ...base,
      refused: 'invalid-rows',
      category: 'failed',
      issues: invalid.issues,
      message: invalid.message,
    };
  }
  if (options.resume === true && options.reconcile === true) run.settleUnproven = true;
  const step =
    options.step ?? (<T>(_: SavedRunStep, work: (p: (p: JobProgress) => void) => Promise<T>) => work(report));
  function report(p: JobProgress): void {
    options.onProgress?.(p);
  }

  const store = await clientStore(options.client, options.signal);
  if (meta.store_id !== undefined && store.id !== meta.store_id) {
    return {
      ...base,
      refused: 'other-store',
      category: 'refused',
      plannedStore: meta.store_id,
      store,
      message: `run ${run.id} was planned for store ${meta.store_id}, but the token belongs to store ${store.id} (${store.name}); nothing was written`,
    };
  }
  // Two services can hold stores with the same id (two sandboxes do): the run also names where it
  // was planned, and writes go nowhere else.
  if (meta.target !== options.target) {
    return {
      ...base,
      refused: 'other-target',
      category: 'refused',
      plannedTarget: String(meta.target),
      target: options.target,
      message: `run ${run.id} was planned against ${meta.target}, but this command targets ${options.target}; set --base-url (or MERCHANT_API_URL) to ${meta.target}. Nothing was written`,
    };
  }
  let lock: LockFile | undefined;
  try {
    try {
      if (options.lock !== false)
        lock = acquireStoreLock(options.target, store, { ...options.lock, runId: run.id });
    } catch (error) {
      if (!LockHeldError.is(error)) throw error;
      return {
        ...base,
        refused: 'busy',
        category: 'refused',
        owner: error.owner,
        lockFile: error.file,
        message: storeBusyMessage(store, error),
      };
    }
    options.onEvent?.({ type: 'checked', run, kind: meta.kind, store });
    let target = run;
    // The journal knows what this run wrote: the drift check covers what it has not started. With
    // `reconcile` the journal cannot be trusted to tell, and every operation re-reads the store.
    if (options.reconcile !== true && options.justPlanned !== true && kind.drift) {
      const drift = kind.drift;
      const drifted = await step('drift', () => drift(run, options.client, { signal: options.signal }));
      const how = kind.replan
        ? `mbulk apply ${run.id} --replan`
        : `mbulk import ${meta.kind} ${meta.input ?? 'FILE'}`;
      // The review page of a run not applied yet says whether the store is as planned (drift.json).
      const recorded = run.recordDriftRefusal(
        drifted.length === 0
          ? undefined
          : {
              checkedAt: new Date().toISOString(),
              entities: drifted.length,
              lines: describeDriftedList(drifted, DRIFT_ON_PAGE),
              fix: how,
            },
      );
      if (recorded && run.status() === 'planned') kind.reportPlan(run);
      if (drifted.length > 0) {
        options.onEvent?.({ type: 'drifted', drifted });
        if (options.replan !== true || !kind.replan) {
          return {
            ...base,
            refused: 'drift',
            category: 'refused',
            drifted,
            canReplan: kind.replan !== undefined,
            message: `the live store drifted since planning; plan again with ${how}`,
          };
        }
        const repeats = replanRepeats(run, journal, kind);
        if (repeats !== undefined) {
          return {
            ...base,
            refused: 'replan-repeats',
            category: 'refused',
            drifted,
            reason: repeats,
            // Only a run that recorded deltas is said to have sent some (one planned before
            // input_deltas was recorded may hold absolute quantities: it is refused to be safe).
            message: `run ${run.id} ${run.meta.input_deltas === true ? 'already sent deltas' : 'already sent writes, and its input may hold deltas'} (${repeats}): planning its input again ${run.meta.input_deltas === true ? 'would' : 'could'} send them again. Nothing was written; plan a new sheet of the rows it has not written yet, without the drifted ones`,
          };
        }
        const replan = kind.replan;
        const replanned = await step('replan', (onProgress) =>
          replan(run, {
            client: options.client,
            target: options.target,
            onProgress,
            signal: options.signal,
          }),
        );
        options.onEvent?.({ type: 'replanned', run: replanned.run, from: run });
        if (replanned.refusal) {
          return {
            applied: false,
            runId: replanned.run.id,
            refused: 'replan-refused',
            category: 'refused',
            drifted,
            reason: replanned.refusal,
            replannedRun: replanned.run,
            message: replanned.refusal,
          };
        }
        target = replanned.run;
        lock?.setRunId(target.id);
      }
    } else {
      // No drift check: a drift refusal recorded earlier no longer says anything about this apply.
      run.recordDriftRefusal(undefined);
    }
    if (options.confirm !== undefined && !(await options.confirm(target, store))) {
      return {
        ...base,
        runId: target.id,
        refused: 'declined',
        category: 'refused',
        message: 'declined: nothing was written',
      };
    }
    const applying = target;
    let result: Awaited<ReturnType<RunKind['apply']>>;
    // The store's memory of its inputs: this input is being written (a re-run continues it).
    rememberApplyStarted(applying);
    try {
      result = await step('apply', (onProgress) =>
        kind.apply(applying, {
          client: options.client,
          ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
          allowPriceJumps: options.allowPriceJumps === true,
          allowDeletes: options.allowDeletes === true,
          ...(options.writeCheck !== undefined ? { writeCheck: options.writeCheck } : {}),
          onProgress,
          onWarning: options.onWarning,
          signal: options.signal,
        }),
      );
    } catch (error) {
      // A plan refused as a whole (refused when planned, price jumps not allowed): nothing was sent.
      if (!RefusedError.is(error)) throw error;
      return {
        ...base,
        runId: target.id,
        refused: 'plan-refused',
        category: 'refused',
        message: error.message,
      };
    } finally {
      // Best effort: run.json says the same, and an error here must not hide the apply's own.
      try {
        rememberApplyEnded(applying);
      } catch {
        // the memory lacks this line: the run directory still tells how it ended
      }
    }
    return {
      applied: true,
      run: target,
      kind: meta.kind,
      store,
      ok: result.ok,
      status: result.status,
      summary: result.summary,
      abortedBy: result.abortedBy,
      detail: result.detail,
      replannedFrom: target === run ? undefined : run.id,
    };
  } finally {
    lock?.release();
  }
}
