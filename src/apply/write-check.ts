import type { ExecuteContext } from './execute-plan.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { categoryOf } from '../errors/exit-code.js';

/**
 * Write-time check: just before a PATCH (or a create), re-read what the plan was made from, so a
 * change someone made after planning (another terminal, a person in the admin, a long wait at the
 * confirmation prompt) is refused as drifted instead of overwritten.
 *
 * - An update re-reads its entity (`GET /…/{id}`) when the plan is older than `afterMs` (default
 *   5 s) or always with `strict`; its `updated_at` must still be the one planned.
 * - Creates share one fresh read of the collection (by reference id / sku, or phone / email),
 *   taken when the plan is older than the threshold and reused for `max(afterMs, 10 × the read's
 *   duration)` so a big catalog costs at most ~10% of the run.
 * - A service without get-one (the sandbox in strict mode answers 404): the first 404 for an entity
 *   that the PATCH then finds existing turns the per-write re-reads off for the rest of the run,
 *   with one warning; the apply-time drift check (one catalog read before writing) still guards.
 * - Operations an earlier session started without a known outcome (resume) are not checked:
 *   their `updated_at` may have moved because of this run's own write. Those that failed (drifted
 *   included) are checked again.
 */
export interface WriteCheckOptions {
  /** Re-read before every update (`--strict-check`). Default false: only once the plan is older than `afterMs`. */
  strict?: boolean | undefined;
  /** Plan age in ms past which writes re-read first (default 5000). */
  afterMs?: number | undefined;
  /** Wall clock in ms since the epoch (tests). */
  now?: (() => number) | undefined;
}

export const DEFAULT_WRITE_CHECK_AFTER_MS = 5000;

/** An operation refused at write time: the entity changed since planning. A definite failure (nothing was sent). */
export class WriteDriftError extends MbulkError {
  static override readonly errorName: string = 'WriteDriftError';
  readonly code = 'drifted';
  readonly type = 'drift';
  /** Like a 409: the service was not asked to write, so the outcome is known (not applied). */
  readonly status = 409;
  constructor(message: string) {
    super('failed', message);
  }
}

export class WriteCheck {
  private readonly plannedAt: number;
  private readonly afterMs: number;
  private readonly strict: boolean;
  private readonly now: () => number;
  private getOneOff = false;
  private snapshots = new Map<string, { at: number; refreshMs: number; value: Promise<unknown> }>();
  /** Collection reads made for creates. */
  collectionReads = 0;

  constructor(
    plannedAt: string,
    options: WriteCheckOptions = {},
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.now = options.now ?? Date.now;
    const t = Date.parse(plannedAt);
    this.plannedAt = Number.isFinite(t) ? t : 0;
    this.afterMs = Math.max(0, options.afterMs ?? DEFAULT_WRITE_CHECK_AFTER_MS);
    this.strict = options.strict === true;
  }

  /** Whether this operation is re-checked before it is sent. */
  due(ctx: ExecuteContext): boolean {
    // A write an earlier session may have applied moved `updated_at` itself: not drift.
    if (ctx.previous === 'unknown') return false;
    return this.strict || this.now() - this.plannedAt >= this.afterMs;
  }

  /** Whether the per-entity re-read (get-one) is due. */
  entityDue(ctx: ExecuteContext): boolean {
    return !this.getOneOff && this.due(ctx);
  }

  /**
   * The get-one route answered 404 for an entity the PATCH then found: the service has no get-one
   * (strict mode). Re-reads are off for the rest of the run; said once.
   */
  getOneMissing(route: string): void {
    if (this.getOneOff) return;
    this.getOneOff = true;
    this.warn(
      `${route} answered 404 for an entity that exists: this service has no get-one route, so writes are no longer re-read one by one; the drift check before applying (one catalog read) still guards this run`,
    );
  }

  /**
   * A fresh read shared by the creates of one kind: reused while younger than the threshold (or
   * 10× its own duration, whichever is longer), then read again. Concurrent callers share one read.
   */
  async snapshot<T>(name: string, load: () => Promise<T>): Promise<T> {
    const t = this.now();
    const cached = this.snapshots.get(name);
    if (cached && t - cached.at < cached.refreshMs) return cached.value as Promise<T>;
    const entry = { at: t, refreshMs: this.afterMs, value: Promise.resolve() as Promise<unknown> };
    const started = performance.now();
    entry.value = load().then(
      (v) => {
        entry.refreshMs = Math.max(this.afterMs, 10 * (performance.now() - started));
        return v;
      },
      (error: unknown) => {
        this.snapshots.delete(name);
        throw error;
      },
    );
    this.snapshots.set(name, entry);
    this.collectionReads++;
    return entry.value as Promise<T>;
  }
}

/**
 * The re-read before a write failed (5xx after retries, timeout): the write was not sent, so the
 * outcome is known (not applied); a resume tries it again. Keeps the cause's category, so an
 * unreachable API (category `unreachable`) still stops the run.
 */
export class WriteCheckFailedError extends MbulkError {
  static override readonly errorName: string = 'WriteCheckFailedError';
  readonly code = 'recheck_failed';
  readonly status = 424;
  constructor(what: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(
      categoryOf(cause) ?? 'failed',
      `not sent: re-reading ${what} before writing it failed (${message})`,
      {
        cause,
      },
    );
  }
}
