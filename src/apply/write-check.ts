import { NotFoundError } from '../api/errors.js';
import type { ExecuteContext } from './execute-plan.js';
import type { RunDirectory } from './run-directory.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { categoryOf } from '../errors/exit-code.js';

/**
 * Write-time check: just before a PATCH (or a create), re-read what the plan was made from, so a
 * change someone made after planning (another terminal, a person in the admin, a long wait at the
 * confirmation prompt) is refused as drifted instead of overwritten. Due when the plan is older
 * than `afterMs` (default 5 s), or always with `strict`.
 *
 * - Default: the run's writes are checked against one shared listing of the collection (the whole
 *   catalog, or every customer), read in pages and re-read in the background once it is older than
 *   `max(3 s, 10 × its read time)`; a write waits for a new read only when the one it has is more
 *   than twice that old. Each update's `updated_at` must still be the one planned; a create's
 *   reference id / sku (phone / email) must still be free. So the listing costs about a tenth of
 *   the run, and (a listing read for the check, under a second) a change is caught unless it was
 *   made in the last few seconds before the write. Such a listing is used for updates when it costs
 *   no more requests than one get-one per write (its pages ≤ the writes to check) and reads in
 *   under a second; otherwise each update re-reads its entity. Creates always use the listing.
 * - The run's own complete read of the collection (the plan's live read when the plan is applied
 *   in the process that made it, `import … --apply`; the drift check's read in `mbulk apply RUN`
 *   and a resume) is the listing's first read (`seed`, handed over with `handOverListing`), aged
 *   from when that read started. It cost nothing, so updates use it whatever its read time while it
 *   is younger than its refresh time; past that it is re-read by the rule above when a read costs
 *   no more than the get-ones (then whatever the re-read's time), else updates re-read their entity.
 *   So a change made up to `max(3 s, 10 × that read's time)` after the read started can go uncaught.
 * - `strict` (`--strict-check`): each update re-reads its entity (`GET /…/{id}`) immediately before
 *   it is sent, whatever the plan's age (one more request per write); the run's own read is not
 *   used (creates read a listing of their own, reused for 10× its read time). A service without get-one
 *   (the sandbox in strict mode answers 404 for an entity the listing has) falls back, with one
 *   warning, to the listing, re-read (writes waiting) whenever older than 10× its read time.
 * - Operations an earlier session started without a known outcome (resume) are not checked here:
 *   their `updated_at` may have moved because of this run's own write; the job settles them first
 *   (see settleProductReplay). Those that failed (drifted included) are checked again.
 */
export interface WriteCheckOptions {
  /** Re-read each entity just before writing it (`--strict-check`). Default false: a shared listing, once the plan is older than `afterMs`. */
  strict?: boolean | undefined;
  /** Plan age in ms past which writes re-read first (default 5000). */
  afterMs?: number | undefined;
  /** Shortest reuse of a listing in ms in the default mode (default 3000). */
  listingRefreshMs?: number | undefined;
  /** A listing read slower than this is slow: updates re-read their entity instead (default LISTING_MAX_READ_MS; tests). */
  listingMaxReadMs?: number | undefined;
  /** Wall clock in ms since the epoch (tests). */
  now?: (() => number) | undefined;
}

export const DEFAULT_WRITE_CHECK_AFTER_MS = 5000;
export const DEFAULT_LISTING_REFRESH_MS = 3000;
/** A listing slower to read than this cannot be kept fresh: updates re-read their entity instead. */
export const LISTING_MAX_READ_MS = 1000;

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

interface Snapshot {
  /** When the read started (what it shows is at least this fresh). */
  at: number;
  refreshMs: number;
  value: Promise<unknown>;
}

/**
 * A complete read of a collection the run made itself (the plan's live read, the drift check's
 * read), given to the write-time check as its listing's first read (WriteCheck.seed).
 */
export interface FirstListing {
  /** The listing's name, as the kind's check reads it (`products`, `customers`). */
  name: string;
  /** When the read started, ms since the epoch (Date.now()). */
  startedAt: number;
  /** How long the read took, in ms. */
  readMs: number;
  /** The kind's listing, as its check builds it. */
  value: unknown;
}

/** Listings handed over from a run's plan or drift check to its apply in the same process. */
const handedOver = new WeakMap<RunDirectory, FirstListing>();

/**
 * Hands the run's own complete read of a collection to the run's apply in this process (the
 * write-time check's first listing, see WriteCheck.seed). A later hand-over replaces it.
 */
export function handOverListing(run: RunDirectory, listing: FirstListing): void {
  handedOver.set(run, listing);
}

