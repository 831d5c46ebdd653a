import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox({ generate: { products: 10, customers: 10, orders: 60, seed: 7 } });
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('orders', () => {
  it('lists the seeded orders and filters by each status field', async () => {
    const all = await api.all('/api/v2/orders');
    expect(all).toHaveLength(60);
    for (const field of ['order_status', 'payment_status', 'fulfillment_status']) {
      const value = all[0][field] as string;
      const filtered = await api.all(`/api/v2/orders?${field}=${value}`);
      expect(filtered.length).toBe(all.filter((o: Json) => o[field] === value).length);
      expect(filtered.every((o: Json) => o[field] === value)).toBe(true);
      expect(envelope(await api.get(`/api/v2/orders?${field}=bogus`)).param).toBe(field);
    }
    const both = await api.all(
      `/api/v2/orders?order_status=${all[0].order_status}&payment_status=${all[0].payment_status}`,
    );
    expect(both.length).toBe(
      all.filter(
        (o: Json) => o.order_status === all[0].order_status && o.payment_status === all[0].payment_status,
      ).length,
    );
  });

  it('is read only over the API', async () => {
    expect((await api.post('/api/v2/orders', {})).status).toBe(404);
  });

  it('adds and updates orders through the admin route; updated_at advances', async () => {
    const [first] = await api.all('/api/v2/orders');
    const upd = await fetch(`${sb.url}/__sandbox/orders`, {
      method: 'POST',
      body: JSON.stringify({ id: first.id, order_status: 'cancelled' }),
    });
    expect(upd.status).toBe(200);
    const [changed] = (await upd.json()) as Json[];
    expect(changed).toMatchObject({ id: first.id, order_status: 'cancelled', created_at: first.created_at });
    expect(changed.updated_at > first.updated_at).toBe(true);

    const fresh = { ...first, id: 'ord_new_1', number: '999999' };
    const add = await fetch(`${sb.url}/__sandbox/orders`, { method: 'POST', body: JSON.stringify([fresh]) });
    expect(add.status).toBe(200);
    const all = await api.all('/api/v2/orders');
    expect(all).toHaveLength(61);
    expect(all[all.length - 1].id).toBe('ord_new_1');
    expect(all.find((o: Json) => o.id === first.id).order_status).toBe('cancelled');

    const bad = await fetch(`${sb.url}/__sandbox/orders`, {
      method: 'POST',
      body: JSON.stringify({ id: 'ord_incomplete' }),
    });
    expect(bad.status).toBe(400);
  });
});
