import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

describe('faults', () => {
  it('answers 429 rate_limit_error with an integer Retry-After above the rate limit', async () => {
    const sb = await startSandbox({ rateLimitRps: 5 });
    try {
      const api = client(sb);
      const replies = await Promise.all(Array.from({ length: 12 }, () => api.get('/api/v2/me')));
      const limited = replies.filter((r) => r.status === 429);
      expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(5);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) {
        expect(envelope(r)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
        const retryAfter = r.headers.get('retry-after');
        expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
      }
      expect(sb.requestLog().filter((e) => e.outcome === 'rate_limited')).toHaveLength(limited.length);
      // Admin routes are never limited.
      expect((await fetch(`${sb.url}/__sandbox/requests`)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('answers 500 api_error before acting under fail-rate 1', async () => {
    const sb = await startSandbox({ failRate: 1 });
    try {
      const api = client(sb);
      const r = await api.post('/api/v2/customers', { name: 'F', phone: '1' });
      expect(r.status).toBe(500);
      expect(envelope(r)).toMatchObject({ type: 'api_error', code: 'internal_error' });
      expect(sb.store.counts().customers).toBe(0);
      expect(sb.requestLog()[0]).toMatchObject({ outcome: 'faulted_before', status: 500 });
    } finally {
      await sb.close();
    }
  });

  it('drops connections, half before and half after acting, and logs which', async () => {
    const sb = await startSandbox({ dropRate: 1, faultSeed: 42 });
    try {
      const api = client(sb);
      let rejected = 0;
      for (let i = 0; i < 12; i++) {
        await api.post('/api/v2/customers', { name: `D${i}`, phone: String(i) }).catch(() => {
          rejected++;
        });
      }
      expect(rejected).toBe(12);
      const log = sb.requestLog();
      const after = log.filter((e) => e.outcome === 'dropped_after').length;
      const before = log.filter((e) => e.outcome === 'dropped_before').length;
      expect(after + before).toBe(12);
      expect(after).toBeGreaterThan(0);
      expect(before).toBeGreaterThan(0);
      // Exactly the drop_after requests happened.
      expect(sb.store.counts().customers).toBe(after);
    } finally {
      await sb.close();
    }
  });

  it('makes a keyed retry after a lost response replay instead of acting twice', async () => {
    const sb = await startSandbox({ dropRate: 0.6, faultSeed: 18 });
    try {
      const api = client(sb);
      let ok = null;
      for (let attempt = 0; attempt < 30 && ok === null; attempt++) {
        ok = await api
          .post('/api/v2/customers', { name: 'Retry', phone: '1' }, { 'idempotency-key': 'r-1' })
          .catch(() => null);
      }
      expect(ok?.status).toBe(200);
      const outcomes = sb.requestLog().map((e) => e.outcome);
      expect(outcomes).toContain('dropped_after');
      expect(outcomes[outcomes.length - 1]).toBe('replayed');
      expect(sb.store.counts().customers).toBe(1);
    } finally {
      await sb.close();
    }
  });

  it('is deterministic for a fault seed and serves the admin log over HTTP', async () => {
    const outcomes: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const sb = await startSandbox({ failRate: 0.5, faultSeed: 9 });
      try {
        const api = client(sb);
        for (let i = 0; i < 10; i++) await api.get('/api/v2/me');
        const log = (await (await fetch(`${sb.url}/__sandbox/requests`)).json()) as Json;
        outcomes.push(log.map((e: { outcome: string }) => e.outcome));
        expect(log[0]).toMatchObject({ method: 'GET', path: '/api/v2/me', idempotency_key: null });
        expect(typeof log[0].ms).toBe('number');
        await fetch(`${sb.url}/__sandbox/requests`, { method: 'DELETE' });
        expect(await (await fetch(`${sb.url}/__sandbox/requests`)).json()).toEqual([]);
      } finally {
        await sb.close();
      }
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(new Set(outcomes[0])).toEqual(new Set(['applied', 'faulted_before']));
  });

  it('adds latency', async () => {
    const sb = await startSandbox({ latencyMs: 60 });
    try {
      const t = performance.now();
      await client(sb).get('/api/v2/me');
      expect(performance.now() - t).toBeGreaterThanOrEqual(29);
    } finally {
      await sb.close();
    }
  });
});
