import { describe, expect, it } from 'vitest';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

const page = (app: SandboxApp) =>
  app.handle({
    method: 'GET',
    url: '/api/v2/products?limit=100',
    headers: { authorization: `Bearer ${app.token}` },
    body: '',
  });

describe('a read answered within its latency', () => {
  it('comes already encoded to bytes, the same JSON as without latency', async () => {
    const state = generateStore({ products: 120, customers: 0, orders: 0, seed: 3 });
    const quick = await page(new SandboxApp(new SandboxStore({ state: structuredClone(state) })));
    const slow = await page(new SandboxApp(new SandboxStore({ state }), { latencyMs: 4 }));
    expect(slow.status).toBe(200);
    // The server only has to send it when the latency is over (flattening and encoding a page's
    // ~260 KB string after the delay added ~2 ms to every page of a cursor chain).
    expect(slow.body).toBeInstanceOf(Uint8Array);
    const text = Buffer.from(slow.body).toString('utf8');
    expect(typeof quick.body === 'string' ? quick.body : '').toBe(text);
    expect((JSON.parse(text) as { data: unknown[] }).data).toHaveLength(100);
  });
});
