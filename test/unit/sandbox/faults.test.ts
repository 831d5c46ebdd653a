import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../../src/sandbox/faults.js';
import { Clock } from '../../../src/sandbox/clock.js';

describe('FaultInjector', () => {
  it('rate-limits with a token bucket and a whole-second Retry-After', () => {
    let now = 0;
    const f = new FaultInjector({ rateLimitRps: 2 }, () => now);
    expect(f.decide().kind).toBe('none');
    expect(f.decide().kind).toBe('none');
    const limited = f.decide();
    expect(limited).toEqual({ kind: 'rate_limited', retryAfterSeconds: 1 });
    now = 500; // one token refilled
    expect(f.decide().kind).toBe('none');
    expect(f.decide().kind).toBe('rate_limited');
  });

  it('is deterministic per seed and splits drops before/after', () => {
    const a = new FaultInjector({ dropRate: 1, faultSeed: 5 });
    const b = new FaultInjector({ dropRate: 1, faultSeed: 5 });
    const kinds = Array.from({ length: 40 }, () => a.decide().kind);
    expect(Array.from({ length: 40 }, () => b.decide().kind)).toEqual(kinds);
    expect(new Set(kinds)).toEqual(new Set(['drop_before', 'drop_after']));
    expect(() => new FaultInjector({ failRate: 2 })).toThrow(RangeError);
  });

  it('jitters latency around the mean', () => {
    const f = new FaultInjector({ latencyMs: 100 });
    for (let i = 0; i < 50; i++) {
      const ms = f.latency();
      expect(ms).toBeGreaterThanOrEqual(50);
      expect(ms).toBeLessThanOrEqual(150);
    }
  });
});

describe('Clock', () => {
  it('never repeats a timestamp', () => {
    const clock = new Clock();
    const stamps = Array.from({ length: 1000 }, () => clock.tick());
    expect(new Set(stamps).size).toBe(1000);
    expect([...stamps].sort()).toEqual(stamps);
  });
});
