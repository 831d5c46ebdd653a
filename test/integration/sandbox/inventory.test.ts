import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InventoryItem } from '../../../src/schema/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox();
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

async function product(): Promise<Json> {
  const r = await api.post('/api/v2/products', {
    name: 'Socks',
    price: 500,
    variants: [
      { name: 'A', price: 500, inventory_quantity: 10 },
      { name: 'B', price: 500, inventory_quantity: 1 },
    ],
  });
  return r.body;
}

describe('PATCH /api/v2/inventory_items/{id}', () => {
  it('sets with quantity and adds with delta_quantity; the product shows it', async () => {
    const p = await product();
    const id = p.variants[0].inventory.item_id;
    const set = await api.patch(`/api/v2/inventory_items/${id}`, { quantity: 4 });
    expect(set.status).toBe(200);
    expect(InventoryItem.safeParse(set.body).success).toBe(true);
    expect(set.body.quantity).toBe(4);
    const add = await api.patch(`/api/v2/inventory_items/${id}`, { delta_quantity: -3 });
    expect(add.body.quantity).toBe(1);
    expect(add.body.updated_at > set.body.updated_at).toBe(true);
    const after = await api.get(`/api/v2/products/${p.id}`);
    expect(after.body.variants[0].inventory.quantity).toBe(1);
  });

  it('requires exactly one of quantity / delta_quantity, no other property, no negative result', async () => {
    const p = await product();
    const id = p.variants[1].inventory.item_id;
    const cases: [unknown, string][] = [
      [{}, 'quantity'],
      [{ quantity: 1, delta_quantity: 1 }, 'delta_quantity'],
      [{ quantity: 1, sku: 'x' }, 'sku'],
      [{ quantity: -1 }, 'quantity'],
      [{ quantity: 1.5 }, 'quantity'],
      [{ delta_quantity: -2 }, 'delta_quantity'],
    ];
    for (const [body, param] of cases) {
      const r = await api.patch(`/api/v2/inventory_items/${id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(envelope(r).param, JSON.stringify(body)).toBe(param);
    }
    const item = await api.get(`/api/v2/products/${p.id}`);
    expect(item.body.variants[1].inventory.quantity).toBe(1);
    expect((await api.patch('/api/v2/inventory_items/inv_missing', { quantity: 1 })).status).toBe(404);
  });
});

describe('POST /api/v2/inventory_items/batch_update', () => {
  it('takes a bare array and returns a bare array of items', async () => {
    const p = await product();
    const [a, b] = p.variants.map((v: Json) => v.inventory.item_id);
    const r = await api.post('/api/v2/inventory_items/batch_update', [
      { item_id: a, quantity: 20 },
      { item_id: b, delta_quantity: 4 },
      { item_id: a, delta_quantity: -1 },
    ]);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((i: Json) => [i.item_id, i.quantity])).toEqual([
      [a, 19],
      [b, 5],
      [a, 19],
    ]);
  });

  it('is all-or-nothing: one bad entry changes nothing', async () => {
    const p = await product();
    const [a, b] = p.variants.map((v: Json) => v.inventory.item_id);
    const negative = await api.post('/api/v2/inventory_items/batch_update', [
      { item_id: a, quantity: 99 },
      { item_id: b, delta_quantity: -5 },
    ]);
    expect(negative.status).toBe(400);
    expect(envelope(negative).param).toBe('1.delta_quantity');
    const unknown = await api.post('/api/v2/inventory_items/batch_update', [
      { item_id: a, quantity: 99 },
      { item_id: 'inv_nope', quantity: 1 },
    ]);
    expect(envelope(unknown).param).toBe('1.item_id');
    const extra = await api.post('/api/v2/inventory_items/batch_update', [
      { item_id: a, quantity: 99 },
      { item_id: b, quantity: 1, note: 'x' },
    ]);
    expect(envelope(extra).param).toBe('1.note');
    const notArray = await api.post('/api/v2/inventory_items/batch_update', { item_id: a, quantity: 1 });
    expect(notArray.status).toBe(400);
    const after = await api.get(`/api/v2/products/${p.id}`);
    expect(after.body.variants.map((v: Json) => v.inventory.quantity)).toEqual([10, 1]);
  });
});

describe('GET /api/v2/inventory_items', () => {
  it('lists every visible item and filters by updated_after', async () => {
    const p = await product();
    const all = await api.all('/api/v2/inventory_items');
    const ids = all.map((i: Json) => i.item_id);
    for (const v of p.variants) expect(ids).toContain(v.inventory.item_id);
    const since = new Date(Date.parse(p.updated_at)).toISOString();
    const changed = await api.patch(`/api/v2/inventory_items/${p.variants[1].inventory.item_id}`, {
      quantity: 3,
    });
    const recent = await api.all(`/api/v2/inventory_items?updated_after=${encodeURIComponent(since)}`);
    expect(recent.map((i: Json) => i.item_id)).toEqual([changed.body.item_id]);
    expect(envelope(await api.get('/api/v2/inventory_items?updated_after=yesterday')).param).toBe(
      'updated_after',
    );
  });
});

describe('strict mode', () => {
  it('answers 404 on the endpoints the spec does not show, and serves the rest', async () => {
    const strict = await startSandbox({ strict: true });
    try {
      const s = client(strict);
      const p = await s.post('/api/v2/products', { name: 'P', price: 1, inventory_quantity: 1 });
      expect(p.status).toBe(200);
      const c = await s.post('/api/v2/customers', { name: 'C', phone: '1' });
      for (const r of [
        await s.post('/api/v2/inventory_items/batch_update', [
          { item_id: p.body.inventory.item_id, quantity: 2 },
        ]),
        await s.get('/api/v2/inventory_items'),
        await s.get(`/api/v2/products/${p.body.id}`),
        await s.get(`/api/v2/customers/${c.body.id}`),
      ]) {
        expect(r.status).toBe(404);
        expect(envelope(r).type).toBe('not_found_error');
      }
      const patch = await s.patch(`/api/v2/inventory_items/${p.body.inventory.item_id}`, { quantity: 2 });
      expect(patch.status).toBe(200);
      expect((await s.get('/api/v2/products')).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
