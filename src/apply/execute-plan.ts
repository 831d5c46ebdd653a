import type { Journal, JournalError, OperationState } from './journal.js';
import { toJournalError } from './journal.js';
import { isUnreachable } from '../errors/exit-code.js';
import { MbulkError } from '../errors/mbulk-error.js';

/**
 * The write engine every import reuses. It knows nothing about the API: the caller gives a
 * list of operations and says how to run one. What it guarantees:
 *
 * - every operation is journaled (`start`, flushed) before `execute` is called and again after
 *   it settles, so a crash at any instant is recoverable;
 * - running the same operations again over the same journal is a resume: operations already
 *   `done` are not run (their journaled result is reused); an operation that was started and
 *   never answered is re-run only if it is idempotent (a keyed POST, an absolute PATCH),
 *   otherwise it is handed to `reconcile` (re-read the live state and decide) and never resent
 *   blindly; without `reconcile` it stays `unknown` and is reported, not resent;
 * - one operation's failure does not stop the others; an error of category `unreachable` (the API
 *   is unreachable or rejected the token) stops the run early;
 * - an aborted `signal` stops taking new operations and waits for those in flight, leaving a
 *   journal that a later call resumes.
 *
 * Results must be JSON values (ids, statuses): they are stored in the journal and reused on resume.
 */

/** How `reconcile` settles an operation whose outcome is unknown. */
export type ReconcileDecision<R> = 'done' | 'not_applied' | { done: R };

export interface ExecuteContext {
  /** 1 on the first attempt in the journal's history, 2 when a resume runs it again, … */
  attempt: number;
  /** True when an earlier session had already started this operation. */
  resumed: boolean;
  /**
   * What the journal knew before this attempt: `not_started`; `failed` (definitely not applied,
   * also when a re-read established it); `unknown` (started, outcome unknown, replayed as harmless).
   */
  previous: 'not_started' | 'failed' | 'unknown';
  /** Sequence number of this attempt's `start` record (flushed before `execute` is called). */
  seq?: number;
}

export interface ExecuteProgress {
  total: number;
  /** Operations settled as done (including reused from the journal and reconciled). */
  done: number;
  /** Operations settled as failed, or left with an unknown outcome. */
  failed: number;
  /** done + failed. */
  completed: number;
  inFlight: number;
  /** Of `done`: reused from an earlier session's journal. */
  reused: number;
  /** Operations settled by this session per second. */
  rate: number;
  /** Seconds to go at the current rate (undefined until something settled). */
  etaSeconds: number | undefined;
  elapsedMs: number;
}

