import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxHandlers } from '../../../src/sandbox/msw-handlers.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import type { Json } from '../../integration/sandbox/sandbox-client.js';

const BASE = 'https://merchant.test';
const store = new SandboxStore();
const server = setupServer(...createSandboxHandlers(store, { baseUrl: BASE, token: 'msw-token' }));
const auth = { authorization: 'Bearer msw-token', 'content-type': 'application/json' };

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('msw handlers', () => {
  it('serves the same rules as the HTTP sandbox', async () => {
    const created = await fetch(`${BASE}/api/v2/products`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'M', price: 1, images: ['https://x.example/a.png'] }),
    });
    expect(created.status).toBe(200);
    const p = (await created.json()) as Json;
    expect(p.images[0]).toMatch(/^http:\/\/sandbox\.local\/__sandbox\/images\/[0-9a-f]+\.png$/);
    expect(store.counts().products).toBe(1);
    const list = await fetch(`${BASE}/api/v2/products`, { headers: auth });
    expect(((await list.json()) as Json).data).toHaveLength(1);
    const denied = await fetch(`${BASE}/api/v2/me`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as Json).error.request_id).toBe(denied.headers.get('x-request-id'));
  });

  it('emulates a dropped connection as a network error', async () => {
    const dropping = setupServer(
      ...createSandboxHandlers(new SandboxStore(), { baseUrl: 'https://drop.test', token: 't', dropRate: 1 }),
    );
    server.close();
    dropping.listen();
    try {
      await expect(
        fetch('https://drop.test/api/v2/me', { headers: { authorization: 'Bearer t' } }),
      ).rejects.toThrow();
    } finally {
      dropping.close();
      server.listen({ onUnhandledRequest: 'error' });
    }
  });
});
