import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Agent } from 'undici';
import { Store } from '../schema/store.js';
import { DEFAULT_API_PATHS, type ApiPaths } from './api-paths.js';
import { systemClock, type Clock } from './clock.js';
import { linkedSignal } from './linked-signal.js';
import {
  ApiContractError,
  ApiError,
  ConnectionError,
  NotFoundError,
  OutcomeUnknownError,
  TimeoutError,
} from './errors.js';
import { RateController, type RateProgress, type SendPriority } from './rate-controller.js';
import { refusePlainHttp } from './refuse-plain-http.js';
import {
  DEFAULT_RETRY_AFTER_CAP_MS,
  isIdempotentRequest,
  parseRetryAfter,
  retryDelay,
  shouldRetry,
  type AttemptFailure,
  type RetryDelayOptions,
} from './retry.js';
import type { FetchLike, FetchResponse, TransportTimeouts } from './transport.js';
import { classifyTransportError } from './transport-errors.js';
import { utf8Text } from './utf8-text.js';
import { Customers } from './resources/customers.js';
import { Inventory } from './resources/inventory.js';
import { Messages } from './resources/messages.js';
import { Orders } from './resources/orders.js';
import { Products } from './resources/products.js';
import { Templates } from './resources/templates.js';

export interface MerchantClientOptions {
  /** Service root; the `/api/v2/...` paths are appended (a trailing `/api/v2` is tolerated). */
  baseUrl: string;
  /** Merchant API token, sent as `Authorization: Bearer`. Never logged, never in error messages. */
  token: string;
  /**
   * Allow plain `http://` to a host other than this machine (the CLI's `--insecure-http`): the token
   * would travel unencrypted. Default false: the constructor refuses such a `baseUrl` with a
   * UsageError before any request (`http://127.0.0.1:…`, `http://localhost:…` are always allowed).
   */
  insecureHttp?: boolean | undefined;
  /**
   * fetch implementation. Default: undici's request API through a keep-alive Agent (redirects are
   * not followed; gzip, deflate and brotli answers are decoded).
   */
  fetch?: FetchLike;
  /** Maximum requests in flight (`--concurrency`). Default 4. */
  maxConcurrency?: number;
  /** Ceiling on requests per second (`--rps`). Default: none (learned from 429s). */
  rps?: number | undefined;
  /** Retries after the first attempt. Default 6. */
  maxRetries?: number;
  /** Backoff: initial 500 ms, doubling, at most 8 s, 75-100% jitter. */
  retryDelay?: RetryDelayOptions;
  /** Retry-After values above this are capped, ms. Default 60,000. */
  retryAfterCapMs?: number;
  timeouts?: TransportTimeouts;
  /** Paths of the endpoints the spec leaves open. */
  paths?: Partial<ApiPaths>;
  /** Share one controller between clients (one limit per token). Default: a new one. */
  rateController?: RateController;
  onProgress?: (progress: RateProgress) => void;
  /** Things the user should know once (e.g. a fallback was taken). Default: none. */
  onWarning?: (message: string) => void;
  /** `--verbose` request log, one line per attempt and response (never headers, never the token). */
  logger?: (line: string) => void;
  clock?: Clock;
  userAgent?: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined;

export interface RequestOptions<T> {
  method: HttpMethod;
  /** Path under the base URL, ids already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Schema of a 2xx body; extra fields are tolerated. */
  schema: z.ZodType<T>;
  /** POST only: makes the request safe to retry. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * DELETE only: value to resolve with when a retry (after an attempt whose outcome was unknown)
   * answers 404: the earlier attempt did delete it.
   */
  goneAfterRetry?: () => T;
  /**
   * Sees the end of a 2xx body's raw text (its last BODY_END_BYTES bytes, or all of it) before the
   * body is read as text and parsed (list read-ahead: see PageIterator). Answers true when it
   * started a request: the client then lets that request leave before it parses this body (a hook
   * written before it could answer, returning nothing, is still accepted).
   */
  onText?: ((text: string) => boolean | void) | undefined;
  /**
   * `background`: sent on the rate that normal requests leave (a short list partition read beside
   * a long one; see RateController.run). Default `normal`.
   */
  priority?: SendPriority | undefined;
}

/** How a POST is keyed: a given key, an automatic random one per call (default), or none. */
export interface WriteOptions {
  /**
   * Idempotency-Key. Give a deterministic key (see `idempotencyKey()`) so a resumed run is safe;
   * by default a random key is made per call, so retries within the call are safe. `false` sends
   * none: the request is then never retried after it may have reached the server.
   */
  idempotencyKey?: string | false | undefined;
  signal?: AbortSignal | undefined;
}

type Attempt =
  | { ok: true; status: number; body: ResponseBody; requestId: string | undefined }
  | { ok: false; failure: AttemptFailure; error: Error; retryAfterMs: number | undefined };

const DEFAULT_MAX_RETRIES = 6;

/** A body as the transport gave it: bytes when it offers them (see FetchResponse.bodyBytes), else text. */
type ResponseBody = Uint8Array | string;

/** How much of a body's end `onText` sees when the body came as bytes (a cursor is far shorter). */
const BODY_END_BYTES = 4096;

/** The body as text. */
function bodyText(body: ResponseBody): string {
  return typeof body === 'string' ? body : utf8Text(body);
}

/**
 * The end of a body as text, without decoding the rest: a list page's next cursor is its last
 * field, and decoding a whole 260 KB page makes one large string (more than a millisecond on a
 * small VM) the next request need not wait for. A character cut at the start decodes as U+FFFD.
 */
function bodyEnd(body: ResponseBody): string {
  if (typeof body === 'string' || body.byteLength <= BODY_END_BYTES) return bodyText(body);
  return utf8Text(body.subarray(body.byteLength - BODY_END_BYTES));
}

/**
 * Lets a request that an `onText` hook started reach its socket before the body's decoding and
 * parse hold the thread (~5–8 ms for 100 products). Two turns of the event loop, not one: undici
 * writes a request on a reused keep-alive socket only from a setImmediate of its own, queued when
 * the request is dispatched (its idle-socket check, `scheduleIdleSocketValidation` in
 * lib/dispatcher/client-h1.js, GHSA-35p6-xmwp-9g52), so after our first immediate, queued before
 * that one. With one turn the next page left only after the parse: +3 ms a page in a cursor chain.
 */
async function letStartedRequestOut(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The Merchant API V2 client: one keep-alive connection pool, one shared rate controller, typed
 * errors, safe retries, zod-parsed responses.
 */
export class MerchantClient {
  readonly baseUrl: string;
  readonly paths: ApiPaths;
  readonly customers: Customers;
  readonly products: Products;
  readonly orders: Orders;
  readonly inventory: Inventory;
  readonly templates: Templates;
  readonly messages: Messages;
  readonly rate: RateController;

  /** An ES private field: never shown by util.inspect / console.log of the client, never enumerable. */
  readonly #token: string;
  private readonly injectedFetch: FetchLike | undefined;
  private readonly maxConcurrency: number;
  private readonly timeouts: TransportTimeouts | undefined;
  /** The Agent and fetch, made by the first request: undici loads only when a request is sent. */
  private transport: Promise<{ agent: Agent; fetch: FetchLike }> | undefined;
  private readonly maxRetries: number;
  private readonly delayOptions: RetryDelayOptions;
  private readonly retryAfterCapMs: number;
  private readonly clock: Clock;
  private readonly logger: ((line: string) => void) | undefined;
  private readonly onWarning: ((message: string) => void) | undefined;
  private readonly warned = new Set<string>();
  private readonly userAgent: string;

  constructor(options: MerchantClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    // A malformed base URL is a configuration error: say so now, not after a minute of retries
    // of a "connection failure" (fetch rejects an unparsable URL like a network error).
    if (!/^https?:\/\/[^/?#]+/i.test(this.baseUrl) || !URL.canParse(this.baseUrl)) {
      throw new TypeError(
        `baseUrl must be an absolute http:// or https:// URL (e.g. https://api.example.com), got ${JSON.stringify(options.baseUrl)}`,
      );
    }
    refusePlainHttp(new URL(this.baseUrl), options.insecureHttp);
    this.#token = options.token;
    this.paths = { ...DEFAULT_API_PATHS, ...options.paths };
    const maxConcurrency = options.maxConcurrency ?? 4;
    this.clock = options.clock ?? systemClock;
    this.rate =
      options.rateController ??
      new RateController({
        maxConcurrency,
        rps: options.rps,
        clock: this.clock,
        onProgress: options.onProgress,
      });
    this.maxConcurrency = maxConcurrency;
    this.timeouts = options.timeouts;
    this.injectedFetch = options.fetch;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.delayOptions = options.retryDelay ?? {};
    this.retryAfterCapMs = options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS;
    this.logger = options.logger;
    this.onWarning = options.onWarning;
    this.userAgent = options.userAgent ?? 'merchant-bulk';
    this.customers = new Customers(this);
    this.products = new Products(this);
    this.orders = new Orders(this);
    this.inventory = new Inventory(this);
    this.templates = new Templates(this);
    this.messages = new Messages(this);
  }

  /** GET /api/v2/me: the store that owns the token. */
  me(options: { signal?: AbortSignal | undefined } = {}): Promise<Store> {
    return this.request({ method: 'GET', path: '/api/v2/me', schema: Store, signal: options.signal });
  }

  /** Current rate-control figures. */
  progress(): RateProgress {
    return this.rate.progress();
  }

  /** Closes the connection pool (if a request opened one). */
  async close(): Promise<void> {
    if (this.transport !== undefined) await (await this.transport).agent.close();
  }

  /** Says `message` through onWarning, once per `key` for the life of the client. */
  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.onWarning?.(message);
  }

  /** The key a POST carries: the caller's, a fresh random one, or none (`false`). */
  keyFor(option: string | false | undefined): string | undefined {
    if (option === false) return undefined;
    return option ?? `mb1r_${randomUUID()}`;
  }

  /**
   * One API call with retries. Resolves with the parsed 2xx body; rejects with ApiError (the server
   * answered an error), ConnectionError / TimeoutError (no answer), OutcomeUnknownError (a
   * non-idempotent request may or may not have been applied) or ApiContractError (2xx body does not
   * match the schema).
   */
  async request<T>(options: RequestOptions<T>): Promise<T> {
    const label = `${options.method} ${options.path}`;
    const url = this.url(options.path, options.query);
    const idempotent = isIdempotentRequest(options.method, options.body, options.idempotencyKey);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.#token}`,
      'user-agent': this.userAgent,
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    let uncertain = false;

    for (let attempt = 1; ; attempt++) {
      const result = await this.rate.run(
        async (ticket) => {
          this.log(
            `-> ${options.method} ${url.slice(this.baseUrl.length)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
          );
          const started = this.clock.now();
          const outcome = await this.send(url, label, options.method, headers, body, options.signal);
          const ms = Math.round(this.clock.now() - started);
          if (outcome.ok) {
            this.rate.onSuccess(ticket);
            this.log(
              `<- ${outcome.status} ${label} ${ms} ms${outcome.requestId ? ` ${outcome.requestId}` : ''}`,
            );
          } else if (outcome.failure.kind === 'status' && outcome.failure.status === 429) {
            this.rate.onRateLimited(ticket, outcome.retryAfterMs);
            this.log(`<- 429 ${label} ${ms} ms: ${outcome.error.message}`);
          } else {
            if (outcome.failure.kind === 'status') this.rate.onSuccess(ticket);
            this.log(
              `<- ${outcome.failure.kind === 'status' ? outcome.failure.status : 'x'} ${label} ${ms} ms: ${outcome.error.message}`,
            );
          }
          return outcome;
        },
        options.signal,
        options.priority,
      );

      if (result.ok) {
        if (options.onText?.(bodyEnd(result.body)) === true) await letStartedRequestOut();
        const { status, requestId } = result;
        return this.parse(options.schema, { status, text: bodyText(result.body), requestId }, label);
      }

      const { failure, error } = result;
      if (
        options.goneAfterRetry !== undefined &&
        uncertain &&
        error instanceof NotFoundError &&
        options.method === 'DELETE'
      ) {
        return options.goneAfterRetry();
      }
      const action = shouldRetry(failure, { attempt, maxRetries: this.maxRetries, idempotent });
      if (action === 'outcome-unknown') throw new OutcomeUnknownError(label, error);
      if (action === 'fail') throw error;
      if (failure.kind !== 'not-sent' && !(failure.kind === 'status' && failure.status === 429)) {
        uncertain = true;
      }
      const delay = retryDelay(attempt, this.delayOptions, result.retryAfterMs);
      this.rate.onRetry();
      this.log(`   retrying ${label} in ${delay} ms`);
      await this.clock.sleep(delay, options.signal);
    }
  }

  private async send(
    url: string,
    label: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    let response: FetchResponse;
    let answer: ResponseBody;
    const transport = await this.loadTransport();
    // Never the run's shared signal itself: fetch would leave a listener on it per request.
    const linked = linkedSignal(signal);
    try {
      response = await transport.fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(linked.signal !== undefined ? { signal: linked.signal } : {}),
        dispatcher: transport.agent,
      });
      answer = response.bodyBytes !== undefined ? await response.bodyBytes() : await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const { failure, detail, timeout } = classifyTransportError(error);
      const sent = failure.kind !== 'not-sent' && failure.kind !== 'tls';
      const message = this.redact(detail);
      const wrapped = timeout
        ? new TimeoutError(`timed out: ${message}`, sent, label, { cause: error })
        : new ConnectionError(`connection failed: ${message}`, sent, label, { cause: error });
      return { ok: false, failure, error: wrapped, retryAfterMs: undefined };
    } finally {
      linked.release();
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, status: response.status, body: answer, requestId };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.redact(bodyText(answer)));
    } catch {
      parsed = undefined;
    }
    const error = ApiError.from(response.status, parsed, response.headers, label);
    const retryAfterMs =
      response.status === 429 || response.status === 503
        ? parseRetryAfter(response.headers.get('retry-after'), Date.now(), this.retryAfterCapMs)
        : undefined;
    return { ok: false, failure: { kind: 'status', status: response.status }, error, retryAfterMs };
  }

  /**
   * The keep-alive Agent and the fetch-like function to send with, on first use. The Agent goes to it
   * as `dispatcher`; an injected fetch (msw, a fake) may ignore it.
   */
  private loadTransport(): Promise<{ agent: Agent; fetch: FetchLike }> {
    this.transport ??= import('./transport.js').then(({ createAgent, undiciRequestLike }) => ({
      agent: createAgent(this.maxConcurrency, this.timeouts),
      fetch: this.injectedFetch ?? undiciRequestLike,
    }));
    return this.transport;
  }

  private parse<T>(
    schema: z.ZodType<T>,
    result: { status: number; text: string; requestId: string | undefined },
    label: string,
  ): T {
    let json: unknown;
    try {
      json = JSON.parse(result.text);
    } catch {
      const snippet = this.redact(result.text.slice(0, 60));
      throw new ApiContractError(
        label,
        '',
        `malformed JSON (${JSON.stringify(snippet)}...)`,
        result.requestId,
        result.status,
      );
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const path = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new ApiContractError(label, path, issue?.message ?? 'invalid', result.requestId, result.status);
  }

  private url(path: string, query: Record<string, QueryValue> | undefined): string {
    let url = `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
    if (query !== undefined) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
      const qs = params.toString();
      if (qs !== '') url += `?${qs}`;
    }
    return url;
  }

  /** Removes the token from any text that could reach a person (server echoes, error details). */
  private redact(text: string): string {
    return this.#token.length >= 4 ? text.split(this.#token).join('[redacted]') : text;
  }

  private log(line: string): void {
    if (this.logger !== undefined) this.logger(this.redact(line));
  }
}

/** `https://host/` and `https://host/api/v2` both become `https://host`. */
export function normalizeBaseUrl(baseUrl: string): string {
  let url = baseUrl.trim().replace(/\/+$/, '');
  url = url.replace(/\/api\/v2$/, '');
  return url;
}
