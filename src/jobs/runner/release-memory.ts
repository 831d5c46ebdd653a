import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Memory in use (heap and array buffers) above which a finished plan's garbage is worth a full collection. */
const RELEASE_ABOVE_BYTES = 256 * 2 ** 20;

let collect: ((options?: object) => unknown) | null | undefined;

/**
 * Collects the garbage a big plan left behind, before an apply allocates on top of it. Planning a
 * million-row stock sheet holds an index of every live item (~500 MB); once the plan is written the
 * index is garbage, but V8 collects old space only when it next fills, so the apply's own
 * allocations (journal, results file, report) came on top: peak RSS 1,075 MB against 851 MB for the
 * plan (bench/stock.bench.ts at a million SKUs). A full collection of a heap that is mostly garbage
 * marks only what is live (a few ms to tens of ms) and lets the apply reuse the pages.
 *
 * The index is now mostly typed arrays (~300 MB at a million items), which V8 keeps outside its
 * heap: they count too, or the apply of a million-row plan would start with the dead index still
 * held (peak RSS 751 MB against 618 MB for the plan).
 *
 * Only above 256 MB in use (`aboveBytes`), so small runs never pay for it. Returns whether
 * it collected. `gc` is Node's own (`--expose-gc`) or, without it, taken the way Jest's leak
 * detector (jest-leak-detector) takes it: the flag set at run time, `gc` read from a new context
 * (a context made after the flag has it), the flag cleared again so that no later context gets
 * it; the main context's globals never change. Should that fail, nothing is collected (the apply
 * runs as before, with a higher peak).
 */
export function releasePlanningMemory(aboveBytes = RELEASE_ABOVE_BYTES): boolean {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  if (heapUsed + arrayBuffers < aboveBytes) return false;
  if (collect === undefined) collect = gcFunction();
  if (collect === null) return false;
  collect();
  return true;
}

/**
 * Starts a full collection without stopping the program for it: V8's incremental marking
 * (`gc({ type: 'major', execution: 'async' })`), so that a read in progress keeps taking its pages.
 * Resolves once it is done; undefined when there is no collector to call (see releasePlanningMemory).
 */
export function startFullCollection(): Promise<void> | undefined {
  if (collect === undefined) collect = gcFunction();
  if (collect === null) return undefined;
  return Promise.resolve(collect({ type: 'major', execution: 'async' })).then(() => undefined);
}

function gcFunction(): ((options?: object) => unknown) | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as (options?: object) => unknown;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? (gc as (options?: object) => unknown) : null;
  } catch {
    return null;
  }
}
