import { afterEach, describe, expect, it } from 'vitest';
import { OutcomeUnknownError } from '../../../src/api/errors.js';
import { idempotencyKey } from '../../../src/api/idempotency-key.js';
import { MerchantClient, type MerchantClientOptions } from '../../../src/api/merchant-client.js';
import type { FetchLike } from '../../../src/api/transport.js';
import { undiciRequestLike } from '../../../src/api/transport.js';
import { FaultInjector } from '../../../src/sandbox/faults.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/server.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

/** Faults from the acceptance criteria: 20% 500s, 5% dropped connections, a rate limit. */
const FAULTS = { failRate: 0.2, dropRate: 0.05, rateLimitRps: 200, faultSeed: 7 } satisfies SandboxOptions;

interface Attempt {
  path: string;
  sentAt: number;
  status?: number;
  retryAfter?: string | null;
  at?: number;
  /** Order of the send and of the answer among all sends and answers. */
  sent: number;
  answered?: number;
}

const running: { sandbox: RunningSandbox; client: MerchantClient }[] = [];
afterEach(async () => {
  for (const { sandbox, client } of running.splice(0)) {
    await client.close();
    await sandbox.close();
  }
});

async function setup(options: SandboxOptions, clientOptions: Partial<MerchantClientOptions> = {}) {
  const sandbox = await startSandbox({ port: 0, ...options });
  const client = new MerchantClient({
    baseUrl: sandbox.url,
    token: sandbox.token,
    maxRetries: 12,
    retryDelay: { initialDelayMs: 5, maxDelayMs: 50 },
    ...clientOptions,
  });
  running.push({ sandbox, client });
  return { sandbox, client };
}

