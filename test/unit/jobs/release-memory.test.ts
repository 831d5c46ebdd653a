import { setImmediate as nextTurn } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { releasePlanningMemory } from '../../../src/jobs/runner/release-memory.js';

describe('releasePlanningMemory', () => {
  it('collects a finished plan’s garbage when the heap is above the threshold, and only then', async () => {
    // ~60 MB of small objects, like an index of live items, then dropped: only a WeakRef is left.
    const ref = new WeakRef(Array.from({ length: 600_000 }, (_, i) => ({ id: `inv_${i}`, quantity: i })));
    const { heapUsed: heap, arrayBuffers } = process.memoryUsage();
    expect(releasePlanningMemory(heap + arrayBuffers + 2 ** 30)).toBe(false);
    // (an object read through a WeakRef is kept alive until the end of that turn: read it in none)
    await nextTurn();
    expect(releasePlanningMemory(heap + arrayBuffers - 2 ** 20)).toBe(true);
    await nextTurn();
    expect(ref.deref()).toBeUndefined();
    expect(process.memoryUsage().heapUsed).toBeLessThan(heap - 30 * 2 ** 20);
    // Neither the main context nor a context made later gets a `gc`.
    if (!process.execArgv.some((a) => a.includes('expose-gc') || a.includes('expose_gc'))) {
      expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
      expect(runInNewContext('typeof gc')).toBe('undefined');
    }
  });

  it('counts array buffers as memory in use: a dropped index of typed arrays is collected too', async () => {
    // 128 MB of typed arrays (what a big live index is now) and next to no heap.
    const ref = new WeakRef(Array.from({ length: 8 }, () => new Int32Array(4 * 2 ** 20).fill(1)));
    await nextTurn();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    expect(arrayBuffers).toBeGreaterThan(128 * 2 ** 20);
    // Above the heap alone, below the heap and the buffers: the heap alone would not collect.
    expect(releasePlanningMemory(heapUsed + 64 * 2 ** 20)).toBe(true);
    await nextTurn();
    expect(ref.deref()).toBeUndefined();
    // Their memory is given back by V8's sweeper, after the collection and off the main thread.
    await vi.waitFor(
      () => expect(process.memoryUsage().arrayBuffers).toBeLessThan(arrayBuffers - 100 * 2 ** 20),
      {
        timeout: 5000,
      },
    );
  });
});
