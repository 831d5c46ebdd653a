import { Agent, fetch as undiciFetch } from 'undici';
import type { Dispatcher } from 'undici';
import type { AttemptFailure } from './retry.js';

/** The parts of a fetch Response the client reads. */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
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

/** A fetch-compatible function: undici's by default; tests inject the global one (msw) or a fake. */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** undici's own fetch: the same library as the Agent (about 2x the global fetch on loopback). */
export const undiciFetchLike: FetchLike = (url, init) =>
  undiciFetch(url, init as Parameters<typeof undiciFetch>[1]) as Promise<FetchResponse>;

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

/** Error codes meaning the connection was never made, so nothing reached the server. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** Whether a Node error code is a TLS certificate or handshake failure (OpenSSL's or Node's). */
export function isTlsErrorCode(code: string): boolean {
  return TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}

/** Describes a transport error thrown by fetch (or by reading the body) for retry decisions. */
export function classifyTransportError(error: unknown): {
  failure: AttemptFailure;
  detail: string;
  timeout: boolean;
} {
  const codes: string[] = [];
  const messages: string[] = [];
  let cur: unknown = error;
  for (let depth = 0; depth < 5 && cur !== null && typeof cur === 'object'; depth++) {
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof e.code === 'string') codes.push(e.code);
    if (typeof e.message === 'string' && e.message !== '') messages.push(e.message);
    // AggregateError (happy eyeballs): look at the first inner error.
    if (Array.isArray(e.errors) && e.errors.length > 0 && e.cause === undefined) cur = e.errors[0];
    else cur = e.cause;
  }
  const detail = [...new Set(messages)].join(': ') || 'connection failed';
  const connectTimeout = codes.includes('UND_ERR_CONNECT_TIMEOUT');
  // A certificate the client rejects stays rejected: never retried (and nothing was sent).
  if (codes.some(isTlsErrorCode)) return { failure: { kind: 'tls' }, detail, timeout: false };
  // fetch refuses some ports outright ("bad port"): nothing was sent.
  if (codes.some((c) => NOT_SENT.has(c)) || messages.some((m) => m === 'bad port')) {
    return { failure: { kind: 'not-sent' }, detail, timeout: connectTimeout };
  }
  if (codes.some((c) => TIMEOUTS.has(c))) return { failure: { kind: 'timeout' }, detail, timeout: true };
  return { failure: { kind: 'connection' }, detail, timeout: false };
}
