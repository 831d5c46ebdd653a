import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient, OutcomeUnknownError, TimeoutError } from '../../../src/api/index.js';

let server: Server | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  await client?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** A server that reads the request and never answers. */
async function silentServer(): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  server = createServer((req) => {
    hits++;
    req.resume();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

describe('transport timeouts (undici Agent)', () => {
  it('a GET that never gets headers is retried, then fails with TimeoutError (exit 4)', async () => {
    const { url, hits } = await silentServer();
    client = new MerchantClient({
      baseUrl: url,
      token: 'tok_timeout_secret',
      maxRetries: 1,
      retryDelay: { initialDelayMs: 1, maxDelayMs: 1 },
      timeouts: { headersMs: 150 },
    });
    const error = await client.me().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).exitCode).toBe(4);
    expect((error as TimeoutError).sent).toBe(true);
    expect(hits()).toBe(2);
  });

  it('a POST without key that times out is reported as outcome unknown, sent once', async () => {
    const { url, hits } = await silentServer();
    client = new MerchantClient({ baseUrl: url, token: 't', timeouts: { headersMs: 150 } });
    const error = await client.customers.create({ name: 'A', phone: '1' }, { idempotencyKey: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(TimeoutError);
    expect(hits()).toBe(1);
  });
});
