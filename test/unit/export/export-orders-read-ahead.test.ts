/**
 * Issue 26's order export bench in small, as a correctness test (not timed): a few hundred generated
 * orders read through the real client, pages read ahead, give byte for byte the files of the same
 * export read one page at a time, with one request in flight and every cursor the previous page's.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import type { FetchLike } from '../../../src/api/transport.js';
import { exportOrders, suffixedPath } from '../../../src/export/export-orders.js';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import type { Order } from '../../../src/schema/order.js';

const BASE = 'https://sandbox.test';
const ORDERS = 350;

let dir: string;
let app: SandboxApp;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-read-ahead-'));
  const store = new SandboxStore({
    state: generateStore({ orders: ORDERS, products: 30, customers: 50, seed: 7 }),
  });
  // Jittered latency (1–3 ms): pages answer in varying times, as over a network.
  app = new SandboxApp(store, { latencyMs: 2 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the client asked and when: cursors in order, requests in flight, orders taken by the export then. */
interface Traffic {
  cursors: (string | null)[];
  nextCursors: (string | null)[];
  inFlight: number;
  maxInFlight: number;
  /** Orders the export had taken when each request was sent. */
  takenAtRequest: number[];
}

/** Exports the sandbox's orders through a MerchantClient whose requests go to `app` in process. */
async function exportVia(
  name: string,
  format: 'csv' | 'json',
  readAhead: number | undefined,
): Promise<{ files: Buffer[]; traffic: Traffic }> {
  const traffic: Traffic = { cursors: [], nextCursors: [], inFlight: 0, maxInFlight: 0, takenAtRequest: [] };
  let taken = 0;
  const fetch: FetchLike = async (url, init) => {
    traffic.cursors.push(new URL(url).searchParams.get('cursor'));
    traffic.takenAtRequest.push(taken);
    traffic.inFlight++;
    traffic.maxInFlight = Math.max(traffic.maxInFlight, traffic.inFlight);
    try {
      const res = await app.handle({
        method: init.method,
        url,
        headers: init.headers,
        body: init.body ?? '',
      });
      const body = typeof res.body === 'string' ? res.body : Buffer.from(res.body).toString('utf8');
      if (url.includes('/orders'))
        traffic.nextCursors.push((JSON.parse(body) as { next_cursor: string | null }).next_cursor);
      return {
        status: res.status,
        headers: { get: (n: string) => res.headers[n.toLowerCase()] ?? null },
        text: async () => body,
      };
    } finally {
      traffic.inFlight--;
    }
  };
  const client = new MerchantClient({ baseUrl: BASE, token: app.token, fetch });
  try {
    const me = await client.me();
    traffic.cursors.length = 0;
    traffic.takenAtRequest.length = 0;
    const list = client.orders.list({}, readAhead === undefined ? {} : { readAhead });
    async function* counted(): AsyncGenerator<Order> {
      for await (const order of list) {
        taken++;
        yield order;
      }
    }
    const path = join(dir, `${name}.${format}`);
    const result = await exportOrders({
      orders: counted(),
      store: me,
      path,
      format,
      now: new Date('2026-11-20T00:00:00Z'),
    });
    expect(result.orders).toBe(ORDERS);
    const paths =
      format === 'csv'
        ? [path, suffixedPath(path, '-lines'), suffixedPath(path, '-checks'), suffixedPath(path, '-summary')]
        : [path];
    return { files: await Promise.all(paths.map((p) => readFile(p))), traffic };
  } finally {
    await client.close();
  }
}

describe('order export with pages read ahead (issue 26)', () => {
  it('writes byte for byte the files of the export read page by page', async () => {
    for (const format of ['csv', 'json'] as const) {
      const ahead = await exportVia(`ahead-${format}`, format, undefined);
      const inTurn = await exportVia(`in-turn-${format}`, format, 0);
      expect(ahead.files.length).toBe(inTurn.files.length);
      ahead.files.forEach((file, i) =>
        expect(file.equals(inTurn.files[i] as Buffer), `${format} file ${i}`).toBe(true),
      );
      expect(ahead.files[0]!.length).toBeGreaterThan(10_000);
    }
  });

  it('asks for the next page before the export took the current one, one request at a time, each with the cursor of the page before', async () => {
    const { traffic } = await exportVia('traffic', 'csv', undefined);
    const pages = Math.ceil(ORDERS / 100);
    expect(traffic.cursors).toHaveLength(pages);
    // Cursor order: the first request has none, each next one the previous page's next_cursor.
    expect(traffic.cursors).toEqual([null, ...traffic.nextCursors.slice(0, -1)]);
    expect(traffic.nextCursors.at(-1)).toBeNull();
    expect(traffic.maxInFlight).toBe(1);
    // Read ahead: page k+1 was requested while the export still had orders of page k to take.
    traffic.takenAtRequest.slice(1).forEach((taken, k) => expect(taken).toBeLessThan((k + 1) * 100));
  });
});

describe('order pages validated by the compiled schema', () => {
  it('accept the API’s pages as they are and reject a wrong field naming it', async () => {
    const page = await app.handle({
      method: 'GET',
      url: '/api/v2/orders?limit=100',
      headers: { authorization: `Bearer ${app.token}` },
      body: '',
    });
    const good = JSON.parse(String(page.body)) as { data: Record<string, unknown>[] };
    const bad = structuredClone(good);
    (bad.data[3] as Record<string, unknown>)['total_amount'] = '12.90';
    const serve =
      (body: unknown): FetchLike =>
      async () => ({
        status: 200,
        headers: { get: () => null },
        text: async () => JSON.stringify(body),
      });
    const read = async (body: unknown) => {
      const client = new MerchantClient({ baseUrl: BASE, token: 't', fetch: serve(body) });
      try {
        for await (const p of client.orders.list().pages()) return p.data;
        return [];
      } finally {
        await client.close();
      }
    };
    expect(await read(good)).toEqual(good.data);
    await expect(read(bad)).rejects.toMatchObject({
      name: 'ApiContractError',
      message: expect.stringContaining('data.3.total_amount'),
    });
  });
});