describe('client against the sandbox with faults on', () => {
  it('a paginated read of 2,000 customers returns exactly 2,000 distinct records', async () => {
    const { sandbox, client } = await setup({
      ...FAULTS,
      generate: { products: 0, customers: 2000, orders: 0 },
    });
    const customers = await client.customers.list().toArray({ max: 5000 });
    expect(customers).toHaveLength(2000);
    expect(new Set(customers.map((c) => c.id)).size).toBe(2000);
    const expected = sandbox.store
      .toSnapshot()
      .customers.map((c) => c.id)
      .sort();
    expect(customers.map((c) => c.id).sort()).toEqual(expected);
    // Faults really happened and were retried; every list request asked for 100.
    const log = sandbox.requestLog().filter((e) => e.path.startsWith('/api/v2/customers'));
    expect(log.some((e) => e.outcome !== 'applied')).toBe(true);
    expect(log.every((e) => e.path.includes('limit=100'))).toBe(true);
    expect(client.progress().retries).toBeGreaterThan(0);
  });

  it('500 keyed creates yield exactly 500 records (none twice, none missing)', async () => {
    const { sandbox, client } = await setup({
      ...FAULTS,
      generate: { products: 0, customers: 0, orders: 0 },
    });
    const bodies = Array.from({ length: 500 }, (_, i) => ({
      name: `Widget ${i}`,
      price: 100 + i,
      sku: `W-${i}`,
    }));
    const created = await Promise.all(
      bodies.map((body, i) =>
        client.products.create(body, {
          idempotencyKey: idempotencyKey('it-run', `products.create:${i}`, body),
        }),
      ),
    );
    expect(new Set(created.map((p) => p.id)).size).toBe(500);
    const state = sandbox.store.toSnapshot().products;
    expect(state).toHaveLength(500);
    expect(state.map((p) => p.sku).sort()).toEqual(bodies.map((b) => b.sku).sort());
    const log = sandbox.requestLog();
    // Some creates were applied but their answer was lost, and the retry was replayed, not re-applied.
    expect(log.some((e) => e.outcome === 'dropped_after')).toBe(true);
    expect(log.some((e) => e.outcome === 'replayed')).toBe(true);
  });

  /**
   * `count` reads of distinct products at once against a bucket of 25 a second, the bucket and the
   * client's waits on one virtual clock (the same seconds, not waited for). Every attempt is noted
   * as the client sent it: its path, when (virtual ms) it left, and the answer's status and
   * Retry-After when it came back (`at`). One path per request, so each retry is told apart.
   */
  async function readsUnderRateLimit(count: number) {
    const clock = new VirtualClock();
    const attempts: Attempt[] = [];
    let events = 0;
    const fetch: FetchLike = async (url, init) => {
      const attempt: Attempt = { path: new URL(url).pathname, sentAt: clock.now(), sent: events++ };
      attempts.push(attempt);
      const response = await undiciRequestLike(url, init);
      attempt.at = clock.now();
      attempt.answered = events++;
      attempt.status = response.status;
      attempt.retryAfter = response.headers.get('retry-after');
      return response;
    };
    const { sandbox, client } = await setup(
      { rateLimitRps: 25, now: clock.now, generate: { products: 0, customers: 0, orders: 0 } },
      { clock, fetch },
    );
    // Made in the store directly: no request spent before the reads.
    const ids = Array.from(
      { length: count },
      (_, i) => sandbox.store.createProduct({ name: `P${i}`, price: 100 }).id,
    );
    const started = clock.now();
    const products = await Promise.all(ids.map((id) => client.products.get(id)));
    expect(products.map((p) => p.id)).toEqual(ids);
    const log = sandbox.requestLog();
    const limited = log.filter((e) => e.outcome === 'rate_limited').length;
    expect(limited).toBeGreaterThan(0);
    expect(client.progress().rateLimited).toBe(limited);
    // The sandbox saw every attempt the client noted, path by path, and answered the same.
    expect(attempts.map((a) => `${a.path} ${a.status}`).sort()).toEqual(
      log.map((e) => `${e.path} ${e.status}`).sort(),
    );
    return { attempts, limited, seconds: (clock.now() - started) / 1000 };
  }

  it('under a tight rate limit every request gets through, with few 429s, at the bucket pace', async () => {
    const { limited, seconds } = await readsUnderRateLimit(100);
    expect(limited).toBeLessThan(15);
    // 25 burst + 75 at 25/s: about 3 s at best; never faster than the bucket allows.
    expect(seconds).toBeGreaterThan(2.5);
  });

  it('a request answered 429 is retried no sooner than its Retry-After', async () => {
    // Just past the burst: the retries are not queued behind a long line of requests (as with 100,
    // where the bucket's pace alone spaces them by seconds), so only Retry-After keeps them back.
    // Ignoring it, the bucket (a token every 40 ms) would let a retry through within milliseconds.
    const { attempts, limited, seconds } = await readsUnderRateLimit(30);
    const refused = attempts.filter((a) => a.status === 429);
    expect(refused).toHaveLength(limited);
    for (const a of refused) {
      expect(a.retryAfter).toMatch(/^[1-9]\d*$/);
      const retry = attempts.slice(attempts.indexOf(a) + 1).find((b) => b.path === a.path);
      expect(retry, `${a.path} was retried`).toBeDefined();
      // A lower bound on the virtual clock (never a wall time): from the answer to the retry.
      expect((retry?.sentAt ?? 0) - (a.at ?? 0)).toBeGreaterThanOrEqual(Number(a.retryAfter) * 1000);
    }
    // And for every sender (the limit is the token's): nothing leaves in the pause a 429 asked for.
    for (const a of refused) {
      const early = attempts.filter(
        (b) => b.sent > (a.answered ?? 0) && b.sentAt < (a.at ?? 0) + Number(a.retryAfter) * 1000,
      );
      expect(early.map((b) => b.path)).toEqual([]);
    }
    expect(seconds).toBeGreaterThanOrEqual(1);
  });

  it('re-running the same keyed creates (a resumed run) creates nothing new', async () => {
    const { sandbox, client } = await setup({ generate: { products: 0, customers: 0, orders: 0 } });
    const bodies = Array.from({ length: 20 }, (_, i) => ({ name: `Mug ${i}`, price: 500 }));
    const run = () =>
      Promise.all(
        bodies.map((body, i) =>
          client.products.create(body, { idempotencyKey: idempotencyKey('plan-9', `row-${i}`, body) }),
        ),
      );
    const first = await run();
    const second = await run();
    expect(second.map((p) => p.id)).toEqual(first.map((p) => p.id));
    expect(sandbox.store.toSnapshot().products).toHaveLength(20);
  });
});

