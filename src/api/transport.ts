import { Agent, fetch as undiciFetch } from 'undici';
import type { Dispatcher } from 'undici';

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

export { classifyTransportError, isTlsErrorCode } from './transport-errors.js';
