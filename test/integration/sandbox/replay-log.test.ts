import { expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/server.js';

it('logs a replayed request as replayed even when the fault injector drops its answer', async () => {
  const sb = await startSandbox({ dropRate: 1, faultSeed: 7 });
  try {
    const key = 'replay-log-test-key';
    const before = sb.store.counts().customers;
    const body = JSON.stringify({ name: 'Replay Test', phone: '6281234567890' });
    for (let i = 0; i < 12; i++) {
      await fetch(`${sb.url}/api/v2/customers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sb.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body,
      }).catch(() => undefined); // every connection is dropped
    }
    const log = sb.requestLog().filter((e) => e.idempotency_key === key);
    const acted = log.findIndex((e) => e.outcome === 'dropped_after');
    expect(acted).toBeGreaterThanOrEqual(0);
    const later = log.slice(acted + 1).filter((e) => e.outcome !== 'dropped_before');
    expect(later.length).toBeGreaterThan(0);
    // The one that acted is the only "the change happened" entry; every later one is a replay.
    expect(later.map((e) => [e.outcome, e.dropped])).toEqual(later.map(() => ['replayed', 'after']));
    // And the store holds the customer once.
    expect(sb.store.counts().customers).toBe(before + 1);
  } finally {
    await sb.close();
  }
});