export interface ExecuteOptions<Op, R> {
  journal: Journal;
  /** Operations in flight at most (default 4). */
  concurrency?: number;
  /** Abort: stop taking operations, wait for those in flight, return `interrupted`. */
  signal?: AbortSignal;
  /** Called at start, after every settled operation, and at the end. */
  onProgress?: (progress: ExecuteProgress) => void;
  /** Called once per operation as it settles (also for reused and not-run ones at the end). */
  onOutcome?: (outcome: OperationOutcome<Op, R>) => void;
  /** Stable key of an operation, unique within the run (e.g. `product:ref-12`, `stock-batch:3`). */
  keyOf: (op: Op) => string;
  /** Sends the operation. Throw to fail it; the error is journaled and reported. */
  execute: (op: Op, ctx: ExecuteContext) => Promise<R>;
  /**
   * Settles a non-idempotent operation whose outcome is unknown (started earlier, no answer
   * recorded; or its request failed in a way that may have been applied). Re-read the live
   * state and answer `done` / `{ done: result }` when it was applied, `not_applied` to have
   * it executed. Throwing leaves it unknown.
   */
  reconcile?: (op: Op, state: OperationState) => Promise<ReconcileDecision<R>>;
  /** Whether replaying the operation is harmless (default: `op.idempotent === true`). */
  isIdempotent?: (op: Op) => boolean;
  /** The operation's idempotency key, journaled with `start` (default: `op.idempotencyKey`). */
  idempotencyKeyOf?: (op: Op) => string | undefined;
  /** Operation kind written in the journal (default: `op.kind`, else `op.op`, else `op`). */
  kindOf?: (op: Op) => string;
  /**
   * Whether an error means "the request may have been applied" (default: anything but an HTTP
   * 4xx answer, i.e. network errors, timeouts and 5xx are unknown; 4xx are definite failures).
   */
  isOutcomeUnknown?: (error: unknown) => boolean;
  /**
   * Whether an error stops the whole run (default: its category is `unreachable` (a foreign error:
   * `exitCode` 4): unreachable or token rejected, so every further request would fail the same way).
   */
  isFatal?: (error: unknown) => boolean;
  /**
   * How long the service remembers an idempotency key (default 24 h, the Merchant API's window).
   * A keyed operation started longer ago than this is no longer safe to replay: it is
   * reconciled like a non-idempotent one.
   */
  idempotencyWindowMs?: number;
  /** Re-run operations that failed definitely in an earlier session (default true: they were not applied). */
  retryFailed?: boolean;
  /**
   * The journal cannot be trusted (damaged, or a run re-checked after it finished): every
   * operation it does not prove `done` is treated as possibly applied since `since` (ISO), so it
   * goes to `reconcile` (re-read the store) unless replaying it is harmless (idempotent, and its
   * idempotency key still within the window counted from `since`). Nothing is resent blindly.
   */
  settleUnproven?: { since: string };
  /**
   * A resume of a journal that may have lost its last records without a trace (a run directory
   * restored from a snapshot taken mid-run, a copy, a file system that ignored fdatasync): any of
   * its operations not proven `done` may have been sent after `since` (ISO, the last record's
   * time). One that is not idempotent goes to `reconcile` (re-read the store: settled, sent, or
   * left unknown) before anything is sent, and so does a keyed one whose key may have expired when
   * `reReadExpired` says so; the others are sent as usual (harmless to replay).
   */
  unjournaledSince?: string;
  /**
   * Keyed operations `unjournaledSince` re-reads once their key may have expired (default: those
   * whose `reReadExpired` is true, as a stock batch of deltas says of itself).
   */
  reReadExpired?: (op: Op) => boolean;
  /** Clock in ms for rate/ETA (default: performance.now). */
  now?: () => number;
}

export type OperationOutcome<Op, R> =
  | {
      status: 'done';
      op: Op;
      key: string;
      result: R | undefined;
      /** executed now, reused from the journal, or established by reconcile. */
      source: 'executed' | 'journal' | 'reconciled';
      attempts: number;
    }
  | { status: 'failed'; op: Op; key: string; error: JournalError; cause?: unknown; attempts: number }
  /** May or may not have been applied; not resent. Resume with `reconcile` to settle it. */
  | { status: 'unknown'; op: Op; key: string; error?: JournalError; cause?: unknown; attempts: number }
  /** Not run: the run was interrupted or aborted first. */
  | { status: 'not_run'; op: Op; key: string };

export interface ExecuteSummary<Op, R> {
  /** `completed`: every operation was tried; `interrupted`: the signal fired; `aborted`: a fatal error. */
  status: 'completed' | 'interrupted' | 'aborted';
  /** One per operation, in the order of `ops`. */
  outcomes: OperationOutcome<Op, R>[];
  counts: {
    total: number;
    done: number;
    executed: number;
    reused: number;
    reconciled: number;
    failed: number;
    unknown: number;
    notRun: number;
  };
  /** The error that aborted the run. */
  fatalError?: unknown;
  elapsedMs: number;
}

/**
 * Two operations of one plan share a key: the journal could not tell them apart, so nothing is
 * applied. A bug in the planner, not in the input. Category `failed`.
 */
