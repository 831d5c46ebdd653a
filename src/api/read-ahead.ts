import { setImmediate as loopTurn } from 'node:timers/promises';

/**
 * Pulls up to `depth` items of `source` ahead of the consumer, so that the source produces its next
 * item (a page request) while the consumer works on the current one. Of a cursor-paginated list
 * only that can overlap: the next request needs the cursor of the page before it.
 *
 * - One request in flight: `source` is an async generator, whose `next()` calls run one at a time
 *   in call order, so each page is requested only after the page before it arrived (cursor order),
 *   and every request goes through the client (its rate controller, retries and signal) as before.
 * - Bounded: at most `depth` items wait fetched but not yet taken, however slow the consumer.
 * - Same results as reading without it: items in the same order; an error of the source is raised
 *   after the items before it were taken.
 * - When the consumer stops early, the source is closed once its request in flight settled (no
 *   request is left running, and none starts after that).
 * - The next request is on its way before the consumer gets an item, even a consumer that then
 *   holds the thread: the event loop turns twice first (see below).
 */
export async function* readAhead<T>(
  source: AsyncGenerator<T, void, undefined>,
  depth: number,
): AsyncGenerator<T, void, undefined> {
  const ahead = Math.max(1, Math.floor(depth));
  const queue: Promise<IteratorResult<T, void>>[] = [];
  const pull = (): void => {
    const next = source.next();
    // Raised when the consumer reaches it; not unhandled when it stops before that.
    next.catch(() => undefined);
    queue.push(next);
  };
  try {
    pull();
    for (;;) {
      const result = await (queue.shift() as Promise<IteratorResult<T, void>>);
      if (result.done) return;
      while (queue.length < ahead) pull();
      // Let the event loop turn before the consumer gets this item: the source's next request is
      // made in microtasks, and undici writes a request on a kept-alive connection only in the
      // loop's check phase (it first reads what the idle socket may hold), so a consumer that
      // works on the item without yielding (an export making a page's rows) would hold the next
      // request back until it is done, and nothing would overlap. The first turn lets the request
      // be made and its write queued, the second lets that write run first.
      await loopTurn();
      await loopTurn();
      yield result.value;
    }
  } finally {
    await source.return(undefined);
  }
}
