import type { ListEnvelope } from '../schema/index.js';
import { ApiContractError } from './errors.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { readAhead } from './read-ahead.js';

/** Every list request asks for the maximum page size: the request count is ceil(N / 100). */
export const PAGE_LIMIT = 100;

/** Fetches one page; `cursor` is undefined for the first page and opaque otherwise. */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<ListEnvelope<T>>;

/** More items than the caller's explicit cap. */
export class ListCapExceededError extends MbulkError {
  static override readonly errorName: string = 'ListCapExceededError';
  constructor(
    readonly what: string,
    readonly max: number,
  ) {
    super(
      'failed',
      `${what}: more than ${max} items; raise the cap or stream the list instead of collecting it`,
    );
  }
}

/**
 * A cursor-paginated list: `for await (const item of list)` walks every item, `pages()` every page.
 * Nothing is fetched until iteration starts; each iteration starts again from the first page.
 *
 * With `readAhead` N > 0, the next page is requested as soon as the page before it arrived, while
 * the consumer is still at work on earlier pages, and up to N pages wait fetched (see readAhead):
 * still one request in flight, in cursor order, the same pages in the same order.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: PageFetcher<T>,
    /** `GET /path`, for error messages. */
    readonly label: string,
    /** Pages fetched ahead of the consumer (0: each page is requested when the consumer asks for it). */
    readonly readAhead = 0,
  ) {}

  pages(): AsyncGenerator<ListEnvelope<T>, void, undefined> {
    return this.readAhead > 0 ? readAhead(this.pagesInTurn(), this.readAhead) : this.pagesInTurn();
  }

  /** Each page requested when the consumer asks for the next one. */
  private async *pagesInTurn(): AsyncGenerator<ListEnvelope<T>, void, undefined> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more) return;
      if (page.next_cursor === null) {
        throw new ApiContractError(this.label, 'next_cursor', 'has_more is true but next_cursor is null');
      }
      if (seen.has(page.next_cursor)) {
        throw new ApiContractError(this.label, 'next_cursor', 'the same cursor came back twice (a loop)');
      }
      seen.add(page.next_cursor);
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects every item; throws ListCapExceededError when there are more than `max`. */
  toArray(options: { max: number }): Promise<T[]> {
    return listAll(this, { ...options, what: this.label });
  }
}

/** Collects an async iterable with an explicit cap (no silent unbounded arrays). */
export async function listAll<T>(
  items: AsyncIterable<T>,
  options: { max: number; what?: string },
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    if (out.length >= options.max) throw new ListCapExceededError(options.what ?? 'list', options.max);
    out.push(item);
  }
  return out;
}

/**
 * Reads several partitions of one list (e.g. products by each status) in parallel and yields every
 * item once. Each partition is walked page by page; the partitions overlap in time, so wall time is
 * that of the largest partition. The client's shared rate controller still bounds the total load.
 *
 * An item that moves between partitions while they are read (a status change) could appear twice:
 * `key` de-duplicates. Partitions must cover every value of the filter for the result to equal a
 * plain read.
 */
export async function* mergePartitions<T>(
  partitions: readonly PageIterator<T>[],
  key: (item: T) => string,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  const cursors = partitions.map((p) => p.pages());
  type Next = { index: number; result: IteratorResult<ListEnvelope<T>, void> };
  const pending = new Map<number, Promise<Next>>();
  const pull = (index: number) => {
    const it = cursors[index];
    if (it !== undefined)
      pending.set(
        index,
        it.next().then((result) => ({ index, result })),
      );
  };
  cursors.forEach((_, i) => pull(i));
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      pending.delete(index);
      if (result.done) continue;
      pull(index);
      for (const item of result.value.data) {
        const k = key(item);
        if (seen.has(k)) continue;
        seen.add(k);
        yield item;
      }
    }
  } finally {
    // Stop the other partitions when the consumer stops early or one partition failed.
    await Promise.allSettled(cursors.map((c) => c.return(undefined)));
  }
}