export class DuplicateOperationKeyError extends MbulkError {
  static override readonly errorName: string = 'DuplicateOperationKeyError';
  constructor(readonly key: string) {
    super('failed', `Two operations share the key ${JSON.stringify(key)}; keys must be unique within a run.`);
  }
}

/** Runs (or resumes) operations over a journal. See the module comment for the guarantees. */
export async function executeOperations<Op, R>(
  ops: readonly Op[],
  options: ExecuteOptions<Op, R>,
): Promise<ExecuteSummary<Op, R>> {
  const { journal, keyOf, execute } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const isIdempotent = options.isIdempotent ?? defaultIsIdempotent;
  const idempotencyKeyOf = options.idempotencyKeyOf ?? defaultIdempotencyKey;
  const kindOf = options.kindOf ?? defaultKind;
  const isOutcomeUnknown = options.isOutcomeUnknown ?? defaultIsOutcomeUnknown;
  const isFatal = options.isFatal ?? defaultIsFatal;
  const reReadExpired = options.reReadExpired ?? defaultReReadExpired;
  const retryFailed = options.retryFailed ?? true;
  const idempotencyWindowMs = options.idempotencyWindowMs ?? 24 * 60 * 60 * 1000;
  const wallClock = Date.now();

  /**
   * Replaying a started operation is safe when it is idempotent, and — when it relies on an
   * idempotency key — the key is the one journaled and still within the service's window.
   */
  const replaySafe = (op: Op, state: Extract<OperationState, { status: 'unknown' }>): boolean => {
    if (!isIdempotent(op)) return false;
    const key = idempotencyKeyOf(op);
    if (state.idempotencyKey !== undefined && state.idempotencyKey !== key) return false;
    if (key !== undefined && state.startedAt !== undefined) {
      const started = Date.parse(state.startedAt);
      if (Number.isFinite(started) && wallClock - started > idempotencyWindowMs) return false;
    }
    return true;
  };
  const now = options.now ?? (() => performance.now());

  const keys = ops.map((op) => keyOf(op));
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new DuplicateOperationKeyError(key);
    seen.add(key);
  }

  const outcomes = new Array<OperationOutcome<Op, R> | undefined>(ops.length);
  const started = now();
  let settledNow = 0;
  let done = 0;
  let failed = 0;
  let reused = 0;
  let inFlight = 0;
  let stop: 'interrupted' | 'aborted' | undefined;
  let fatalError: unknown;

  const progress = (): void => {
    if (!options.onProgress) return;
    const elapsedMs = now() - started;
    const rate = elapsedMs > 0 ? (settledNow * 1000) / elapsedMs : 0;
    const remaining = ops.length - done - failed;
    options.onProgress({
      total: ops.length,
      done,
      failed,
      completed: done + failed,
      inFlight,
      reused,
      rate,
      etaSeconds: rate > 0 ? remaining / rate : undefined,
      elapsedMs,
    });
  };

  const settle = (index: number, outcome: OperationOutcome<Op, R>, fromJournal = false): void => {
    outcomes[index] = outcome;
    if (outcome.status === 'done') done++;
    else if (outcome.status === 'failed' || outcome.status === 'unknown') failed++;
    if (fromJournal) reused++;
    else if (outcome.status !== 'not_run') settledNow++;
    options.onOutcome?.(outcome);
    if (outcome.status !== 'not_run') progress();
  };

  const runOne = async (index: number): Promise<void> => {
    const op = ops[index] as Op;
    const key = keys[index] as string;
    const kind = kindOf(op);
    let state = journal.stateOf(key);
    const since = options.settleUnproven?.since ?? options.unjournaledSince;
    if (
      since !== undefined &&
      (state.status === 'not_started' || (state.status === 'failed' && retryFailed))
    ) {
      // The journal cannot prove what happened to it (a later attempt's records may be lost):
      // treat it as possibly applied.
      const unproven: OperationState = {
        status: 'unknown',
        attempts: state.status === 'not_started' ? 0 : state.attempts,
        startedAt: since,
        unproven: true,
      };
      // A plain resume sends as usual what is harmless to replay, and a keyed write past its window
      // that the kind does not ask to re-read (see docs/durability.md).
      const reRead = !isIdempotent(op) || (!replaySafe(op, unproven) && reReadExpired(op));
      if (options.settleUnproven || reRead) state = unproven;
    }

    if (state.status === 'done') {
      settle(
        index,
        { status: 'done', op, key, result: state.result as R, source: 'journal', attempts: state.attempts },
        true,
      );
      return;
    }
    if (state.status === 'failed' && !retryFailed) {
      settle(index, { status: 'failed', op, key, error: state.error, attempts: state.attempts }, true);
      return;
    }
    if (state.status === 'unknown' && !replaySafe(op, state)) {
      const settled = await reconcileUnknown(op, key, kind, state);
      if (settled) {
        settle(index, settled);
        return;
      }
      // Reconciled as not applied: safe to send.
      state = journal.stateOf(key);
    }

    const attempt = (state.status === 'not_started' ? 0 : state.attempts) + 1;
    const idempotencyKey = idempotencyKeyOf(op);
    let seq: number | undefined;
    try {
      seq = journal.append({
        op: kind,
        phase: 'start',
        key,
        attempt,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      }).seq;
      // The start record must be on disk before the request leaves.
      await journal.flush();
    } catch (journalError) {
      // Cannot journal (disk full, I/O error): sending unjournaled writes would break resume.
      abortWith(journalError);
      return; // not sent: stays not_run
    }
    let result: R;
    try {
      result = await execute(op, {
        attempt,
        resumed: state.status !== 'not_started',
        previous: state.status === 'done' ? 'unknown' : state.status,
        ...(seq !== undefined ? { seq } : {}),
      });
    } catch (cause) {
      const error = toJournalError(cause);
      if (isFatal(cause)) abortWith(cause);
      if (isOutcomeUnknown(cause)) {
        journal.append({ op: kind, phase: 'unknown', key, error });
        const latest = journal.stateOf(key);
        if (!isIdempotent(op) && options.reconcile && stop !== 'aborted' && latest.status === 'unknown') {
          // Settle it now rather than leave it to a resume. If it was not applied it is recorded
          // as failed (a resume sends it again); it is never resent within this session.
          const settled = await reconcileUnknown(op, key, kind, latest);
          settle(index, settled ?? { status: 'failed', op, key, error, cause, attempts: attempt });
        } else {
          settle(index, { status: 'unknown', op, key, error, cause, attempts: attempt });
        }
      } else {
        journal.append({ op: kind, phase: 'failed', key, error });
        settle(index, { status: 'failed', op, key, error, cause, attempts: attempt });
      }
      return;
    }
    try {
      journal.append({ op: kind, phase: 'done', key, result: result ?? null });
    } catch (journalError) {
      // Applied, but the journal cannot say so: stop (a resume settles it from its start record).
      abortWith(journalError);
    }
    settle(index, { status: 'done', op, key, result, source: 'executed', attempts: attempt });
  };

  /** Returns the settled outcome, or undefined when the operation was not applied and must be sent. */
  const reconcileUnknown = async (
    op: Op,
    key: string,
    kind: string,
    state: Extract<OperationState, { status: 'unknown' }>,
  ): Promise<OperationOutcome<Op, R> | undefined> => {
    if (!options.reconcile) {
      const error: JournalError = state.error ?? {
        message:
          state.unproven === true
            ? 'The journal cannot prove this operation was not sent (its records may be lost), and it cannot be re-read; it was not sent.'
            : 'The outcome of this operation is unknown (started, no answer recorded); it was not resent.',
        code: 'outcome_unknown',
      };
      return { status: 'unknown', op, key, error, attempts: state.attempts };
    }
    let decision: ReconcileDecision<R>;
    try {
      decision = await options.reconcile(op, state);
    } catch (cause) {
      const error = toJournalError(cause);
      if (isFatal(cause)) abortWith(cause);
      return { status: 'unknown', op, key, error, cause, attempts: state.attempts };
    }
    if (decision === 'not_applied') {
      journal.append({
        op: kind,
        phase: 'failed',
        key,
        reconciled: true,
        error: { message: 'Not applied (established by re-reading the live state).', code: 'not_applied' },
      });
      return undefined;
    }
    const result = decision === 'done' ? undefined : decision.done;
    journal.append({ op: kind, phase: 'done', key, reconciled: true, result: result ?? null });
    return { status: 'done', op, key, result, source: 'reconciled', attempts: state.attempts };
  };

  function abortWith(error: unknown): void {
    if (stop === 'aborted') return;
    stop = 'aborted';
    fatalError = error;
  }

  const onAbort = (): void => {
    if (stop === undefined) stop = 'interrupted';
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  progress();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (stop === undefined && next < ops.length) {
      const index = next++;
      inFlight++;
      try {
        await runOne(index);
      } catch (error) {
        // Only journal I/O errors get here (execute and reconcile errors are handled per
        // operation). The request may have been sent: report the operation as unknown.
        abortWith(error);
        if (!outcomes[index]) {
          const op = ops[index] as Op;
          settle(index, {
            status: 'unknown',
            op,
            key: keys[index] as string,
            error: toJournalError(error),
            cause: error,
            attempts: 0,
          });
        }
      } finally {
        inFlight--;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, ops.length) }, () => worker()));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }

  const final: OperationOutcome<Op, R>[] = [];
  const counts = {
    total: ops.length,
    done: 0,
    executed: 0,
    reused: 0,
    reconciled: 0,
    failed: 0,
    unknown: 0,
    notRun: 0,
  };
  for (let i = 0; i < ops.length; i++) {
    let outcome = outcomes[i];
    if (!outcome) {
      outcome = { status: 'not_run', op: ops[i] as Op, key: keys[i] as string };
      options.onOutcome?.(outcome);
    }
    final.push(outcome);
    switch (outcome.status) {
      case 'done':
        counts.done++;
        if (outcome.source === 'executed') counts.executed++;
        else if (outcome.source === 'journal') counts.reused++;
        else counts.reconciled++;
        break;
      case 'failed':
        counts.failed++;
        break;
      case 'unknown':
        counts.unknown++;
        break;
      case 'not_run':
        counts.notRun++;
        break;
    }
  }
  try {
    await journal.flush();
  } catch (error) {
    abortWith(error);
  }
  progress();
  const summary: ExecuteSummary<Op, R> = {
    status: stop ?? 'completed',
    outcomes: final,
    counts,
    elapsedMs: now() - started,
  };
  if (stop === 'aborted') summary.fatalError = fatalError;
  return summary;
}

function field(op: unknown, name: string): unknown {
  return typeof op === 'object' && op !== null ? (op as Record<string, unknown>)[name] : undefined;
}

function defaultReReadExpired(op: unknown): boolean {
  return field(op, 'reReadExpired') === true;
}

function defaultIsIdempotent(op: unknown): boolean {
  return field(op, 'idempotent') === true;
}

function defaultIdempotencyKey(op: unknown): string | undefined {
  const key = field(op, 'idempotencyKey');
  return typeof key === 'string' ? key : undefined;
}

function defaultKind(op: unknown): string {
  const kind = field(op, 'kind') ?? field(op, 'op');
  return typeof kind === 'string' ? kind : 'op';
}

/** A 4xx answer means the service refused the request: it was not applied. Anything else may have been. */
export function defaultIsOutcomeUnknown(error: unknown): boolean {
  const status = field(error, 'status');
  return !(typeof status === 'number' && status >= 400 && status < 500);
}

/** Unreachable or token rejected (category `unreachable`): every further request would fail the same way. */
export function defaultIsFatal(error: unknown): boolean {
  return isUnreachable(error);
}
