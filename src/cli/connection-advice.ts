import { isTlsErrorCode } from '../api/transport-errors.js';
import type { GlobalArgs } from './command-context.js';

/** Where the API URL and token of a remote target came from, to name them in error messages. */
export interface ApiSources {
  /** The base URL (never credentials). */
  url: string;
  /** `--base-url` or `MERCHANT_API_URL`. */
  urlSource: string;
  /** `--token-file FILE`, `MERCHANT_API_TOKEN` or `--token`. */
  tokenSource: string;
}

/** The sources of a remote target's URL and token, in the order target.ts reads them. */
export function apiSources(args: GlobalArgs, env: NodeJS.ProcessEnv, url: string): ApiSources {
  const urlSource = args['base-url'] !== undefined ? '--base-url' : 'MERCHANT_API_URL';
  const tokenSource =
    args.token !== undefined && args.token.trim() !== ''
      ? '--token'
      : args['token-file'] !== undefined
        ? `--token-file ${args['token-file']}`
        : 'MERCHANT_API_TOKEN';
  return { url, urlSource, tokenSource };
}

interface Found {
  codes: string[];
  messages: string[];
  status?: number | undefined;
  /** The service's request id (`request_id` in the body, else the X-Request-Id header), for support. */
  requestId?: string | undefined;
}

function walk(error: unknown): Found {
  const found: Found = { codes: [], messages: [] };
  let cur: unknown = error;
  for (let depth = 0; depth < 6 && cur !== null && typeof cur === 'object'; depth++) {
    const e = cur as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
      status?: unknown;
      requestId?: unknown;
    };
    if (typeof e.code === 'string') found.codes.push(e.code);
    if (typeof e.message === 'string') found.messages.push(e.message);
    if (found.status === undefined && typeof e.status === 'number') found.status = e.status;
    if (found.requestId === undefined && typeof e.requestId === 'string') found.requestId = e.requestId;
    cur = Array.isArray(e.errors) && e.errors.length > 0 && e.cause === undefined ? e.errors[0] : e.cause;
  }
  return found;
}

/**
 * One line saying what to check when the API could not be reached or rejected the token: it names
 * the URL and where it came from (`--base-url`, `MERCHANT_API_URL`) or the token's source
 * (`--token-file`, `MERCHANT_API_TOKEN`), and what to try. Undefined for any other error.
 */
export function adviseApiError(error: unknown, sources: ApiSources): string | undefined {
  const { codes, messages, status, requestId } = walk(error);
  const request = requestId === undefined ? '' : `; request ${requestId}`;
  const { url, urlSource, tokenSource } = sources;
  const at = `${url} (from ${urlSource})`;
  const has = (...names: string[]) => codes.some((c) => names.includes(c));
  if (status === 401) {
    return `the API token from ${tokenSource} was rejected by ${url} (401${request}): check that it is current and issued for this service, or set ${urlSource} to the service the token belongs to`;
  }
  if (status === 403) {
    return `the API token from ${tokenSource} is not allowed to do this at ${url} (403${request}): check the token's permissions for this store`;
  }
  if (codes.some(isTlsErrorCode)) {
    const reason = codes.find(isTlsErrorCode) ?? 'TLS error';
    return `cannot connect securely to ${at}: its certificate was rejected (${reason}); check that the host name in ${urlSource} is the one the certificate names, or for a private certificate authority set NODE_EXTRA_CA_CERTS=ca.pem (not retried)`;
  }
  if (has('ENOTFOUND', 'EAI_AGAIN')) {
    let host = url;
    try {
      host = new URL(url).hostname;
    } catch {
      // keep the URL
    }
    return `cannot find the host ${host} of ${at}: check the spelling of the URL and this machine's DNS`;
  }
  if (has('ECONNREFUSED')) {
    return `nothing answers at ${at}: connection refused; check the URL's port and that the service is running`;
  }
  if (has('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH')) {
    return `cannot reach ${at}: no answer in time; check this machine's network, firewall or proxy, and the URL`;
  }
  if (has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')) {
    return `the connection to ${at} broke: ${messages.at(-1) ?? 'reset'}; check the URL (https:// for a TLS service) and any proxy in between`;
  }
  return undefined;
}