/** The listing handed over for this run (once: it is let go), if any. */
export function takeListing(run: RunDirectory): FirstListing | undefined {
  const listing = handedOver.get(run);
  handedOver.delete(run);
  return listing;
}

export class WriteCheck {
  private readonly plannedAt: number;
  private readonly afterMs: number;
  private readonly strict: boolean;
  private readonly refreshMs: number;
  private readonly maxReadMs: number;
  private readonly now: () => number;
  private getOneOff = false;
  private listingPreferred = false;
  private listingSlow = false;
  /** The run's own read, given as the listing's first (seed): free, whatever its read time. */
  private free: Snapshot | undefined;
  /** The last completed read per collection, and the read under way. */
  private snapshots = new Map<string, Snapshot>();
  private pending = new Map<string, Snapshot>();
  /** Collection listings read. */
  collectionReads = 0;

  constructor(
    plannedAt: string,
    options: WriteCheckOptions = {},
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.now = options.now ?? Date.now;
    this.maxReadMs = options.listingMaxReadMs ?? LISTING_MAX_READ_MS;
    const t = Date.parse(plannedAt);
    this.plannedAt = Number.isFinite(t) ? t : 0;
    this.afterMs = Math.max(0, options.afterMs ?? DEFAULT_WRITE_CHECK_AFTER_MS);
    this.strict = options.strict === true;
    this.refreshMs = Math.max(0, options.listingRefreshMs ?? DEFAULT_LISTING_REFRESH_MS);
  }

  /** Whether this operation is re-checked before it is sent. */
  due(ctx: ExecuteContext): boolean {
    // A write an earlier session may have applied moved `updated_at` itself: not drift.
    if (ctx.previous === 'unknown') return false;
    return this.strict || this.now() - this.plannedAt >= this.afterMs;
  }

  /**
   * Default mode: check updates against the shared listing when one read of it (`pages` requests)
   * costs no more than one get-one per write to check (`writes`). Ignored when strict.
   */
  preferListing(pages: number, writes: number): void {
    this.listingPreferred = !this.strict && pages <= writes;
  }

  /**
   * The run's own complete read of the collection (see FirstListing) becomes the listing's first
   * read, aged from when it started; its refresh time is `max(listingRefreshMs, 10 × its read
   * time)`. Ignored when strict (every update re-reads its entity, creates a listing of their own).
   */
  seed(listing: FirstListing | undefined): void {
    if (listing === undefined || this.strict) return;
    const entry: Snapshot = {
      at: listing.startedAt,
      refreshMs: Math.max(this.refreshMs, 10 * listing.readMs),
      value: Promise.resolve(listing.value),
    };
    this.snapshots.set(listing.name, entry);
    this.free = entry;
  }

  /**
   * Whether updates are checked against the shared listing (else: one get-one each). A listing the
   * run's own read gave is used while younger than its refresh time, and after that (re-read in
   * its turn) when a read costs no more than the get-ones, however long the reads take.
   */
  get usesListing(): boolean {
    if (this.getOneOff) return true;
    if (this.free !== undefined && !this.strict) {
      if (this.listingPreferred) return true;
      if (this.now() - this.free.at < this.free.refreshMs) return true;
    }
    return this.listingPreferred && !this.listingSlow;
  }

  /** Whether the service is known to have no get-one route (see getOneMissing). */
  get getOneIsMissing(): boolean {
    return this.getOneOff;
  }

  /** Whether the per-entity re-read (get-one) is due. */
  entityDue(ctx: ExecuteContext): boolean {
    return !this.usesListing && this.due(ctx);
  }

  /**
   * The get-one route answered 404 for an entity the listing has: the service has no get-one
   * (strict mode). Updates are checked against the listing for the rest of the run; said once.
   */
  getOneMissing(route: string): void {
    if (this.getOneOff) return;
    this.getOneOff = true;
    this.warn(
      `${route} answered 404 for an entity that exists: this service has no get-one route, so writes are checked against a fresh listing of the collection instead of being re-read one by one`,
    );
  }

  /**
   * A fresh listing shared by the run's writes of one kind (concurrent callers share one read).
   * Reused while younger than its refresh time (`max(listingRefreshMs, 10 × read time)`; strict:
   * `10 × read time`); past that a new read starts, and until it is in, callers go on with the old
   * one while it is younger than twice the refresh time (default mode only), else wait for it.
   */
  async snapshot<T>(name: string, load: () => Promise<T>): Promise<T> {
    const t = this.now();
    const current = this.snapshots.get(name);
    if (current && t - current.at < current.refreshMs) return current.value as Promise<T>;
    const next = this.pending.get(name) ?? this.read(name, load);
    if (current && !this.strict && t - current.at < 2 * current.refreshMs) {
      return current.value as Promise<T>;
    }
    return next.value as Promise<T>;
  }

