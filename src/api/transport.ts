import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { utf8Text } from './utf8-text.js';

/** The parts of a fetch Response the client reads. */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /**
   * Our transport's own (undiciRequestLike; a fetch Response has no such method): the body's
   * bytes after undoing any Content-Encoding, read once and shared with `text()`. The client reads
   * them when present, so that it can look at a list page's end (its next cursor) before decoding
   * the whole page into one string (for a 260 KB page more than a millisecond on a small VM).
   * Not `bytes()`: a fetch Response has that one, and a wrapper that consumed the body through
   * `text()` and replaced `text` would leave it unusable.
   */
  bodyBytes?(): Promise<Uint8Array>;
}

/** The parts of RequestInit the client sends. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** An undici Dispatcher (our keep-alive Agent); fetch implementations that do not know it ignore it. */
  dispatcher?: Dispatcher;
}

/**
 * A fetch-compatible function: undici's request API through our Agent by default
 * ({@link undiciRequestLike}); tests inject the global fetch (msw) or a fake.
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/**
 * Sends one request with undici's request API (`dispatcher.request()`) through the Agent in
 * `init.dispatcher`, and answers like fetch for the parts the client reads.
 *
 * Not undici's fetch: the request API is undici's fast path (no WHATWG Request/Response/Headers or
 * web streams per request), and loading fetch cost every command ~25 ms of start-up for Node's web
 * streams, zlib, perf_hooks and worker_threads. Two differences from fetch, both on purpose:
 * - redirects are not followed: fetch turns a POST answered with 301/302 into a GET, which for a write
 *   would silently read instead; a 3xx comes back as the error status it is (see ApiError.from);
 * - compression is asked for (`accept-encoding: gzip, deflate, br`, what fetch sends over https) and
 *   undone here, loading node:zlib only when an answer is actually compressed.
 */
export const undiciRequestLike: FetchLike = async (url, init) => {
  if (init.dispatcher === undefined) throw new TypeError('undiciRequestLike needs init.dispatcher');
  const { origin, pathname, search } = new URL(url);
  const response = await init.dispatcher.request({
    origin,
    path: `${pathname}${search}`,
    method: init.method as Dispatcher.HttpMethod,
    headers: { 'accept-encoding': ACCEPT_ENCODING, ...init.headers },
    body: init.body ?? null,
    signal: init.signal ?? null,
  });
  const headers = response.headers;
  const get = (name: string): string | null => {
    const value = headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
  // Read once, whichever is asked first: text() and bodyBytes() answer from the same bytes.
  let body: Promise<Buffer> | undefined;
  const bodyBytes = (): Promise<Buffer> =>
    (body ??= (async () => {
      const bytes = Buffer.from(await response.body.arrayBuffer());
      const codings = contentCodings(get('content-encoding'));
      if (codings.length === 0) return bytes;
      const { decodeBody } = await import('./decode-body.js');
      return decodeBody(bytes, codings);
    })());
  return {
    status: response.statusCode,
    headers: { get },
    text: async () => utf8Text(await bodyBytes()),
    bodyBytes,
  };
};

/** What fetch asks for over https (undici web/fetch/index.js); all three are in node:zlib. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The codings of a Content-Encoding header, in the order they were applied, `identity` left out. */
function contentCodings(header: string | null): string[] {
  if (header === null) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** The global fetch (what msw intercepts in tests). */
export const globalFetchLike: FetchLike = (url, init) =>
  globalThis.fetch(url, init as unknown as RequestInit);

export interface TransportTimeouts {
  /** Establishing a TCP/TLS connection, ms. Default 10,000. */
  connectMs?: number;
  /** Waiting for the response headers after sending, ms. Default 60,000. */
  headersMs?: number;
  /** Silence between body chunks, ms. Default 60,000. */
  bodyMs?: number;
}

/**
 * A keep-alive Agent whose connection pool per origin matches the client's maximum concurrency
 * (more sockets than requests in flight would only idle).
 */
export function createAgent(connections: number, timeouts: TransportTimeouts = {}): Agent {
  return new Agent({
    connections: Math.max(1, connections),
    pipelining: 1,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connectTimeout: timeouts.connectMs ?? 10_000,
    headersTimeout: timeouts.headersMs ?? 60_000,
    bodyTimeout: timeouts.bodyMs ?? 60_000,
  });
}

export { classifyTransportError, isTlsErrorCode } from './transport-errors.js';
