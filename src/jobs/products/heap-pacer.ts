import { getHeapStatistics } from 'node:v8';
import { startFullCollection } from '../runner/release-memory.js';

/** Heap in use below which the read never collects (small catalogs never pay for it). */
const PACE_FLOOR_BYTES = 256 * 2 ** 20;

/**
 * Keeps the heap near what is live while a large catalog is read. Each page read (~270 KB of JSON,
 * ~1 MB once parsed) is consumed while the sheet's products are made and sorted, so most of it is
 * promoted and dies in the old generation, which V8 lets grow to ~4x what is live before it
 * collects: at 100,000 products ~370 MB were live and the heap reached 1.1 GB (peak RSS 1.5 GB).
 * A full collection when the heap has grown half again over what the last one left (and 64 MB)
 * holds it near 1.5x: a few collections in a read, each marked incrementally (a stop of the whole
 * program, a few hundred ms at that size, held the read's chain of pages up). The apply's
 * reads of the whole catalog (the write-time check's listing, the drift check) are paced the same.
 */
export class HeapPacer {
  private above = PACE_FLOOR_BYTES;
  private collecting = false;

  /**
   * `settle`: the read is over; start collecting its pages' garbage (above the floor). The
   * collection is incremental and runs while the plan allocates, and nothing starts if one is
   * already under way: it does not finish before the plan begins.
   */
  check(settle = false): void {
    if (this.collecting) return;
    if (getHeapStatistics().used_heap_size < (settle ? PACE_FLOOR_BYTES : this.above)) return;
    // Incremental: the read goes on taking its pages while the heap is marked.
    const done = startFullCollection();
    if (done === undefined) {
      // No collector to call: never ask again.
      this.above = Infinity;
      return;
    }
    this.collecting = true;
    void done.then(
      () => {
        this.collecting = false;
        const live = getHeapStatistics().used_heap_size;
        this.above = Math.max(PACE_FLOOR_BYTES, live * 1.5 + 64 * 2 ** 20);
      },
      () => {
        this.collecting = false;
      },
    );
  }
}
