import type { ListEnvelope } from '../../schema/common.js';
import type { Product, ProductStatus } from '../../schema/product.js';
import type { SendPriority } from '../rate-controller.js';

/** What listEveryProduct needs of the products resource (Products). */
export interface StatusPages {
  /** Every product of one status, page by page; `onRequest` is told each page's cursor before it is asked for. */
  pages(
    status: ProductStatus,
    options: {
      signal: AbortSignal;
      priority: SendPriority;
      readAhead?: number | undefined;
      onRequest?: ((cursor: string | undefined) => void) | undefined;
    },
  ): AsyncIterable<ListEnvelope<Product>>;
  /** One page of one status after `cursor`. */
  page(
    status: ProductStatus,
    cursor: string | undefined,
    options: { signal: AbortSignal; priority: SendPriority },
  ): Promise<ListEnvelope<Product>>;
  /** The VISIBLE chain (and its pages read again) is over: background requests need not wait for more of it. */
  leadEnded?(): void;
  /** Every product in one unfiltered read (the fallback). */
  plain(options: {
    signal: AbortSignal;
    readAhead?: number | undefined;
  }): AsyncIterable<ListEnvelope<Product>>;
}

export interface ListEveryProductOptions {
  signal?: AbortSignal | undefined;
  /** Called as each page arrives (progress). */
  onPage?: (() => void) | undefined;
  /** Pages of the VISIBLE chain read ahead of the consumer (PageIterator's readAhead). */
  readAhead?: number | undefined;
}

/** A partition's listing was not in creation order: its pages cannot be placed against the other's. */
class NotInCreationOrder extends Error {}

/** How far one chain has read, as the created_at (ms) of the last product it received. */
class Frontier {
  at = -Infinity;
  done = false;
  /** Past every position up to `ms` (strictly: products created at the same ms may still follow). */
  passed(ms: number): boolean {
    return this.done || ms < this.at;
  }
  /** A bound that stays below this frontier's later values: what was read when asked. */
  now(): number {
    return this.done ? Infinity : this.at;
  }
}

/**
 * Every product of the store, each once, read as the status partitions in parallel: VISIBLE
 * leads (its chain of cursor pages bounds the read), HIDDEN twice in the background, on what the
 * VISIBLE chain leaves of the rate. As complete as one plain read for any product that changes
 * status at most once while the store is read.
 *
 * Why three chains. A product P whose status changes at time t while the partitions are read is
 * missed by both when each chain passes P's place in the listing while P has the other status:
 * - HIDDEN -> VISIBLE, missed when the VISIBLE chain passed P before t and the HIDDEN chain after
 *   t. So the first HIDDEN chain must pass every place before the VISIBLE chain does: a VISIBLE
 *   page asked for when the first HIDDEN chain had not yet passed its last product is read again
 *   (from the same cursor, until past that product) once the HIDDEN chain is over.
 * - VISIBLE -> HIDDEN, missed when the HIDDEN chain passed P before t and the VISIBLE chain after
 *   t. So a second HIDDEN chain trails the VISIBLE one: each of its pages is asked for only when
 *   the VISIBLE chain has passed that page's last product (the first chain's page of that number
 *   says where it will end; a page that ends further is asked for again later).
 * Places are compared by `created_at`: the listing's order is taken to be creation order, as it
 * is checked to be in each chain (a product created at the same millisecond as a chain's last one
 * is not taken as passed). A chain out of creation order drops the partitions: the store is read
 * again in one plain chain, and what it finds unread is handed over too.
 *
 * Requests: the pages of both partitions (those of one plain read, plus one), the HIDDEN pages
 * once more, and the VISIBLE pages read again (usually the first only). The HIDDEN chains go on
 * the rate the VISIBLE chain leaves (`background`), so the read lasts the VISIBLE chain.
 *
 * Not covered: a product whose status changes twice while the store is read (a plain read sees
 * it either way); the apply's write-time check still refuses a create whose key exists by then.
 */
