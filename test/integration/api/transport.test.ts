import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, ConnectionError, OutcomeUnknownError, TimeoutError } from '../../../src/api/errors.js';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { store } from '../../unit/api/fixtures.js';

let server: Server | undefined;
let other: Server | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  await client?.close();
  for (const s of [server, other]) {
    s?.closeAllConnections();
    await new Promise((resolve) => s?.close(resolve) ?? resolve(undefined));
  }
  server = other = undefined;
});

/** A server answering every request with `answer`; it records each request's method, path and headers. */
async function answeringServer(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{
  server: Server;
  url: string;
  seen: { method: string; url: string; headers: IncomingMessage['headers'] }[];
}> {
  const seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  const s = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen };
}

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

describe('transport answers (undici request API)', () => {
  const json = Buffer.from(JSON.stringify(store), 'utf8');

  it.each([
    ['gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['br', brotliCompressSync(json)],
  ])('asks for compression and reads a %s answer', async (coding, body) => {
    const s = await answeringServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      res.end(body);
    });
    server = s.server;
    client = new MerchantClient({ baseUrl: s.url, token: 't' });
    const me = await client.me();
    expect(me.name).toBe(store.name);
    expect(s.seen[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it.each([['plain'], ['gzip']])(
    'a big %s answer: the body hook sees its end, the parse all of it (UTF-8, byte order mark dropped)',
    async (coding) => {
      // ~300 KB with multi-byte characters everywhere, so that the hook's cut falls inside one.
      const items = Array.from({ length: 3000 }, (_, i) => ({ id: `p${i}`, title: `Thé ${i} — 東京 ✓` }));
      const text = JSON.stringify({ object: 'list', data: items, has_more: true, next_cursor: 'c_2' });
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
      const s = await answeringServer((_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(coding === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
        });
        res.end(coding === 'gzip' ? gzipSync(bytes) : bytes);
      });
      server = s.server;
      client = new MerchantClient({ baseUrl: s.url, token: 't' });
      const seen: string[] = [];
      const parsed = await client.request({
        method: 'GET',
        path: '/api/v2/products',
        schema: z.object({ data: z.array(z.object({ title: z.string() })), next_cursor: z.string() }),
        onText: (end) => {
          seen.push(end);
          return false;
        },
      });
      expect(parsed.data).toHaveLength(3000);
      expect(parsed.data[2999]?.title).toBe('Thé 2999 — 東京 ✓');
      expect(parsed.next_cursor).toBe('c_2');
      expect(seen).toHaveLength(1);
      const end = seen[0] ?? '';
      // The end only (not the 300 KB), ending as the body ends, whole characters after the cut.
      expect(end.length).toBeLessThan(4096);
      // (a character cut at the start is one U+FFFD per byte left of it)
      expect(text.endsWith(end.replace(/^\uFFFD+/, ''))).toBe(true);
      expect(end).toMatch(/"next_cursor":"c_2"}$/);
    },
  );

  it('an answer in a coding it cannot read fails naming the coding', async () => {
    const s = await answeringServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(json);
    });
    server = s.server;
    client = new MerchantClient({ baseUrl: s.url, token: 't', maxRetries: 0 });
    const error = await client.me().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toContain('content-encoding "zstd"');
  });

  it('a redirect is not followed, for a read or a write, and says where it points', async () => {
    const target = await answeringServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(store));
    });
    other = target.server;
    const s = await answeringServer((req, res) => {
      res.writeHead(req.method === 'GET' ? 301 : 302, { location: `${target.url}${req.url ?? ''}` });
      res.end();
    });
    server = s.server;
    client = new MerchantClient({ baseUrl: s.url, token: 't', maxRetries: 0 });

    const read = await client.me().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(read).toBeInstanceOf(ApiError);
    expect((read as ApiError).status).toBe(301);
    expect((read as ApiError).message).toContain(`a redirect to ${target.url}/`);
    expect((read as ApiError).message).toContain('does not follow redirects');

    const write = await client.customers.create({ name: 'A', phone: '6591234567' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(write).toBeInstanceOf(ApiError);
    expect((write as ApiError).status).toBe(302);
    // fetch would have re-sent the POST to the new address as a GET; nothing reached it.
    expect(target.seen).toEqual([]);
    expect(s.seen.map((r) => r.method)).toEqual(['GET', 'POST']);
  });
});