describe('batch inventory update under --strict (no batch route)', () => {
  async function items(client: MerchantClient) {
    const out: { item_id: string; quantity: number }[] = [];
    for await (const p of client.products.list()) {
      for (const v of p.variants)
        if (v.inventory) out.push({ item_id: v.inventory.item_id, quantity: v.inventory.quantity });
      if (p.inventory) out.push({ item_id: p.inventory.item_id, quantity: p.inventory.quantity });
    }
    return out;
  }

  it('falls back to per-item PATCH, says so once, and applies absolute values under faults', async () => {
    const warnings: string[] = [];
    const { sandbox, client } = await setup(
      { strict: true, ...FAULTS, generate: { products: 15, customers: 0, orders: 0 } },
      { onWarning: (w) => warnings.push(w) },
    );
    const before = await items(client);
    expect(before.length).toBeGreaterThan(10);
    const entries = before.map((it, i) => ({ item_id: it.item_id, quantity: 1000 + i }));
    const result = await client.inventory.batchUpdate(entries, {
      idempotencyKey: 'stock-run-1',
      chunkSize: 7,
    });
    expect(result.mode).toBe('per-item');
    expect(result.results.every((r) => r.ok)).toBe(true);
    const after = new Map((await items(client)).map((it) => [it.item_id, it.quantity]));
    entries.forEach((e) => expect(after.get(e.item_id)).toBe(e.quantity));
    expect(warnings).toHaveLength(1);
    const batchCalls = sandbox.requestLog().filter((e) => e.path.includes('batch_update'));
    expect(batchCalls).toHaveLength(1);
  });

  it('per-item delta entries are never repeated: applied once, or reported as outcome unknown', async () => {
    const { sandbox, client } = await setup({
      strict: true,
      failRate: 0.2,
      dropRate: 0.2,
      faultSeed: 3,
      generate: { products: 15, customers: 0, orders: 0 },
    });
    const before = await items(client);
    const entries = before.map((it) => ({ item_id: it.item_id, delta_quantity: 5 }));
    const result = await client.inventory.batchUpdate(entries);
    expect(result.mode).toBe('per-item');
    const unknown = result.results.filter((r) => !r.ok);
    expect(unknown.length).toBeGreaterThan(0);
    for (const r of unknown) expect(r.ok === false && r.error).toBeInstanceOf(OutcomeUnknownError);
    const after = new Map((await items(client)).map((it) => [it.item_id, it.quantity]));
    for (const [i, r] of result.results.entries()) {
      const q0 = before[i]?.quantity as number;
      const q1 = after.get(r.entry.item_id);
      if (r.ok) expect(q1).toBe(q0 + 5);
      else expect([q0, q0 + 5]).toContain(q1);
    }
    // Exactly one PATCH per delta item reached the server.
    const patches = sandbox.requestLog().filter((e) => e.method === 'PATCH');
    const perItem = new Map<string, number>();
    for (const e of patches) perItem.set(e.path, (perItem.get(e.path) ?? 0) + 1);
    expect([...perItem.values()].every((n) => n === 1)).toBe(true);
  });
});

describe('product PATCH that creates list entries, under a lost response', () => {
  it('is not replayed: outcome unknown is reported and the new variant exists once', async () => {
    // A fault seed whose first decision drops the connection AFTER acting and whose second acts
    // normally: a blind retry would then create the variant a second time.
    let seed = 1;
    for (; seed < 10_000; seed++) {
      const f = new FaultInjector({ dropRate: 0.5, faultSeed: seed });
      if (f.decide().kind === 'drop_after' && f.decide().kind === 'none') break;
    }
    const { sandbox, client } = await setup({ dropRate: 0.5, faultSeed: seed });
    // Made through the store directly: no request consumes a fault decision.
    const p = sandbox.store.createProduct({
      name: 'Tee',
      price: 1000,
      variants: [{ name: 'S', price: 1000 }],
    });
    const kept = p.variants[0];
    if (kept === undefined) throw new Error('no variant');
    const error = await client.products
      .update(p.id, {
        variants: [
          { id: kept.id, name: 'S', price: 1000 },
          { name: 'M', price: 1000 },
        ],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(sandbox.store.getProduct(p.id).variants.map((v) => v.name)).toEqual(['S', 'M']);
    expect(sandbox.requestLog().filter((e) => e.method === 'PATCH')).toHaveLength(1);
  });
});
