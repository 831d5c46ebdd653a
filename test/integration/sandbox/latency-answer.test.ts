import type * as timers from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

// The latency's wait, recorded instead of waited (the sandbox sleeps with node:timers/promises).
// In the integration project on purpose: its files each get their own module cache, so this mock
// reaches src/sandbox/app.ts; unit files share theirs (isolate: false), where another file may
// already have loaded app.ts with the real timers.
const events = vi.hoisted(() => [] as string[]);
vi.mock('node:timers/promises', async (original) => ({
  ...(await original<typeof timers>()),
  setTimeout: vi.fn(async () => void events.push('latency over')),
}));

const page = (app: SandboxApp) =>
  app.handle({
    method: 'GET',
    url: '/api/v2/products?limit=100',
    headers: { authorization: `Bearer ${app.token}` },
    body: '',
  });

describe('a read answered within its latency', () => {
  it('comes encoded to bytes before the latency is over, the same JSON as without latency', async () => {
    const state = generateStore({ products: 120, customers: 0, orders: 0, seed: 3 });
    const quick = await page(new SandboxApp(new SandboxStore({ state: structuredClone(state) })));
    const from = Buffer.from.bind(Buffer);
    vi.spyOn(Buffer, 'from').mockImplementation(((value: string, encoding?: BufferEncoding) => {
      if (typeof value === 'string' && value.length > 10_000) events.push('page encoded');
      return from(value, encoding);
    }) as typeof Buffer.from);
    events.length = 0;
    // A latency far longer than any machine's work on the page (the wait itself is not waited).
    const slow = await page(new SandboxApp(new SandboxStore({ state }), { latencyMs: 600_000 }));
    vi.restoreAllMocks();
    expect(slow.status).toBe(200);
    // The server only has to send it when the latency is over (flattening and encoding a page's
    // ~260 KB string after the delay added ~2 ms to every page of a cursor chain).
    expect(events).toEqual(['page encoded', 'latency over']);
    expect(slow.body).toBeInstanceOf(Uint8Array);
    const text = Buffer.from(slow.body).toString('utf8');
    expect(typeof quick.body === 'string' ? quick.body : '').toBe(text);
    expect((JSON.parse(text) as { data: unknown[] }).data).toHaveLength(100);
  });
});
