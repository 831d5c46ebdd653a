import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiContractError,
  ApiError,
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitError,
} from '../../../src/api/errors.js';
import { MerchantClient, type MerchantClientOptions } from '../../../src/api/merchant-client.js';
import { ListCapExceededError } from '../../../src/api/paginate.js';
import { globalFetchLike } from '../../../src/api/transport.js';
import { UsageError } from '../../../src/errors/usage-error.js';
import { BASE, TOKEN, customer, errorBody, inventoryItem, product, store } from './fixtures.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const logs: string[] = [];
const clients: MerchantClient[] = [];
function client(options: Partial<MerchantClientOptions> = {}): MerchantClient {
  const c = new MerchantClient({
    baseUrl: BASE,
    token: TOKEN,
    fetch: globalFetchLike,
    maxRetries: 3,
    retryDelay: { initialDelayMs: 1, maxDelayMs: 5 },
    logger: (line) => logs.push(line),
    ...options,
  });
  clients.push(c);
  return c;
}
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

function json(body: unknown, status = 200, headers: Record<string, string> = {}) {
  const requestId = (body as { error?: { request_id?: string } }).error?.request_id ?? 'req_ok';
  return HttpResponse.json(body as Record<string, unknown>, {
    status,
    headers: { 'x-request-id': requestId, ...headers },
  });
}

