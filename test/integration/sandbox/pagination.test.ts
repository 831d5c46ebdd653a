import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox({ generate: { products: 130, customers: 55, orders: 40, seed: 3 } });
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('cursor pagination', () => {
  it('defaults to 25, honours limit up to 100, and ends with next_cursor null', async () => {
    const first = await api.get('/api/v2/customers');
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data).toHaveLength(25);
    const big = await api.get('/api/v2/products?limit=100');
    expect(big.body.data).toHaveLength(100);
    expect(big.body.has_more).toBe(true);
    const rest = await api.get(`/api/v2/products?limit=100&cursor=${big.body.next_cursor}`);
    expect(rest.body.data).toHaveLength(30);
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    const exact = await api.get('/api/v2/orders?limit=40');
    expect(exact.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('refuses limits out of 1..100 and malformed cursors with param', async () => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      const r = await api.get(`/api/v2/products?limit=${limit}`);
      expect(r.status, limit).toBe(400);
      expect(envelope(r).param).toBe('limit');
    }
    for (const path of [
      '/api/v2/message_templates',
      '/api/v2/orders',
      '/api/v2/customers',
      '/api/v2/inventory_items',
    ]) {
      expect(envelope(await api.get(`${path}?limit=500`)).param).toBe('limit');
    }
    for (const cursor of ['garbage!', 'eyJ4IjoxfQ', Buffer.from('{"s":-4}').toString('base64url')]) {
      const r = await api.get(`/api/v2/products?cursor=${encodeURIComponent(cursor)}`);
      expect(r.status, cursor).toBe(400);
      expect(envelope(r).param).toBe('cursor');
    }
  });

  it('never skips or repeats an item while items are created during paging', async () => {
    const before = (await api.all('/api/v2/customers')).map((c: Json) => c.id);
    const seen: string[] = [];
    const created: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const r: Json = await api.get(`/api/v2/customers?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...r.body.data.map((c: Json) => c.id));
      cursor = r.body.next_cursor;
      if (page++ < 5) {
        const c = await api.post('/api/v2/customers', { name: `New ${page}`, phone: `6000${page}` });
        created.push(c.body.id);
      }
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...before, ...created]);
  });

  it('keeps paging correct when items are deleted between pages', async () => {
    const first = await api.get('/api/v2/products?limit=10');
    const next = await api.get('/api/v2/products?limit=10&offset=ignored&cursor=' + first.body.next_cursor);
    // Delete the last item of page 1 (the cursor's anchor) and the first of page 2.
    await api.del(`/api/v2/products/${first.body.data[9].id}`);
    await api.del(`/api/v2/products/${next.body.data[0].id}`);
    const again = await api.get(`/api/v2/products?limit=10&cursor=${first.body.next_cursor}`);
    expect(again.body.data.map((p: Json) => p.id)).toEqual([
      ...next.body.data.slice(1).map((p: Json) => p.id),
      expect.any(String),
    ]);
  });
});
