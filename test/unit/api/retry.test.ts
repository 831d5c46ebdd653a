import { describe, expect, it } from 'vitest';
import { isIdempotentRequest, parseRetryAfter, retryDelay, shouldRetry } from '../../../src/api/retry.js';
import { classifyTransportError } from '../../../src/api/transport.js';

const safe = { attempt: 1, maxRetries: 3, idempotent: true };
const unsafe = { attempt: 1, maxRetries: 3, idempotent: false };

describe('shouldRetry', () => {
  it('never retries a rejected certificate, idempotent or not (issue 14)', () => {
    expect(shouldRetry({ kind: 'tls' }, safe)).toBe('fail');
    expect(shouldRetry({ kind: 'tls' }, unsafe)).toBe('fail');
  });

  it('retries 429 even for non-idempotent requests (the server refused before acting)', () => {
    expect(shouldRetry({ kind: 'status', status: 429 }, unsafe)).toBe('retry');
    expect(shouldRetry({ kind: 'status', status: 429 }, safe)).toBe('retry');
  });

  it('retries 500/502/503/504 only when the request is idempotent', () => {
    for (const status of [500, 502, 503, 504]) {
      expect(shouldRetry({ kind: 'status', status }, safe)).toBe('retry');
      expect(shouldRetry({ kind: 'status', status }, unsafe)).toBe('outcome-unknown');
    }
  });

  it('never retries a definite answer (4xx, 501)', () => {
    for (const status of [400, 401, 403, 404, 409, 422, 501]) {
      expect(shouldRetry({ kind: 'status', status }, safe)).toBe('fail');
      expect(shouldRetry({ kind: 'status', status }, unsafe)).toBe('fail');
    }
  });

  it('treats dropped connections and timeouts as outcome unknown for non-idempotent requests', () => {
    expect(shouldRetry({ kind: 'connection' }, unsafe)).toBe('outcome-unknown');
    expect(shouldRetry({ kind: 'timeout' }, unsafe)).toBe('outcome-unknown');
    expect(shouldRetry({ kind: 'connection' }, safe)).toBe('retry');
    expect(shouldRetry({ kind: 'timeout' }, safe)).toBe('retry');
  });

  it('retries a request that was never sent (connection refused) whatever its method, at most twice', () => {
    expect(shouldRetry({ kind: 'not-sent' }, unsafe)).toBe('retry');
    expect(shouldRetry({ kind: 'not-sent' }, { ...unsafe, attempt: 2 })).toBe('retry');
    expect(shouldRetry({ kind: 'not-sent' }, { ...unsafe, attempt: 3, maxRetries: 10 })).toBe('fail');
  });

  it('stops when the retry budget is spent', () => {
    const last = { attempt: 4, maxRetries: 3, idempotent: true };
    expect(shouldRetry({ kind: 'status', status: 429 }, last)).toBe('fail');
    expect(shouldRetry({ kind: 'status', status: 503 }, last)).toBe('fail');
    expect(shouldRetry({ kind: 'connection' }, last)).toBe('fail');
    expect(shouldRetry({ kind: 'not-sent' }, last)).toBe('fail');
    expect(shouldRetry({ kind: 'status', status: 503 }, { ...last, attempt: 3 })).toBe('retry');
  });
});

describe('retryDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const opts = { initialDelayMs: 100, maxDelayMs: 1000, random: () => 0 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(n, opts))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('jitters down to 75% of the backoff', () => {
    const opts = { initialDelayMs: 1000, maxDelayMs: 10_000 };
    expect(retryDelay(1, { ...opts, random: () => 0.999999 })).toBe(750);
    expect(retryDelay(2, { ...opts, random: () => 0.5 })).toBe(1750);
  });

  it('uses the server-given Retry-After instead of the backoff', () => {
    expect(retryDelay(5, { random: () => 0 }, 1200)).toBe(1200);
    expect(retryDelay(1, { random: () => 0 }, 0)).toBe(0);
  });

  it('has documented defaults (500 ms doubling, 8 s cap)', () => {
    expect(retryDelay(1, { random: () => 0 })).toBe(500);
    expect(retryDelay(10, { random: () => 0 })).toBe(8000);
  });
});

describe('parseRetryAfter (fake clock)', () => {
  const now = Date.UTC(2026, 10, 22, 1, 0, 0);

  it('reads delta-seconds, decimals included', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('0.25', now)).toBe(250);
  });

  it('reads an HTTP-date relative to now', () => {
    const date = new Date(now + 5000).toUTCString();
    expect(parseRetryAfter(date, now)).toBe(5000);
  });

  it('treats a date in the past as now', () => {
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });

  it('caps long waits', () => {
    expect(parseRetryAfter('3600', now)).toBe(60_000);
    expect(parseRetryAfter('3600', now, 5000)).toBe(5000);
    expect(parseRetryAfter(new Date(now + 86_400_000).toUTCString(), now, 10_000)).toBe(10_000);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('isIdempotentRequest', () => {
  it('GET and DELETE are safe', () => {
    expect(isIdempotentRequest('GET', undefined, undefined)).toBe(true);
    expect(isIdempotentRequest('DELETE', undefined, undefined)).toBe(true);
  });

  it('a PATCH with absolute values is safe; one with delta_quantity is not', () => {
    expect(isIdempotentRequest('PATCH', { quantity: 5 }, undefined)).toBe(true);
    expect(isIdempotentRequest('PATCH', { name: 'x', variants: [] }, undefined)).toBe(true);
    expect(isIdempotentRequest('PATCH', { delta_quantity: 2 }, undefined)).toBe(false);
  });

  it('a product PATCH that creates variants or options (entries without id) is not safe', () => {
    // Replace-list rule: an entry without id creates one; a replayed PATCH would create it twice.
    const kept = { id: 'var_1', name: 'S', price: 100 };
    expect(isIdempotentRequest('PATCH', { variants: [kept] }, undefined)).toBe(true);
    expect(isIdempotentRequest('PATCH', { options: [{ id: 'opt_1', text: 'x' }] }, undefined)).toBe(true);
    expect(isIdempotentRequest('PATCH', { variants: [kept, { name: 'M', price: 100 }] }, undefined)).toBe(
      false,
    );
    expect(
      isIdempotentRequest('PATCH', { options: [{ type: 'OPTION_TEXT', text: 'Note' }] }, undefined),
    ).toBe(false);
  });

  it('a POST is safe only with an Idempotency-Key, delta entries included', () => {
    expect(isIdempotentRequest('POST', { name: 'x' }, undefined)).toBe(false);
    expect(isIdempotentRequest('POST', { name: 'x' }, '')).toBe(false);
    expect(isIdempotentRequest('POST', [{ item_id: 'a', delta_quantity: 1 }], 'k1')).toBe(true);
  });
});

describe('classifyTransportError', () => {
  it('classifies certificate errors as tls (not a connection to retry)', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('Hostname/IP does not match'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }),
    });
    expect(classifyTransportError(error).failure).toEqual({ kind: 'tls' });
    const selfSigned = new TypeError('fetch failed', {
      cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
    });
    expect(classifyTransportError(selfSigned).failure).toEqual({ kind: 'tls' });
  });
});