export async function* listEveryProduct(
  source: StatusPages,
  options: ListEveryProductOptions = {},
): AsyncGenerator<Product, void, undefined> {
  const controller = new AbortController();
  const parent = options.signal;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted === true) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;

  // Pages received, in arrival order, waiting for the consumer.
  const queue: Product[][] = [];
  let failure: { error: unknown } | undefined;
  let running = 0;
  let wakeConsumer: (() => void) | undefined;
  // Chains waiting for another chain to move on.
  let waiters: (() => void)[] = [];
  const progress = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
    wakeConsumer?.();
  };
  const moved = () =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      waiters.push(resolve);
    });
  signal.addEventListener('abort', progress, { once: true });
  const until = async (ready: () => boolean) => {
    while (!ready()) {
      if (failure !== undefined) throw failure.error;
      await moved();
    }
  };
  const hand = (data: Product[]) => {
    // Stopped (the consumer left, or another chain failed): no page is taken, no request follows.
    signal.throwIfAborted();
    if (data.length > 0) queue.push(data);
    options.onPage?.();
    progress();
  };
  /** The created_at (ms) of a page's products, checked to be in creation order after `from`. */
  const lastOf = (data: readonly Product[], from: number): number => {
    let last = from;
    for (const p of data) {
      const ms = Date.parse(p.created_at);
      if (!(ms >= last)) throw new NotInCreationOrder();
      last = ms;
    }
    return last;
  };
  /** How far a page reaches: its last product, or the listing's end when it is the last page. */
  const reach = (page: ListEnvelope<Product>, last: number) => (page.has_more ? last : Infinity);

  const visible = new Frontier();
  const hidden = new Frontier();
  /** Where each page of the first HIDDEN chain ended (the second chain's waits). */
  const hiddenEnds: number[] = [];
  /** VISIBLE pages asked for before the first HIDDEN chain had passed them: read again. */
  const again: { cursor: string | undefined; reach: number }[] = [];

  /** Reads VISIBLE from `cursor` until past `upTo` (the first HIDDEN chain is over by then). */
  const readAgain = async (cursor: string | undefined, upTo: number) => {
    let at = cursor;
    for (;;) {
      signal.throwIfAborted();
      const page = await source.page('VISIBLE', at, { signal, priority: 'normal' });
      const last = lastOf(page.data, -Infinity);
      hand(page.data);
      if (!page.has_more || page.next_cursor === null || last > upTo || (last === upTo && upTo !== Infinity))
        return;
      at = page.next_cursor;
    }
  };
  const readAgainAll = async () => {
    while (again.length > 0) {
      const next = again.shift() as (typeof again)[number];
      await readAgain(next.cursor, next.reach);
    }
  };

  const visibleChain = async () => {
    // The first HIDDEN chain's frontier when each VISIBLE page was asked for (the first ask).
    const askedAt = new Map<string, number>();
    const key = (cursor: string | undefined) => cursor ?? '';
    let cursor: string | undefined;
    let last = -Infinity;
    for await (const page of source.pages('VISIBLE', {
      signal,
      priority: 'normal',
      readAhead: options.readAhead,
      onRequest: (c) => {
        if (!askedAt.has(key(c))) askedAt.set(key(c), hidden.now());
      },
    })) {
      last = lastOf(page.data, last);
      const ends = reach(page, last);
      const hiddenThen = askedAt.get(key(cursor)) ?? -Infinity;
      askedAt.delete(key(cursor));
      if (!(hiddenThen === Infinity || ends < hiddenThen)) again.push({ cursor, reach: ends });
      visible.at = last;
      hand(page.data);
      cursor = page.next_cursor ?? undefined;
    }
    visible.done = true;
    source.leadEnded?.();
    progress();
    // Pages asked for before the first HIDDEN chain passed them, read once it is over.
    await until(() => hidden.done);
    await readAgainAll();
    source.leadEnded?.();
  };

  const hiddenChain = async () => {
    let last = -Infinity;
    for await (const page of source.pages('HIDDEN', { signal, priority: 'background' })) {
      last = lastOf(page.data, last);
      hiddenEnds.push(reach(page, last));
      hidden.at = last;
      hand(page.data);
    }
    hidden.done = true;
    progress();
    // The VISIBLE pages at risk so far are read again now, while the VISIBLE chain goes on.
    await readAgainAll();
    if (visible.done) source.leadEnded?.();
  };

  const trailingChain = async () => {
    let cursor: string | undefined;
    let last = -Infinity;
    for (let n = 0; ; n++) {
      // Where this page should end: the first chain's page of that number, once it is known.
      await until(() => n < hiddenEnds.length || hidden.done);
      const expected = n < hiddenEnds.length ? (hiddenEnds[n] as number) : Infinity;
      await until(() => visible.passed(expected));
      for (;;) {
        signal.throwIfAborted();
        const visibleThen = visible.now();
        const page = await source.page('HIDDEN', cursor, { signal, priority: 'background' });
        const pageLast = lastOf(page.data, last);
        const ends = reach(page, pageLast);
        if (visibleThen === Infinity || ends < visibleThen) {
          last = pageLast;
          hand(page.data);
          if (!page.has_more || page.next_cursor === null) return;
          cursor = page.next_cursor;
          break;
        }
        // It reaches past what the VISIBLE chain had read: asked for again once it has.
        await until(() => visible.passed(ends));
      }
    }
  };

  const start = (chain: () => Promise<void>) => {
    running++;
    chain().then(
      () => {
        running--;
        progress();
      },
      (error: unknown) => {
        running--;
        failure ??= { error };
        controller.abort(error);
        progress();
      },
    );
  };

  const seen = new Set<string>();
  let plain = false;
  try {
    start(visibleChain);
    start(hiddenChain);
    start(trailingChain);
    for (;;) {
      const data = queue.shift();
      if (data !== undefined) {
        for (const p of data) {
          if (seen.has(p.id)) continue;
          seen.add(p.id);
          yield p;
        }
        continue;
      }
      if (failure !== undefined) {
        if (failure.error instanceof NotInCreationOrder && parent?.aborted !== true) {
          plain = true;
          break;
        }
        throw failure.error;
      }
      if (running === 0) return;
      await new Promise<void>((resolve) => (wakeConsumer = resolve));
      wakeConsumer = undefined;
    }
  } finally {
    if (!plain) {
      if (!signal.aborted) controller.abort();
      parent?.removeEventListener('abort', onAbort);
    }
  }
  // Out of creation order: one plain read, handing over what the partitions had not.
  try {
    const plainSignal = parent ?? new AbortController().signal;
    for await (const page of source.plain({ signal: plainSignal, readAhead: options.readAhead })) {
      options.onPage?.();
      for (const p of page.data) {
        if (seen.has(p.id)) continue;
        seen.add(p.id);
        yield p;
      }
    }
  } finally {
    parent?.removeEventListener('abort', onAbort);
  }
}