  /** `snapshot`, for a check before a write: a failed read is WriteCheckFailedError (`what` was not re-read; nothing sent). */
  async listing<T>(name: string, what: string, load: () => Promise<T>): Promise<T> {
    try {
      return await this.snapshot(name, load);
    } catch (error) {
      throw new WriteCheckFailedError(what, error);
    }
  }

  private read<T>(name: string, load: () => Promise<T>): Snapshot {
    const entry: Snapshot = { at: this.now(), refreshMs: 0, value: Promise.resolve() };
    const started = performance.now();
    entry.value = load().then(
      (v) => {
        const took = performance.now() - started;
        entry.refreshMs = Math.max(this.strict ? 0 : this.refreshMs, 10 * took);
        if (took > this.maxReadMs) this.listingSlow = true;
        this.snapshots.set(name, entry);
        this.pending.delete(name);
        return v;
      },
      (error: unknown) => {
        this.pending.delete(name);
        throw error;
      },
    );
    // A background read nobody awaits must not become an unhandled rejection.
    entry.value.catch(() => undefined);
    this.pending.set(name, entry);
    this.collectionReads++;
    return entry;
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

/**
 * What the write-time check reads of one kind of entity (products, customers): the kind's data;
 * the algorithm is refuseChanged's and readForReplay's, one for every kind.
 */
export interface CheckedEntities {
  /** `product`, `customer`: in messages. */
  noun: string;
  /** The get-one route (`GET /products/{id}`), named when the service turns out to have none. */
  getRoute: string;
  /** The entity's `updated_at`, re-read one by one; throws the client's NotFoundError when absent. */
  getUpdatedAt(id: string): Promise<string>;
  /** Its `updated_at` in the shared listing (WriteCheck.snapshot); undefined when not listed. */
  listedUpdatedAt(id: string): Promise<string | undefined>;
  /**
   * Products: missing from the listing means deleted after planning (drifted, nothing sent);
   * customers: the write is sent and fails with its own 404.
   */
  missingIsDrift: boolean;
}

/**
 * Before an update (hide, delete): throws WriteDriftError (nothing sent) when the entity's
 * `updated_at` is not `expected`, the one seen when planning. Checked against the shared listing
 * (default), or by re-reading the entity (strict, or a listing too big to read often); a get-one
 * 404 for an entity the listing has means the service has no get-one (WriteCheck.getOneMissing).
 * `label` names the sheet row (`row 4 Ada`).
 */
export async function refuseChanged(
  check: WriteCheck,
  entities: CheckedEntities,
  id: string,
  expected: string,
  label: string,
): Promise<void> {
  const drifted = (now: string) =>
    new WriteDriftError(
      `drifted: ${label} (${entities.noun} ${id}) changed in the store after planning (updated_at ${expected} → ${now}); not overwritten. Plan again to include the change`,
    );
  if (!check.usesListing) {
    let live: string;
    try {
      // No abort signal: a stop lets the operations in flight finish (and this read is short).
      live = await entities.getUpdatedAt(id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw new WriteCheckFailedError(`${entities.noun} ${id}`, error);
      // Gone, or no get-one route: the listing tells.
      const listed = await entities.listedUpdatedAt(id);
      if (listed === undefined) return; // gone: the write fails with its own 404
      check.getOneMissing(entities.getRoute);
      if (listed !== expected) throw drifted(listed);
      return;
    }
    if (live !== expected) throw drifted(live);
    return;
  }
  const listed = await entities.listedUpdatedAt(id);
  if (listed === undefined) {
    if (!entities.missingIsDrift) return; // not listed: the write fails with its own 404
    throw new WriteDriftError(
      `drifted: ${label} (${entities.noun} ${id}) is no longer in the store (deleted after planning); not written`,
    );
  }
  if (listed !== expected) throw drifted(listed);
}

/**
 * The entity as it is now, for settling a replay whose earlier attempt has no known outcome:
 * `getOne` (its NotFoundError: not there, or no get-one route), then `listed` (a listing shared by
 * every replay of the run, not one scan each); undefined when neither has it.
 */
export async function readForReplay<T>(
  check: WriteCheck,
  getRoute: string,
  getOne: () => Promise<T>,
  listed: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!check.getOneIsMissing) {
    try {
      return await getOne();
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  const live = await listed();
  if (live !== undefined) check.getOneMissing(getRoute);
  return live;
}
