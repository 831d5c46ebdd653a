import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox();
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('Idempotency-Key', () => {
  it('replays the first response exactly without acting again', async () => {
    const body = { name: 'Once', price: 100, inventory_quantity: 1 };
    const first = await api.post('/api/v2/products', body, { 'idempotency-key': 'k-1' });
    const second = await api.post('/api/v2/products', body, { 'idempotency-key': 'k-1' });
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const all = await api.all('/api/v2/products');
    expect(all.filter((p) => p.name === 'Once')).toHaveLength(1);
    const log = sb.requestLog().filter((e) => e.idempotency_key === 'k-1');
    expect(log.map((e) => e.outcome)).toEqual(['applied', 'replayed']);
  });

  it('replays an error response too (status and body, same request_id)', async () => {
    const body = { name: 'x', phone: '+1' };
    const first = await api.post('/api/v2/customers', body, { 'idempotency-key': 'k-err' });
    const second = await api.post('/api/v2/customers', body, { 'idempotency-key': 'k-err' });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
    expect(envelope(second).request_id).toBe(envelope(first).request_id);
  });

  it('refuses the same key with a different body: 400 idempotency_key_reused', async () => {
    await api.post('/api/v2/customers', { name: 'A', phone: '1' }, { 'idempotency-key': 'k-2' });
    const r = await api.post('/api/v2/customers', { name: 'B', phone: '1' }, { 'idempotency-key': 'k-2' });
    expect(r.status).toBe(400);
    expect(envelope(r)).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused' });
    const names = (await api.all('/api/v2/customers')).map((c) => c.name);
    expect(names.filter((n) => n === 'B')).toHaveLength(0);
  });

  it('scopes keys by route and token; a replayed delta does not add twice', async () => {
    const p = await api.post('/api/v2/products', { name: 'Scoped', price: 1, inventory_quantity: 5 });
    const item = p.body.inventory.item_id;
    const batch = [{ item_id: item, delta_quantity: 2 }];
    const a = await api.post('/api/v2/inventory_items/batch_update', batch, { 'idempotency-key': 'k-3' });
    const b = await api.post('/api/v2/inventory_items/batch_update', batch, { 'idempotency-key': 'k-3' });
    expect(a.body[0].quantity).toBe(7);
    expect(b.body).toEqual(a.body);
    // Same key on another route is a different operation.
    const c = await api.post('/api/v2/customers', { name: 'K3', phone: '3' }, { 'idempotency-key': 'k-3' });
    expect(c.status).toBe(200);
    const got = await api.get(`/api/v2/products/${p.body.id}`);
    expect(got.body.inventory.quantity).toBe(7);
  });

  it('does not apply to requests without a key', async () => {
    const body = { name: 'Twice', phone: '2' };
    await api.post('/api/v2/customers', body);
    await api.post('/api/v2/customers', body);
    expect((await api.all('/api/v2/customers')).filter((c) => c.name === 'Twice')).toHaveLength(2);
  });
});
