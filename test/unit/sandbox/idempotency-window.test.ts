import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_MS, IdempotencyTable } from '../../../src/sandbox/idempotency.js';

const record = (key: string, at: number) => ({
  key,
  fingerprint: IdempotencyTable.fingerprintOf('{}'),
  status: 200,
  body: '{}',
  request_id: 'req_1',
  at,
});

describe('sandbox idempotency window (spec: 24 hours)', () => {
  it('is 24 hours', () => {
    expect(IDEMPOTENCY_WINDOW_MS).toBe(24 * 60 * 60 * 1000);
  });

  it('replays within 24 h and forgets the key after', () => {
    const t0 = 1_800_000_000_000;
    const table = new IdempotencyTable([record('a', t0)]);
    expect(table.get('a', t0 + IDEMPOTENCY_WINDOW_MS - 1)?.request_id).toBe('req_1');
    expect(table.get('a', t0 + IDEMPOTENCY_WINDOW_MS)).toBeUndefined();
    // Forgotten for good: an earlier clock does not bring it back.
    expect(table.get('a', t0)).toBeUndefined();
  });

  it('persists only the records still inside the window', () => {
    const t0 = 1_800_000_000_000;
    const table = new IdempotencyTable([record('old', t0), record('new', t0 + 1000)]);
    const kept = table.toJSON(t0 + IDEMPOTENCY_WINDOW_MS + 500);
    expect(kept.map((r) => r.key)).toEqual(['new']);
  });

  it('scopes a key by token and route (hashes, never the token itself)', () => {
    const a = IdempotencyTable.keyOf('tok_a', 'POST /api/v2/customers', 'k');
    expect(a).not.toBe(IdempotencyTable.keyOf('tok_b', 'POST /api/v2/customers', 'k'));
    expect(a).not.toBe(IdempotencyTable.keyOf('tok_a', 'POST /api/v2/products', 'k'));
    expect(a).not.toContain('tok_a');
  });
});
