import { setImmediate as nextTurn } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { releasePlanningMemory } from '../../../src/jobs/runner/release-memory.js';

describe('releasePlanningMemory', () => {
  it('collects a finished plan’s garbage when the heap is above the threshold, and only then', async () => {
    // ~60 MB of small objects, like an index of live items, then dropped: only a WeakRef is left.
    const ref = new WeakRef(Array.from({ length: 600_000 }, (_, i) => ({ id: `inv_${i}`, quantity: i })));
    const heap = process.memoryUsage().heapUsed;
    expect(releasePlanningMemory(heap + 2 ** 30)).toBe(false);
    // (an object read through a WeakRef is kept alive until the end of that turn: read it in none)
    await nextTurn();
    expect(releasePlanningMemory(heap - 2 ** 20)).toBe(true);
    await nextTurn();
    expect(ref.deref()).toBeUndefined();
    expect(process.memoryUsage().heapUsed).toBeLessThan(heap - 30 * 2 ** 20);
    // Neither the main context nor a context made later gets a `gc`.
    if (!process.execArgv.some((a) => a.includes('expose-gc') || a.includes('expose_gc'))) {
      expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
      expect(runInNewContext('typeof gc')).toBe('undefined');
    }
  });
});
