/**
 * Retry policy as small pure functions; the client loop only wires them together.
 *
 * A request is retried only when repeating it cannot apply it twice: GETs, PATCHes with absolute
 * values, DELETEs (the end state is the same) and POSTs that carry an Idempotency-Key. Any other
 * request that failed after it may have reached the server is reported as "outcome unknown".
 */

/** How an attempt failed. */
export type AttemptFailure =
  /** The server answered with an error status. */
  | { kind: 'status'; status: number }
  /** The connection was never established (refused, DNS, connect timeout): nothing was sent. */
  | { kind: 'not-sent' }
  /** The connection broke after the request was written: it may have reached the server. */
  | { kind: 'connection' }
  /** No (complete) answer in time after the request was written: it may have been applied. */
  | { kind: 'timeout' }
  /** The TLS handshake failed (certificate rejected): nothing was sent, and a retry fails the same way. */
  | { kind: 'tls' };

/** What to do after a failed attempt. */
export type RetryAction =
  /** Try again after `retryDelay`. */
  | 'retry'
  /** Give up and throw the failure itself: its outcome is known (or repeating it is safe later). */
  | 'fail'
  /** Give up and throw OutcomeUnknownError: the request may or may not have been applied. */
  | 'outcome-unknown';

export interface RetryContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** Retries allowed after the first attempt. */
  maxRetries: number;
  /** Whether repeating the request is safe (see `isIdempotentRequest`). */
  idempotent: boolean;
}

/** Retries of a request whose connection could not be made (refused, DNS, connect timeout). */
export const NOT_SENT_MAX_RETRIES = 2;

/** Statuses worth retrying: 429 (not applied), and gateway / server hiccups. */
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

export function shouldRetry(failure: AttemptFailure, ctx: RetryContext): RetryAction {
  const budgetLeft = ctx.attempt <= ctx.maxRetries;
  switch (failure.kind) {
    case 'status':
      // 429: the server refused before doing anything, so even a non-idempotent request is safe.
      if (failure.status === 429) return budgetLeft ? 'retry' : 'fail';
      if (TRANSIENT_STATUSES.has(failure.status)) {
        // A 5xx may come from a proxy after the origin applied the write: only idempotent
        // requests are repeated; for the others we cannot tell whether it happened.
        if (!ctx.idempotent) return 'outcome-unknown';
        return budgetLeft ? 'retry' : 'fail';
      }
      // Any other 4xx/5xx is a definite answer; repeating it changes nothing.
      return 'fail';
    case 'not-sent':
      // Safe whatever the method, but a refused connection rarely heals within a backoff: give
      // up early so an unreachable API is reported in about a second, not after the full budget.
      return ctx.attempt <= Math.min(ctx.maxRetries, NOT_SENT_MAX_RETRIES) ? 'retry' : 'fail';
    case 'tls':
      // A certificate that does not match or is not trusted will not be on the next attempt.
      return 'fail';
    case 'connection':
    case 'timeout':
      if (!ctx.idempotent) return 'outcome-unknown';
      return budgetLeft ? 'retry' : 'fail';
  }
}

export interface RetryDelayOptions {
  /** Delay before the first retry, in ms. Default 500. */
  initialDelayMs?: number;
  /** Upper bound of the backoff, in ms. Default 8000. */
  maxDelayMs?: number;
  /** Source of randomness in [0, 1) for the jitter. Default Math.random. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter before retry number `retry` (1 = first retry):
 * `min(max, initial * 2^(retry-1))`, then scaled into [75%, 100%] so that many clients hit by the
 * same fault do not come back in lockstep. A server-given Retry-After (already parsed and capped)
 * takes precedence.
 */
export function retryDelay(retry: number, options: RetryDelayOptions = {}, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 8000;
  const random = options.random ?? Math.random;
  const base = Math.min(max, initial * 2 ** Math.max(0, retry - 1));
  const jitter = 1 - 0.25 * random();
  return Math.round(base * jitter);
}

/** Retry-After values above this are capped (ms). */
export const DEFAULT_RETRY_AFTER_CAP_MS = 60_000;

/**
 * Parses a Retry-After header: delta-seconds (decimals tolerated) or an HTTP-date. Returns ms to
 * wait, capped at `capMs`, or undefined when the header is absent or unreadable. A date in the past
 * means "now" (0).
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
  capMs: number = DEFAULT_RETRY_AFTER_CAP_MS,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // An HTTP-date names a weekday and a month; bare numbers like "-5" are not dates.
    if (!/[a-z]{3}/i.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(capMs, Math.max(0, Math.round(ms)));
}

/**
 * Whether repeating a request cannot apply it twice. GET/HEAD/PUT/DELETE: yes. PATCH: yes unless the
 * body carries a `delta_quantity` (a relative change adds again on every replay) or a `variants` /
 * `options` entry without `id` (each such entry creates a new variant or option, so a replay of a
 * PATCH that was applied creates it a second time). POST: only with an Idempotency-Key (the server
 * replays the first answer).
 */
export function isIdempotentRequest(
  method: string,
  body: unknown,
  idempotencyKey: string | undefined,
): boolean {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'PUT' || m === 'DELETE' || m === 'OPTIONS') return true;
  if (m === 'POST') return idempotencyKey !== undefined && idempotencyKey !== '';
  if (m === 'PATCH') return !containsDelta(body) && !createsListEntries(body);
  return false;
}

/** A product PATCH whose `variants` or `options` list has an entry without `id` (a create). */
function createsListEntries(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return [b['variants'], b['options']].some(
    (list) =>
      Array.isArray(list) &&
      list.some(
        (entry: unknown) =>
          entry !== null &&
          typeof entry === 'object' &&
          typeof (entry as Record<string, unknown>)['id'] !== 'string',
      ),
  );
}

function containsDelta(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(containsDelta);
  if (body === null || typeof body !== 'object') return false;
  return Object.prototype.hasOwnProperty.call(body, 'delta_quantity');
}
