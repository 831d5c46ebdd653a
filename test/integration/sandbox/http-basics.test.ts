import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/schema/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox({ token: 'tok_test' });
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

describe('auth, envelope and request ids', () => {
  it('serves /me to the right bearer token, with an x-request-id', async () => {
    const r = await api.get('/api/v2/me');
    expect(r.status).toBe(200);
    expect(Store.safeParse(r.body).success).toBe(true);
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers 401 authentication_error for a missing or wrong token', async () => {
    const none = await fetch(`${sb.url}/api/v2/me`);
    const noneBody = (await none.json()) as Json;
    expect(none.status).toBe(401);
    expect(noneBody.error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    expect(noneBody.error.request_id).toBe(none.headers.get('x-request-id'));

    const wrong = await client({ url: sb.url, token: 'nope' }).get('/api/v2/products');
    expect(wrong.status).toBe(401);
    expect(envelope(wrong).type).toBe('authentication_error');
    const basic = await api.get('/api/v2/me', { authorization: 'Basic dG9rX3Rlc3Q=' });
    expect(basic.status).toBe(401);
  });

  it('answers 404 not_found_error for unknown routes and ids', async () => {
    for (const path of ['/api/v2/nothing', '/api/v2/orders/ord_1', '/elsewhere', '/__sandbox/nothing']) {
      const r = await api.get(path);
      expect(r.status, path).toBe(404);
      expect(envelope(r).type).toBe('not_found_error');
    }
    expect((await api.get('/api/v2/customers/cus_missing')).status).toBe(404);
    expect((await api.patch('/api/v2/customers/cus_missing', { name: 'x' })).status).toBe(404);
    expect((await api.call('PUT', '/api/v2/me')).status).toBe(404);
  });

  it('answers 404 (not a 500 or a closed socket) for an id with a malformed percent-escape', async () => {
    for (const r of [
      await api.get('/api/v2/customers/%E0%A4%A'),
      await api.patch('/api/v2/products/%E0%A4%A', { name: 'x' }),
      await api.post('/__sandbox/templates/%E0%A4%A/review', { status: 'APPROVED' }),
    ]) {
      expect(r.status).toBe(404);
      expect(envelope(r)).toMatchObject({
        type: 'not_found_error',
        request_id: r.headers.get('x-request-id'),
      });
    }
  });

  it('answers 400 on malformed JSON and on a body that is not an object', async () => {
    const r = await api.post('/api/v2/customers', '{"name": ');
    expect(r.status).toBe(400);
    expect(envelope(r).type).toBe('invalid_request_error');
    const arr = await api.post('/api/v2/customers', [1]);
    expect(arr.status).toBe(400);
  });

  it('makes every request id unique', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await api.get('/api/v2/me')).headers.get('x-request-id') as string);
    expect(ids.size).toBe(20);
  });
});

describe('customers', () => {
  it('creates, reads, updates and lists', async () => {
    const c = await api.post('/api/v2/customers', {
      name: 'Aisyah',
      phone: '60123456789',
      email: 'a@example.com',
    });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ object: 'customer', name: 'Aisyah', phone: '60123456789', address: null });
    const got = await api.get(`/api/v2/customers/${c.body.id}`);
    expect(got.body).toEqual(c.body);
    const up = await api.patch(`/api/v2/customers/${c.body.id}`, { email: null, name: 'Aisyah B' });
    expect(up.body).toMatchObject({
      email: null,
      name: 'Aisyah B',
      phone: '60123456789',
      created_at: c.body.created_at,
    });
    expect(up.body.updated_at > c.body.updated_at).toBe(true);
    const all = await api.all('/api/v2/customers');
    expect(all.find((x) => x.id === c.body.id)).toEqual(up.body);
  });

  it('refuses phones that are not digits only, and bad emails, with param', async () => {
    for (const phone of ['+60123456789', '60 12 345', '0123-456']) {
      const r = await api.post('/api/v2/customers', { name: 'x', phone });
      expect(r.status, phone).toBe(400);
      expect(envelope(r).param).toBe('phone');
    }
    const e = await api.post('/api/v2/customers', { name: 'x', phone: '1', email: 'not-an-email' });
    expect(envelope(e).param).toBe('email');
    const m = await api.post('/api/v2/customers', { name: 'x' });
    expect(envelope(m)).toMatchObject({ param: 'phone', code: 'missing_parameter' });
  });
});
