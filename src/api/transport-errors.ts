// How a failed fetch is classified for retries and advice. Kept apart from transport.ts so that
// reading an error never loads undici (the CLI's error paths and `mbulk --help` do not need it).
import type { AttemptFailure } from './retry.js';

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