/** Every message of an error and its causes. */
function allText(error: unknown): string {
  const parts: string[] = [];
  let cur: unknown = error;
  while (cur instanceof Error) {
    parts.push(cur.message, String(cur.stack));
    cur = cur.cause;
  }
  return parts.join('\n');
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('MerchantClient against real-shaped responses (msw)', () => {
  it('sends the bearer token and parses the store, tolerating extra fields', async () => {
    let auth: string | null = null;
    server.use(
      http.get(`${BASE}/api/v2/me`, ({ request }) => {
        auth = request.headers.get('authorization');
        return json(store);
      }),
    );
    const me = await client().me();
    expect(auth).toBe(`Bearer ${TOKEN}`);
    expect(me.name).toBe('Kopi Corner');
    expect(me.currency).toBe('SGD');
  });

  it('401: AuthenticationError, exit code 4, names the request id, never the token', async () => {
    server.use(
      http.get(`${BASE}/api/v2/me`, () =>
        json(errorBody('authentication_error', 'invalid_token', `Invalid token ${TOKEN}`, 'req_401'), 401),
      ),
    );
    logs.length = 0;
    const error = await failure(client().me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(ApiError);
    const e = error as AuthenticationError;
    expect(e.status).toBe(401);
    expect(e.exitCode).toBe(4);
    expect(e.requestId).toBe('req_401');
    expect(e.code).toBe('invalid_token');
    expect(e.message).toContain('req_401');
    expect(allText(e)).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.length).toBeGreaterThan(0);
  });

  it('404: NotFoundError, not retried', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v2/customers/cus_x`, () => {
        calls++;
        return json(
          errorBody('not_found_error', 'resource_missing', 'No such customer: cus_x', 'req_404'),
          404,
        );
      }),
    );
    const error = await failure(client().customers.get('cus_x'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).exitCode).toBe(1);
    expect(error.message).toContain('req_404');
    expect(calls).toBe(1);
  });

  it('400 with param: InvalidRequestError carrying the dotted path', async () => {
    server.use(
      http.patch(`${BASE}/api/v2/products/prod_1`, () =>
        json(
          errorBody(
            'invalid_request_error',
            'invalid_parameter',
            'must be >= 0',
            'req_400',
            'variants.1.price',
          ),
          400,
        ),
      ),
    );
    const error = await failure(client().products.update('prod_1', { variants: [] }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    const e = error as InvalidRequestError;
    expect(e.param).toBe('variants.1.price');
    expect(e.message).toContain('variants.1.price');
    expect(e.message).toContain('req_400');
  });

  it('429 with Retry-After: waits as told (for every sender), then succeeds', async () => {
    let calls = 0;
    const times: number[] = [];
    server.use(
      http.get(`${BASE}/api/v2/me`, () => {
        times.push(Date.now());
        calls++;
        if (calls === 1) {
          return json(errorBody('rate_limit_error', 'rate_limited', 'Too many requests', 'req_429'), 429, {
            'retry-after': '1',
          });
        }
        return json(store);
      }),
    );
    // Cap Retry-After at 150 ms to keep the test fast; the wait still comes from the header.
    const c = client({ retryAfterCapMs: 150, retryDelay: { initialDelayMs: 1, maxDelayMs: 1 } });
    const me = await c.me();
    expect(me.id).toBe('st_1');
    expect(calls).toBe(2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(140);
    expect(c.progress().rateLimited).toBe(1);
    expect(c.progress().retries).toBe(1);
  });

  it('429 without Retry-After: backs off, and gives up with RateLimitError after the budget', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v2/me`, () => {
        calls++;
        return json(
          errorBody('rate_limit_error', 'rate_limited', 'Too many requests', `req_429_${calls}`),
          429,
        );
      }),
    );
    const error = await failure(client({ maxRetries: 2 }).me());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(calls).toBe(3);
    expect(error.message).toContain('req_429_3');
  });

  it('429 on a POST without key is retried (the server refused before acting)', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/api/v2/customers`, () => {
        calls++;
        if (calls === 1) return json(errorBody('rate_limit_error', 'rate_limited', 'slow down', 'r1'), 429);
        return json(customer(1));
      }),
    );
    const c = await client().customers.create({ name: 'A', phone: '6580000001' }, { idempotencyKey: false });
    expect(c.id).toBe('cus_1');
    expect(calls).toBe(2);
  });

  it('500: a GET is retried until it succeeds', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v2/me`, () => {
        calls++;
        if (calls < 3) return json(errorBody('api_error', 'internal_error', 'boom', `req_500_${calls}`), 500);
        return json(store);
      }),
    );
    await expect(client().me()).resolves.toMatchObject({ id: 'st_1' });
    expect(calls).toBe(3);
  });

  it('500: a keyed POST is retried with the same Idempotency-Key', async () => {
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/api/v2/products`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        if (keys.length === 1) return json(errorBody('api_error', 'internal_error', 'boom', 'req_500'), 500);
        return json(product(1, 'VISIBLE'));
      }),
    );
    await client().products.create({ name: 'Mug', price: 100 }, { idempotencyKey: 'plan1-op7' });
    expect(keys).toEqual(['plan1-op7', 'plan1-op7']);
  });

  it('500: a POST without key is not repeated: OutcomeUnknownError', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/api/v2/customers`, () => {
        calls++;
        return json(errorBody('api_error', 'internal_error', 'boom', 'req_500x'), 500);
      }),
    );
    const error = await failure(
      client().customers.create({ name: 'A', phone: '65' }, { idempotencyKey: false }),
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(InternalServerError);
    expect((error as OutcomeUnknownError).requestId).toBe('req_500x');
    expect(error.message).toContain('req_500x');
    expect(calls).toBe(1);
  });

  it('500 after the retry budget: InternalServerError', async () => {
    server.use(
      http.get(`${BASE}/api/v2/me`, () =>
        json(errorBody('api_error', 'internal_error', 'boom', 'req_5'), 500),
      ),
    );
    const error = await failure(client({ maxRetries: 1 }).me());
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
  });

  it('dropped connection: an absolute PATCH is retried', async () => {
    let calls = 0;
    server.use(
      http.patch(`${BASE}/api/v2/inventory_items/it_1`, () => {
        calls++;
        if (calls === 1) return HttpResponse.error();
        return json(inventoryItem('it_1', 5));
      }),
    );
    const item = await client().inventory.update('it_1', { quantity: 5 });
    expect(item.quantity).toBe(5);
    expect(calls).toBe(2);
  });

  it('dropped connection: a delta PATCH is never repeated (OutcomeUnknownError)', async () => {
    let calls = 0;
    server.use(
      http.patch(`${BASE}/api/v2/inventory_items/it_1`, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const error = await failure(client().inventory.update('it_1', { delta_quantity: 2 }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain('PATCH /api/v2/inventory_items/it_1');
    expect(calls).toBe(1);
  });

  it('dropped connection: a product PATCH that creates a variant is never repeated', async () => {
    // The variants list is replaced: an entry without id creates a variant, so a replay of an
    // applied PATCH would create a duplicate.
    let calls = 0;
    server.use(
      http.patch(`${BASE}/api/v2/products/prod_1`, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const error = await failure(
      client().products.update('prod_1', {
        variants: [
          { id: 'var_1', name: 'S', price: 100 },
          { name: 'M', price: 100 },
        ],
      }),
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(calls).toBe(1);
  });

  it('DELETE whose answer was lost: a 404 on the retry means it was deleted', async () => {
    let calls = 0;
    server.use(
      http.delete(`${BASE}/api/v2/products/prod_1`, () => {
        calls++;
        if (calls === 1) return HttpResponse.error();
        return json(
          errorBody('not_found_error', 'resource_missing', 'no product with id prod_1', 'req_gone'),
          404,
        );
      }),
    );
    await expect(client().products.delete('prod_1')).resolves.toEqual({
      id: 'prod_1',
      object: 'product',
      deleted: true,
    });
    expect(calls).toBe(2);
  });

  it('DELETE of a product that never existed: NotFoundError', async () => {
    server.use(
      http.delete(`${BASE}/api/v2/products/prod_2`, () =>
        json(errorBody('not_found_error', 'resource_missing', 'no product with id prod_2', 'req_nf'), 404),
      ),
    );
    await expect(client().products.delete('prod_2')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('dropped connection on every attempt: ConnectionError with exit code 4 and no status', async () => {
    server.use(http.get(`${BASE}/api/v2/me`, () => HttpResponse.error()));
    const error = await failure(client({ maxRetries: 2 }).me());
    expect(error).toBeInstanceOf(ConnectionError);
    const e = error as ConnectionError;
    expect(e.exitCode).toBe(4);
    expect(e.status).toBeUndefined();
    expect(allText(e)).not.toContain(TOKEN);
  });

  it('malformed JSON in a 2xx: ApiContractError', async () => {
    server.use(
      http.get(
        `${BASE}/api/v2/me`,
        () =>
          new HttpResponse('{"id": "st_1", "object": "sto', {
            status: 200,
            headers: { 'content-type': 'application/json', 'x-request-id': 'req_bad' },
          }),
      ),
    );
    const error = await failure(client().me());
    expect(error).toBeInstanceOf(ApiContractError);
    expect(error.message).toContain('malformed JSON');
    expect(error.message).toContain('req_bad');
  });

  it('malformed JSON in an error: the status still picks the class', async () => {
    server.use(
      http.get(
        `${BASE}/api/v2/customers/c1`,
        () =>
          new HttpResponse('<html>Not Found</html>', {
            status: 404,
            headers: { 'x-request-id': 'req_html' },
          }),
      ),
    );
    const error = await failure(client().customers.get('c1'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).requestId).toBe('req_html');
  });

  it('a 2xx body missing a required field: ApiContractError naming the field', async () => {
    const { currency: _omit, ...broken } = store;
    server.use(http.get(`${BASE}/api/v2/me`, () => json(broken)));
    const error = await failure(client().me());
    expect(error).toBeInstanceOf(ApiContractError);
    expect((error as ApiContractError).path).toBe('currency');
    expect(error.message).toContain('currency');
  });

  it('names the nested path of a bad field in a list page', async () => {
    const bad = { ...customer(2), created_at: 'yesterday' };
    server.use(
      http.get(`${BASE}/api/v2/customers`, () =>
        json({ object: 'list', data: [customer(1), bad], has_more: false, next_cursor: null }),
      ),
    );
    const error = await failure(client().customers.list().toArray({ max: 10 }));
    expect((error as ApiContractError).path).toBe('data.1.created_at');
  });

  it('verbose logging shows method, path, status and request id, never the token', async () => {
    server.use(http.get(`${BASE}/api/v2/me`, () => json(store)));
    logs.length = 0;
    await client().me();
    expect(logs.join('\n')).toMatch(/GET \/api\/v2\/me/);
    expect(logs.join('\n')).toContain('req_ok');
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('refuses a malformed base URL at once instead of retrying it as a connection failure', () => {
    for (const baseUrl of ['localhost:4010', 'api.example.com/api/v2', 'ftp://x.test', '']) {
      expect(() => client({ baseUrl }), baseUrl).toThrow(/baseUrl must be an absolute http/);
    }
    expect(client({ baseUrl: 'http://127.0.0.1:4010/api/v2/' }).baseUrl).toBe('http://127.0.0.1:4010');
  });

  it('refuses plain http to a host other than this machine before any request, as the CLI does (exit 2)', () => {
    // The fetch counts: nothing may be sent, not even a first request with the token in clear.
    let requests = 0;
    const counting: MerchantClientOptions['fetch'] = () => {
      requests += 1;
      return Promise.reject(new Error('no request expected'));
    };
    let refusal: unknown;
    try {
      new MerchantClient({ baseUrl: 'http://example.com', token: TOKEN, fetch: counting });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as UsageError).exitCode).toBe(2);
    expect((refusal as UsageError).message).toBe(
      'refusing plain http:// to example.com: the API token would travel unencrypted. Use https://, or --insecure-http if you really mean it.',
    );
    expect((refusal as UsageError).message).not.toContain(TOKEN);
    expect(requests).toBe(0);
    // Loopback stays allowed, and a caller who means it says so.
    for (const baseUrl of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010'])
      expect(client({ baseUrl }).baseUrl, baseUrl).toBe(baseUrl);
    expect(client({ baseUrl: 'http://example.com', insecureHttp: true }).baseUrl).toBe('http://example.com');
  });

  it('printing the client itself (console.log, util.inspect, a crash dump) never shows the token', () => {
    const c = client();
    expect(inspect(c, { depth: 4 })).not.toContain(TOKEN);
    expect(inspect(c, { depth: 4, showHidden: true })).not.toContain(TOKEN);
    expect(Object.values(c)).not.toContain(TOKEN);
  });
});

describe('pagination', () => {
  it('walks every page with limit=100 and an opaque cursor', async () => {
    const all = Array.from({ length: 250 }, (_, i) => customer(i));
    const queries: string[] = [];
    server.use(
      http.get(`${BASE}/api/v2/customers`, ({ request }) => {
        const url = new URL(request.url);
        queries.push(url.search);
        const start = Number(
          url.searchParams.get('cursor') ? atob(url.searchParams.get('cursor') as string) : 0,
        );
        const limit = Number(url.searchParams.get('limit'));
        const data = all.slice(start, start + limit);
        const next = start + limit < all.length ? btoa(String(start + limit)) : null;
        return json({ object: 'list', data, has_more: next !== null, next_cursor: next });
      }),
    );
    const got = await client().customers.list().toArray({ max: 1000 });
    expect(got.map((c) => c.id)).toEqual(all.map((c) => c.id));
    expect(queries).toHaveLength(3);
    expect(queries.every((q) => q.includes('limit=100'))).toBe(true);
    const error = await failure(client().customers.list().toArray({ max: 200 }));
    expect(error).toBeInstanceOf(ListCapExceededError);
  });

  it('refuses a cursor loop instead of spinning', async () => {
    server.use(
      http.get(`${BASE}/api/v2/customers`, () =>
        json({ object: 'list', data: [customer(1)], has_more: true, next_cursor: 'same' }),
      ),
    );
    const error = await failure(client().customers.list().toArray({ max: 100 }));
    expect(error).toBeInstanceOf(ApiContractError);
  });

  it('a partitioned read of products by status equals the plain read', async () => {
    const all = Array.from({ length: 230 }, (_, i) => product(i, i % 3 === 0 ? 'HIDDEN' : 'VISIBLE'));
    server.use(
      http.get(`${BASE}/api/v2/products`, ({ request }) => {
        const url = new URL(request.url);
        const status = url.searchParams.get('status');
        const rows = status ? all.filter((p) => p.status === status) : all;
        const start = Number(url.searchParams.get('cursor') ?? 0);
        const data = rows.slice(start, start + 100);
        const more = start + 100 < rows.length;
        return json({ object: 'list', data, has_more: more, next_cursor: more ? String(start + 100) : null });
      }),
    );
    const c = client();
    const plain = (await c.products.list().toArray({ max: 1000 })).map((p) => p.id).sort();
    const parts: string[] = [];
    for await (const p of c.products.listPartitioned()) parts.push(p.id);
    expect(parts.sort()).toEqual(plain);
    expect(plain).toHaveLength(230);
  });

  it('a partitioned read leads with VISIBLE: HIDDEN pages go on what it leaves (one in five)', async () => {
    const all = Array.from({ length: 1800 }, (_, i) => product(i, i % 6 === 0 ? 'HIDDEN' : 'VISIBLE'));
    const sent: string[] = [];
    server.use(
      http.get(`${BASE}/api/v2/products`, ({ request }) => {
        const url = new URL(request.url);
        const status = url.searchParams.get('status') ?? '';
        sent.push(status);
        const rows = all.filter((p) => p.status === status);
        const start = Number(url.searchParams.get('cursor') ?? 0);
        const more = start + 100 < rows.length;
        const data = rows.slice(start, start + 100);
        return json({ object: 'list', data, has_more: more, next_cursor: more ? String(start + 100) : null });
      }),
    );
    const ids: string[] = [];
    for await (const p of client().products.listPartitioned()) ids.push(p.id);
    expect(ids.sort()).toEqual(all.map((p) => p.id).sort());
    // 15 VISIBLE pages, 3 HIDDEN: while VISIBLE goes, at most one HIDDEN page per four of its own.
    expect(sent.filter((s) => s === 'HIDDEN')).toHaveLength(3);
    const lastVisible = sent.lastIndexOf('VISIBLE');
    sent.slice(0, lastVisible + 1).forEach((_, i) => {
      const before = sent.slice(0, i + 1);
      const visible = before.filter((s) => s === 'VISIBLE').length;
      expect(before.length - visible).toBeLessThanOrEqual(1 + Math.floor(visible / 4));
    });
  });
});

describe('inventory batch update', () => {
  it('uses the batch route with one key, bare array in and out', async () => {
    const bodies: unknown[] = [];
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/api/v2/inventory_items/batch_update`, async ({ request }) => {
        const body = (await request.json()) as { item_id: string; quantity: number }[];
        bodies.push(body);
        keys.push(request.headers.get('idempotency-key'));
        return json(body.map((e) => inventoryItem(e.item_id, e.quantity)));
      }),
    );
    const result = await client().inventory.batchUpdate(
      [
        { item_id: 'a', quantity: 1 },
        { item_id: 'b', quantity: 2 },
        { item_id: 'c', quantity: 3 },
      ],
      { idempotencyKey: 'k', chunkSize: 2 },
    );
    expect(result.mode).toBe('batch');
    expect(result.results.map((r) => r.ok && r.item.quantity)).toEqual([1, 2, 3]);
    expect(bodies).toEqual([
      [
        { item_id: 'a', quantity: 1 },
        { item_id: 'b', quantity: 2 },
      ],
      [{ item_id: 'c', quantity: 3 }],
    ]);
    expect(keys).toEqual(['k.0', 'k.1']);
  });

  it('falls back to per-item PATCH when the route answers 404, says so once, and never repeats a delta', async () => {
    let batchCalls = 0;
    const patched: string[] = [];
    server.use(
      http.post(`${BASE}/api/v2/inventory_items/batch_update`, () => {
        batchCalls++;
        return json(errorBody('not_found_error', 'resource_missing', 'No such route', 'req_route'), 404);
      }),
      http.patch(`${BASE}/api/v2/inventory_items/:id`, async ({ params, request }) => {
        const id = String(params['id']);
        patched.push(id);
        if (id === 'd') return HttpResponse.error();
        const body = (await request.json()) as { quantity?: number; delta_quantity?: number };
        return json(inventoryItem(id, body.quantity ?? 10 + (body.delta_quantity ?? 0)));
      }),
    );
    const warnings: string[] = [];
    const c = client({ onWarning: (w) => warnings.push(w) });
    const first = await c.inventory.batchUpdate([
      { item_id: 'a', quantity: 4 },
      { item_id: 'd', delta_quantity: 1 },
    ]);
    expect(first.mode).toBe('per-item');
    expect(first.results.map((r) => r.entry.item_id)).toEqual(['a', 'd']);
    expect(first.results[0]).toMatchObject({ ok: true, item: { quantity: 4 } });
    expect(first.results[1]?.ok).toBe(false);
    expect(first.results[1]?.ok === false && first.results[1].error).toBeInstanceOf(OutcomeUnknownError);
    expect(patched.filter((id) => id === 'd')).toHaveLength(1);
    const second = await c.inventory.batchUpdate([{ item_id: 'b', delta_quantity: -1 }]);
    expect(second.results[0]).toMatchObject({ ok: true, item: { quantity: 9 } });
    expect(batchCalls).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('404');
  });

  it('a 400 from the batch route fails that chunk only (nothing of it applied)', async () => {
    server.use(
      http.post(`${BASE}/api/v2/inventory_items/batch_update`, () =>
        json(errorBody('invalid_request_error', 'invalid_parameter', 'bad', 'req_b', '0.quantity'), 400),
      ),
    );
    const result = await client().inventory.batchUpdate([{ item_id: 'a', quantity: 1 }]);
    expect(result.mode).toBe('batch');
    expect(result.results[0]?.ok === false && result.results[0].error).toBeInstanceOf(InvalidRequestError);
  });
});

describe('paths the spec leaves open', () => {
  it('are configurable', async () => {
    server.use(
      http.post(`${BASE}/api/v2/catalog/products`, () => json(product(9, 'HIDDEN'))),
      http.get(`${BASE}/api/v2/catalog/products/p%2F9`, () => json(product(9, 'HIDDEN'))),
    );
    const c = client({
      paths: { productCreate: '/api/v2/catalog/products', productGet: '/api/v2/catalog/products/{id}' },
    });
    await expect(c.products.create({ name: 'x', price: 1 })).resolves.toMatchObject({ id: 'prod_9' });
    await expect(c.products.get('p/9')).resolves.toMatchObject({ id: 'prod_9' });
  });
});
