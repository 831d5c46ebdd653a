import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MerchantClient, type RequestOptions } from '../../../src/api/merchant-client.js';
import { PageIterator, peekNextCursor, type PageFetcher } from '../../../src/api/paginate.js';
import { Products } from '../../../src/api/resources/products.js';
import type { ListEnvelope } from '../../../src/schema/index.js';

/** A page of numbers whose raw text ends with `"next_cursor":…` as the spec's envelope does. */
function pageText(data: number[], next: string | null): string {
  return JSON.stringify({ object: 'list', data, has_more: next !== null, next_cursor: next });
}

interface Call {
  cursor: string | undefined;
  resolve: () => void;
}

/**
 * A list of `pages` pages of 2 items whose cursors are `c1`, `c2`…: each fetch hands its raw text
 * over at once and resolves (its "parse") only when the test says so.
 */
function deferredList(pages: number, tail: (k: number) => string | null = (k) => `c${k + 1}`) {
  const calls: Call[] = [];
  const fetcher: PageFetcher<number> = (cursor, onText) =>
    new Promise<ListEnvelope<number>>((resolve) => {
      const k = cursor === undefined ? 0 : Number(cursor.slice(1));
      const next = k + 1 < pages ? `c${k + 1}` : null;
      const data = [2 * k, 2 * k + 1];
      calls.push({
        cursor,
        resolve: () => resolve({ object: 'list', data, has_more: next !== null, next_cursor: next }),
      });
      onText?.(pageText(data, k + 1 < pages ? tail(k) : null));
    });
  return { calls, iterator: new PageIterator(fetcher, 'GET /test') };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe('PageIterator read-ahead', () => {
  it('requests the next page from the raw text, before the page it came from is parsed', async () => {
    const { calls, iterator } = deferredList(3);
    const got: number[] = [];
    const done = (async () => {
      for await (const n of iterator) got.push(n);
    })();
    await ticks();
    // Page 1 is still being parsed, and page 2 is on its way already (its own text asks for 3).
    expect(calls.map((c) => c.cursor)).toEqual([undefined, 'c1', 'c2']);
    expect(got).toEqual([]);
    for (const c of calls) c.resolve();
    await done;
    expect(got).toEqual([0, 1, 2, 3, 4, 5]);
    // No request beyond the last page and none twice.
    expect(calls.map((c) => c.cursor)).toEqual([undefined, 'c1', 'c2']);
  });

  it('a wrong guess costs one spare request and changes nothing', async () => {
    const { calls, iterator } = deferredList(3, (k) => (k === 0 ? 'not-the-cursor' : `c${k + 1}`));
    const got: number[] = [];
    const done = (async () => {
      for await (const n of iterator) got.push(n);
    })();
    for (let round = 0; round < 10; round++) {
      await ticks();
      for (const c of calls) c.resolve();
    }
    await done;
    expect(got).toEqual([0, 1, 2, 3, 4, 5]);
    const cursors = calls.map((c) => c.cursor);
    expect(cursors.filter((c) => c === 'not-the-cursor')).toHaveLength(1);
    expect(cursors.filter((c) => c === 'c1')).toHaveLength(1);
    expect(cursors.filter((c) => c === 'c2')).toHaveLength(1);
  });

  it('a guessed page that fails is never an unhandled rejection, and a real page that fails throws', async () => {
    const seen: (string | undefined)[] = [];
    const fetcher: PageFetcher<number> = async (cursor, onText) => {
      seen.push(cursor);
      if (cursor === 'guess') throw new Error('spare request failed');
      if (cursor === 'c1') throw new Error('page 2 failed');
      onText?.(pageText([1], 'guess'));
      return { object: 'list', data: [1], has_more: true, next_cursor: 'c1' };
    };
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const n of new PageIterator(fetcher, 'GET /test')) got.push(n);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(got).toEqual([1]);
    expect(seen).toContain('guess');
  });

  it('a reader that stops early leaves no chain of guesses reading on', async () => {
    const { calls, iterator } = deferredList(50);
    const first = (async () => {
      for await (const page of iterator.pages()) return page.data;
      return [];
    })();
    for (let round = 0; round < 10; round++) {
      for (const c of calls) c.resolve();
      await ticks();
    }
    expect(await first).toEqual([0, 1]);
    // The first page and the guesses already on their way when it stopped (at most 2), no more.
    expect(calls.length).toBeLessThanOrEqual(3);
  });

  it('the client sends the request its raw-body hook started before it parses that body', async () => {
    const events: string[] = [];
    const client = new MerchantClient({
      baseUrl: 'https://merchant.test',
      token: 'tok_0123456789',
      fetch: (url) => {
        events.push(`sent ${new URL(url).pathname}`);
        return Promise.resolve({ status: 200, headers: { get: () => null }, text: async () => '{}' });
      },
    });
    let second: Promise<unknown> | undefined;
    await client.request({
      method: 'GET',
      path: '/first',
      schema: z.unknown().transform(() => events.push('parsed /first')),
      onText: () => {
        second = client.request({ method: 'GET', path: '/second', schema: z.unknown() });
        return true;
      },
    });
    await second;
    await client.close();
    expect(events).toEqual(['sent /first', 'sent /second', 'parsed /first']);
  });

  it('the client still takes a body hook that answers nothing (written before hooks answered)', async () => {
    const client = new MerchantClient({
      baseUrl: 'https://merchant.test',
      token: 'tok_0123456789',
      fetch: () =>
        Promise.resolve({ status: 200, headers: { get: () => null }, text: async () => '{"a":1}' }),
    });
    const seen: string[] = [];
    const hook: RequestOptions<unknown>['onText'] = (text) => void seen.push(text);
    const parsed = await client.request({ method: 'GET', path: '/x', schema: z.unknown(), onText: hook });
    await client.close();
    expect(parsed).toEqual({ a: 1 });
    expect(seen).toEqual(['{"a":1}']);
  });

  it('peeks a plain cursor at the end of the text, and nothing it cannot read for sure', () => {
    expect(peekNextCursor(pageText([1], 'eyJzIjo0Mzd9'))).toBe('eyJzIjo0Mzd9');
    expect(peekNextCursor(pageText([1], null))).toBeUndefined();
    expect(peekNextCursor('{"object":"list","data":[]}')).toBeUndefined();
    expect(peekNextCursor('{"next_cursor": "a\\"b"}')).toBeUndefined();
    expect(peekNextCursor('{"next_cursor": "spaced" }')).toBe('spaced');
  });

  it('the products list hands its raw body to the iterator (read-ahead is on)', async () => {
    const seen: RequestOptions<unknown>[] = [];
    const client = {
      request: (options: RequestOptions<unknown>) => {
        seen.push(options);
        return Promise.resolve({ object: 'list', data: [], has_more: false, next_cursor: null });
      },
    } as unknown as MerchantClient;
    for await (const _ of new Products(client).list()) void _;
    expect(seen).toHaveLength(1);
    expect(typeof seen[0]?.onText).toBe('function');
  });
});
