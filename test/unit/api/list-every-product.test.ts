import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mergePartitions, PageIterator } from '../../../src/api/paginate.js';
import { listEveryProduct, type StatusPages } from '../../../src/api/resources/list-every-product.js';
import type { ListEnvelope } from '../../../src/schema/common.js';
import type { Product, ProductStatus } from '../../../src/schema/product.js';
import { mulberry32 } from '../../../src/sandbox/faults.js';

const LIMIT = 10;

/** A PRNG (mulberry32) so that each seed replays the same race. */
const prng = mulberry32;

function racingStore(seed: number, n: number, hiddenShare: number) {
  const random = prng(seed);
  const products = Array.from({ length: n }, (_, i) => ({
    id: `p${i}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    status: (random() < hiddenShare ? 'HIDDEN' : 'VISIBLE') as ProductStatus,
  }));
  const flipped = new Set<number>();
  let requests = 0;
  const wait = async () => {
    for (let k = Math.floor(random() * 6); k > 0; k--) await turn();
  };
  const serve = async (status: ProductStatus | undefined, cursor: string | undefined) => {
    requests++;
    await wait();
    const after = cursor === undefined ? -1 : Number(cursor);
    const data: Product[] = [];
    let i = after + 1;
    for (; i < n && data.length < LIMIT; i++) {
      const p = products[i] as (typeof products)[number];
      if (status === undefined || p.status === status) data.push({ ...p } as unknown as Product);
    }
    let more = false;
    for (let j = i; j < n; j++) if (status === undefined || products[j]?.status === status) more = true;
    // The store moves on as it answers: one product changes status, once.
    const f = Math.floor(random() * n);
    if (!flipped.has(f) && random() < 0.7) {
      flipped.add(f);
      const p = products[f] as (typeof products)[number];
      p.status = p.status === 'VISIBLE' ? 'HIDDEN' : 'VISIBLE';
    }
    await wait();
    const last = data.length > 0 ? Number((data[data.length - 1] as Product).id.slice(1)) : after;
    return {
      object: 'list',
      data,
      has_more: more,
      next_cursor: more ? String(last) : null,
    } as ListEnvelope<Product>;
  };
  const chain = (status: ProductStatus | undefined, onRequest?: (c: string | undefined) => void) =>
    new PageIterator<Product>(async (cursor) => {
      onRequest?.(cursor);
      return serve(status, cursor);
    }, 'GET /products').pages();
  const source: StatusPages = {
    pages: (status, o) => chain(status, o.onRequest),
    page: (status, cursor) => serve(status, cursor),
    plain: () => chain(undefined),
  };
  return { source, chain, n, flipped, requests: () => requests };
}

async function ids(items: AsyncIterable<Product>): Promise<string[]> {
  const out: string[] = [];
  for await (const p of items) out.push(p.id);
  return out;
}

describe('listEveryProduct: the status partitions, as complete as one plain read', () => {
  it('finds every product once while products change status under the read (200 races)', async () => {
    let missedByOnePassEach = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const store = racingStore(seed, 300, seed % 3 === 0 ? 0.5 : 0.1);
      const read = await ids(listEveryProduct(store.source));
      expect(new Set(read).size, `seed ${seed}`).toBe(read.length);
      expect(read.length, `seed ${seed}: ${store.flipped.size} flipped`).toBe(store.n);
      // The same race read as one pass of each partition (listPartitioned) misses some.
      const naive = racingStore(seed, 300, seed % 3 === 0 ? 0.5 : 0.1);
      const once = await ids(
        mergePartitions(
          (['VISIBLE', 'HIDDEN'] as const).map(
            (s) => ({ pages: () => naive.chain(s) }) as unknown as PageIterator<Product>,
          ),
          (p) => p.id,
        ),
      );
      if (once.length < naive.n) missedByOnePassEach++;
    }
    // The races are real: one pass of each partition misses a product in many of them.
    expect(missedByOnePassEach).toBeGreaterThan(20);
  });

  it('reads the store plainly when a partition is not in creation order, handing over each product once', async () => {
    const store = racingStore(7, 120, 0.2);
    const source: StatusPages = {
      ...store.source,
      pages: (status, o) =>
        (async function* () {
          for await (const page of store.source.pages(status, o))
            yield { ...page, data: [...page.data].reverse() };
        })(),
    };
    const read = await ids(listEveryProduct(source));
    expect(new Set(read).size).toBe(read.length);
    expect(read.length).toBe(120);
  });

  it('tells the source once the VISIBLE chain and its pages read again are over (no VISIBLE request after)', async () => {
    const store = racingStore(7, 300, 0.3);
    const log: string[] = [];
    const source: StatusPages = {
      pages: (status, o) =>
        store.source.pages(status, {
          ...o,
          onRequest: (c) => {
            log.push(`page ${status}`);
            o.onRequest?.(c);
          },
        }),
      page: (status, cursor, o) => {
        log.push(`page ${status}`);
        return store.source.page(status, cursor, o);
      },
      plain: (o) => store.source.plain(o),
      leadEnded: () => log.push('lead ended'),
    };
    expect(await ids(listEveryProduct(source))).toHaveLength(300);
    const last = log.lastIndexOf('lead ended');
    expect(last).toBeGreaterThan(-1);
    expect(log.slice(last).filter((e) => e === 'page VISIBLE')).toEqual([]);
  });

  it('stops every chain when the consumer stops early: no request after that', async () => {
    const store = racingStore(3, 300, 0.1);
    for await (const p of listEveryProduct(store.source)) if (p.id === 'p5') break;
    const sent = store.requests();
    for (let k = 0; k < 50; k++) await turn();
    expect(store.requests()).toBe(sent);
  });

  it('raises an error of any chain to the consumer', async () => {
    const store = racingStore(5, 300, 0.1);
    let calls = 0;
    const source: StatusPages = {
      ...store.source,
      page: (status, cursor, o) =>
        ++calls === 2
          ? Promise.reject(new Error('503 from the store'))
          : store.source.page(status, cursor, o),
    };
    await expect(ids(listEveryProduct(source))).rejects.toThrow('503 from the store');
  });
});
