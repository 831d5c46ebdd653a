import { describe, expect, it } from 'vitest';
import { PageIterator } from '../../../src/api/paginate.js';
import type { ListEnvelope } from '../../../src/schema/common.js';

const tick = (ms = 1): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A list of `pages` pages whose cursors are `c1`, `c2`…, answering each request after `delayMs`,
 * recording the cursors asked for, the requests in flight and the pages answered.
 */
function fakeList(pages: number, options: { delayMs?: number; failAt?: number } = {}) {
  const log = { cursors: [] as (string | undefined)[], inFlight: 0, maxInFlight: 0, answered: 0 };
  const fetchPage = async (cursor: string | undefined): Promise<ListEnvelope<number>> => {
    log.cursors.push(cursor);
    log.inFlight++;
    log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
    try {
      await tick(options.delayMs ?? 1);
      const index = cursor === undefined ? 0 : Number(cursor.slice(1));
      if (index === options.failAt) throw new Error(`page ${index} failed`);
      log.answered++;
      const more = index < pages - 1;
      return { object: 'list', data: [index], has_more: more, next_cursor: more ? `c${index + 1}` : null };
    } finally {
      log.inFlight--;
    }
  };
  return { log, fetchPage };
}

describe('PageIterator read-ahead', () => {
  it('requests the next page while the consumer works on the current one: one request in flight, in cursor order', async () => {
    const { log, fetchPage } = fakeList(10);
    const list = new PageIterator(fetchPage, 'GET /test', 3);
    const seen: number[] = [];
    const overlapped: boolean[] = [];
    for await (const page of list.pages()) {
      const index = page.data[0] as number;
      seen.push(index);
      await tick(8); // the consumer's work on this page (writing its rows)
      if (index < 9) overlapped.push(log.cursors.includes(`c${index + 1}`));
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.cursors).toEqual([undefined, 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
    expect(log.maxInFlight).toBe(1);
    expect(overlapped).toEqual(Array(9).fill(true));
  });

  it('has the next request sent before a consumer that holds the thread gets the page', async () => {
    // As undici does for a kept-alive connection, the fake writes each request in the check phase
    // of the event loop (setImmediate) after it is made; the consumer works on each page without
    // yielding (an export making a page's rows). The next page's request must be on its way by
    // then, or the read and the work take turns instead of overlapping.
    const sent: (string | undefined)[] = [];
    const { log, fetchPage } = fakeList(6, { delayMs: 0 });
    const sending = async (cursor: string | undefined): Promise<ListEnvelope<number>> => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sent.push(cursor);
      return fetchPage(cursor);
    };
    const sentBeforeWork: boolean[] = [];
    for await (const page of new PageIterator(sending, 'GET /test', 1).pages()) {
      const index = page.data[0] as number;
      if (index < 5) sentBeforeWork.push(sent.includes(`c${index + 1}`));
      const until = performance.now() + 2;
      while (performance.now() < until); // the consumer's work, holding the thread
    }
    expect(sentBeforeWork).toEqual(Array(5).fill(true));
    expect(log.cursors).toEqual([undefined, 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(log.maxInFlight).toBe(1);
  });

  it('without read-ahead, the next page is requested only when the consumer asks for it', async () => {
    const { log, fetchPage } = fakeList(4);
    const overlapped: boolean[] = [];
    for await (const page of new PageIterator(fetchPage, 'GET /test').pages()) {
      await tick(5);
      overlapped.push(log.cursors.length > (page.data[0] as number) + 1);
    }
    expect(overlapped).toEqual([false, false, false, false]);
  });

  it('holds at most `readAhead` pages fetched and not yet taken, however slow the consumer', async () => {
    const { log, fetchPage } = fakeList(12, { delayMs: 0 });
    let taken = 0;
    let mostWaiting = 0;
    for await (const _page of new PageIterator(fetchPage, 'GET /test', 2).pages()) {
      taken++;
      await tick(6);
      mostWaiting = Math.max(mostWaiting, log.answered - taken);
    }
    expect(taken).toBe(12);
    expect(mostWaiting).toBe(2);
  });

  it('raises a failed page after the pages before it, and requests nothing after it', async () => {
    const { log, fetchPage } = fakeList(10, { failAt: 3 });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of new PageIterator(fetchPage, 'GET /test', 4).pages()) {
          seen.push(page.data[0] as number);
          await tick(3);
        }
      })(),
    ).rejects.toThrow('page 3 failed');
    expect(seen).toEqual([0, 1, 2]);
    expect(log.cursors).toEqual([undefined, 'c1', 'c2', 'c3']);
  });

  it('keeps the cursor checks: has_more with no next_cursor fails after that page', async () => {
    const pages: ListEnvelope<number>[] = [
      { object: 'list', data: [0], has_more: true, next_cursor: 'c1' },
      { object: 'list', data: [1], has_more: true, next_cursor: null },
    ];
    const seen: number[] = [];
    const list = new PageIterator(async (cursor) => pages[cursor === undefined ? 0 : 1]!, 'GET /test', 3);
    await expect(
      (async () => {
        for await (const item of list) seen.push(item);
      })(),
    ).rejects.toThrow(/next_cursor/);
    expect(seen).toEqual([0, 1]);
  });

  it('a consumer that stops early leaves no request running and none starts after', async () => {
    const { log, fetchPage } = fakeList(20, { delayMs: 2 });
    for await (const page of new PageIterator(fetchPage, 'GET /test', 3).pages()) {
      if (page.data[0] === 1) break;
      await tick(4);
    }
    expect(log.inFlight).toBe(0);
    const requested = log.cursors.length;
    expect(requested).toBeLessThanOrEqual(2 + 3);
    await tick(20);
    expect(log.cursors.length).toBe(requested);
  });
});
