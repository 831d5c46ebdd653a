import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultInjector, type FaultDecision, type FaultOptions } from './faults.js';
import { IdempotencyTable } from './idempotency.js';
import { RequestLog, type RequestLogEntry, type RequestOutcome } from './request-log.js';
import { invalidParam, notFound, SandboxError } from './sandbox-error.js';
import type { ListQuery, SandboxStore } from './store.js';

/** A request as the app sees it (the server and the msw adapter build it). */
export interface SandboxRequest {
  method: string;
  /** Path and query (`/api/v2/products?limit=10`); an absolute URL also works. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
}

/** A response, or an instruction to close the connection without one (`drop`). */
export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Set when the connection must be destroyed instead of answered. */
  drop?: 'before' | 'after';
}

export interface SandboxAppOptions extends FaultOptions {
  /** Bearer token accepted on /api/v2 (default `sandbox-token`). */
  token?: string;
  /** Answer 404 on the endpoints the spec itself does not show (batch, inventory list, get-one). */
  strict?: boolean;
  /** The rate limit's clock in ms (default performance.now): tests drive the bucket with a fake one. */
  now?: () => number;
}

export const DEFAULT_TOKEN = 'sandbox-token';

/** A 1×1 transparent PNG: what every re-hosted image serves. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

interface Ctx {
  method: string;
  path: string;
  query: ListQuery;
  body: string;
  params: string[];
}

/** A handler returns a value to serialize, or `{ raw }` for an already serialized body. */
type Result = unknown;
interface Raw {
  raw: string;
}
type Handler = (ctx: Ctx) => Result;
interface Route {
  method: string;
  pattern: RegExp;
  /** Not shown by the spec: 404 in strict mode. */
  extra?: boolean;
  /** Writes (idempotency applies to POST). */
  handler: Handler;
}

function json(ctx: Ctx): unknown {
  if (ctx.body.trim() === '') return undefined;
  try {
    return JSON.parse(ctx.body) as unknown;
  } catch {
    throw invalidParam(undefined, 'request body is not valid JSON');
  }
}

/** A path segment, percent-decoded; a malformed escape (`%E0%A4%A`) names no resource: 404. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw notFound(`no resource with id ${raw}`);
  }
}

function seg(ctx: Ctx, i: number): string {
  return decodeSegment(ctx.params[i] ?? '');
}

function isRaw(value: unknown): value is Raw {
  return (
    typeof value === 'object' && value !== null && 'raw' in value && typeof (value as Raw).raw === 'string'
  );
}

/**
 * The sandbox's request handler, with no port: routing, auth, error envelope, x-request-id,
 * idempotency, faults and the request log. The HTTP server (server.ts) and the msw handlers
 * (msw-handlers.ts) are thin adapters around `handle`.
 */
export class SandboxApp {
  readonly token: string;
  readonly log = new RequestLog();
  private readonly faults: FaultInjector;
  private readonly strict: boolean;
  private readonly routes: Route[];
  private requestCounter = 0;

  constructor(
    readonly store: SandboxStore,
    options: SandboxAppOptions = {},
  ) {
    this.token = options.token ?? DEFAULT_TOKEN;
    this.strict = options.strict ?? false;
    this.faults = new FaultInjector(options, options.now);
    const s = store;
    const id = '([^/]+)';
    this.routes = [
      { method: 'GET', pattern: /^\/api\/v2\/me$/, handler: () => s.getMe() },
      {
        method: 'GET',
        pattern: /^\/api\/v2\/products$/,
        handler: (c) => ({ raw: s.listProductsJson(c.query) }),
      },
      { method: 'POST', pattern: /^\/api\/v2\/products$/, handler: (c) => s.createProduct(json(c)) },
      {
        method: 'GET',
        pattern: new RegExp(`^/api/v2/products/${id}$`),
        extra: true,
        handler: (c) => ({ raw: s.getProductJson(seg(c, 0)) }),
      },
      {
        method: 'PATCH',
        pattern: new RegExp(`^/api/v2/products/${id}$`),
        handler: (c) => s.updateProduct(seg(c, 0), json(c)),
      },
      {
        method: 'DELETE',
        pattern: new RegExp(`^/api/v2/products/${id}$`),
        handler: (c) => s.deleteProduct(seg(c, 0)),
      },
      {
        method: 'GET',
        pattern: /^\/api\/v2\/customers$/,
        handler: (c) => ({ raw: s.listCustomersJson(c.query) }),
      },
      { method: 'POST', pattern: /^\/api\/v2\/customers$/, handler: (c) => s.createCustomer(json(c)) },
      {
        method: 'GET',
        pattern: new RegExp(`^/api/v2/customers/${id}$`),
        extra: true,
        handler: (c) => s.getCustomer(seg(c, 0)),
      },
      {
        method: 'PATCH',
        pattern: new RegExp(`^/api/v2/customers/${id}$`),
        handler: (c) => s.updateCustomer(seg(c, 0), json(c)),
      },
      { method: 'GET', pattern: /^\/api\/v2\/orders$/, handler: (c) => ({ raw: s.listOrdersJson(c.query) }) },
      {
        method: 'GET',
        pattern: /^\/api\/v2\/inventory_items$/,
        extra: true,
        handler: (c) => ({ raw: s.listInventoryItemsJson(c.query) }),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v2\/inventory_items\/batch_update$/,
        extra: true,
        handler: (c) => s.batchUpdateInventory(json(c)),
      },
      {
        method: 'PATCH',
        pattern: new RegExp(`^/api/v2/inventory_items/${id}$`),
        handler: (c) => s.updateInventoryItem(seg(c, 0), json(c)),
      },
      {
        method: 'GET',
        pattern: /^\/api\/v2\/message_templates$/,
        handler: (c) => ({ raw: s.listTemplatesJson(c.query) }),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v2\/message_templates$/,
        handler: (c) => s.createTemplate(json(c)),
      },
      { method: 'POST', pattern: /^\/api\/v2\/messages$/, handler: (c) => s.sendMessage(json(c)) },
    ];
  }

  private newRequestId(): string {
    return `req_${(++this.requestCounter).toString(36)}${randomBytes(6).toString('hex')}`;
  }

  requestLog(): RequestLogEntry[] {
    return this.log.list();
  }

  clearRequestLog(): void {
    this.log.clear();
  }

  private respond(
    status: number,
    body: string | Uint8Array,
    requestId: string,
    extra: Record<string, string> = {},
  ): SandboxResponse {
    const contentType = typeof body === 'string' ? 'application/json; charset=utf-8' : 'image/png';
    return { status, body, headers: { 'content-type': contentType, 'x-request-id': requestId, ...extra } };
  }

  private errorResponse(error: SandboxError, requestId: string): SandboxResponse {
    return this.respond(error.status, JSON.stringify(error.toBody(requestId)), requestId, error.headers);
  }

  private run(route: Route, ctx: Ctx, requestId: string): SandboxResponse {
    try {
      const result = route.handler(ctx);
      return this.respond(200, isRaw(result) ? result.raw : JSON.stringify(result), requestId);
    } catch (error) {
      if (error instanceof SandboxError) return this.errorResponse(error, requestId);
      const wrapped = new SandboxError(
        'api_error',
        'internal_error',
        `sandbox bug: ${(error as Error).message}`,
      );
      return this.errorResponse(wrapped, requestId);
    }
  }

  /** Handles one request. Never throws. */
  async handle(req: SandboxRequest): Promise<SandboxResponse> {
    const started = performance.now();
    const requestId = this.newRequestId();
    const url = new URL(req.url, 'http://sandbox.local');
    const path = url.pathname;
    const pathWithQuery = path + url.search;
    const method = req.method.toUpperCase();
    const idempotencyKey = req.headers['idempotency-key'] ?? null;
    const finish = (res: SandboxResponse, outcome: RequestOutcome, droppedAfter = false): SandboxResponse => {
      const entry: RequestLogEntry = {
        method,
        path: pathWithQuery,
        status: res.drop === 'before' ? 0 : res.status,
        idempotency_key: idempotencyKey,
        ms: Math.round((performance.now() - started) * 10) / 10,
        outcome,
        request_id: res.headers['x-request-id'] ?? requestId,
        at: new Date().toISOString(),
      };
      if (droppedAfter) entry.dropped = 'after';
      this.log.add(entry);
      return res;
    };

    if (path.startsWith('/__sandbox/')) return this.admin(method, path, url, req.body, requestId);

    if (path !== '/api/v2' && !path.startsWith('/api/v2/')) {
      return finish(this.errorResponse(notFound(`no route ${method} ${path}`), requestId), 'rejected');
    }
    const auth = req.headers['authorization'] ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match === null || match[1] !== this.token) {
      const e = new SandboxError(
        'authentication_error',
        'invalid_token',
        match === null ? 'missing bearer token' : 'invalid token',
      );
      return finish(this.errorResponse(e, requestId), 'rejected');
    }

    const decision: FaultDecision = this.faults.decide();
    if (decision.kind === 'rate_limited') {
      const e = new SandboxError(
        'rate_limit_error',
        'rate_limited',
        'too many requests; retry later',
        undefined,
        {
          'retry-after': String(decision.retryAfterSeconds),
        },
      );
      return finish(this.errorResponse(e, requestId), 'rate_limited');
    }
    const latency = this.faults.latency();
    // A read is served during its latency, as a real API's response time includes its own work:
    // a GET answers after max(latency, work), not latency + work (a page of 100 products is ~5 ms
    // of CPU here, a quarter of a 20 ms latency). Writes still act after the delay.
    const servedWithin = method === 'GET' && decision.kind === 'none' ? latency : 0;
    const latencyFrom = performance.now();
    if (latency > 0 && servedWithin === 0) await sleep(latency);
    if (decision.kind === 'fail') {
      const e = new SandboxError(
        'api_error',
        'internal_error',
        'injected failure (fail rate); nothing was changed',
      );
      return finish(this.errorResponse(e, requestId), 'faulted_before');
    }
    if (decision.kind === 'drop_before') {
      return finish(
        { status: 0, headers: { 'x-request-id': requestId }, body: '', drop: 'before' },
        'dropped_before',
      );
    }

    let route: Route | undefined;
    let params: string[] = [];
    for (const r of this.routes) {
      if (r.method !== method) continue;
      const m = r.pattern.exec(path);
      if (m === null) continue;
      route = r;
      params = m.slice(1);
      break;
    }
    let res: SandboxResponse;
    let outcome: RequestOutcome;
    if (route === undefined || (route.extra === true && this.strict)) {
      res = this.errorResponse(notFound(`no route ${method} ${path}`), requestId);
      outcome = 'rejected';
    } else {
      const ctx: Ctx = { method, path, query: url.searchParams, body: req.body, params };
      ({ res, outcome } = this.runIdempotent(route, ctx, requestId, idempotencyKey));
    }
    // Encoded within the latency too: a page's body is a string of ~260 KB made of pieces, and
    // flattening and encoding it after the delay added ~2 ms to every page of a cursor chain.
    if (servedWithin > 0 && typeof res.body === 'string')
      res = { ...res, body: Buffer.from(res.body, 'utf8') };
    const left = servedWithin - (performance.now() - latencyFrom);
    if (left > 0) await sleep(left);
    if (decision.kind === 'drop_after') {
      // A replay (or a rejection) changed nothing, whatever happens to its answer: the log says so.
      if (outcome === 'replayed' || outcome === 'rejected')
        return finish({ ...res, drop: 'after' }, outcome, true);
      return finish({ ...res, drop: 'after' }, 'dropped_after');
    }
    return finish(res, outcome);
  }

  /** POST + Idempotency-Key: replay the first response, refuse the key with another body. */
  private runIdempotent(
    route: Route,
    ctx: Ctx,
    requestId: string,
    idempotencyKey: string | null,
  ): { res: SandboxResponse; outcome: RequestOutcome } {
    if (ctx.method !== 'POST' || idempotencyKey === null) {
      const res = this.run(route, ctx, requestId);
      return { res, outcome: res.status < 400 ? 'applied' : 'rejected' };
    }
    const table = this.store.idempotency;
    const key = IdempotencyTable.keyOf(this.token, `${ctx.method} ${ctx.path}`, idempotencyKey);
    const fingerprint = IdempotencyTable.fingerprintOf(ctx.body);
    const previous = table.get(key);
    if (previous !== undefined) {
      if (previous.fingerprint !== fingerprint) {
        const e = invalidParam(
          undefined,
          'this Idempotency-Key was already used with a different request body',
          'idempotency_key_reused',
        );
        return { res: this.errorResponse(e, requestId), outcome: 'rejected' };
      }
      const res = this.respond(previous.status, previous.body, previous.request_id, {
        'idempotent-replayed': 'true',
      });
      return { res, outcome: 'replayed' };
    }
    const res = this.run(route, ctx, requestId);
    if (res.status < 500) {
      table.set({
        key,
        fingerprint,
        status: res.status,
        body: res.body as string,
        request_id: requestId,
        at: Date.now(),
      });
      this.store.changed();
    }
    return { res, outcome: res.status < 400 ? 'applied' : 'rejected' };
  }

  /** Admin routes under /__sandbox (no auth, no faults, not logged). */
  private admin(method: string, path: string, url: URL, body: string, requestId: string): SandboxResponse {
    try {
      const ctx: Ctx = { method, path, query: url.searchParams, body, params: [] };
      const ok = (value: unknown) => this.respond(200, JSON.stringify(value), requestId);
      if (method === 'GET' && path.startsWith('/__sandbox/images/')) return this.respond(200, PNG, requestId);
      const review = /^\/__sandbox\/templates\/([^/]+)\/review$/.exec(path);
      if (method === 'POST' && review !== null) {
        return ok(this.store.reviewTemplate(decodeSegment(review[1] ?? ''), json(ctx)));
      }
      if (path === '/__sandbox/requests') {
        if (method === 'GET') return ok(this.log.list());
        if (method === 'DELETE') {
          this.log.clear();
          return ok({ cleared: true });
        }
      }
      if (method === 'POST' && path === '/__sandbox/orders') return ok(this.store.upsertOrders(json(ctx)));
      const orderAction = /^\/__sandbox\/orders\/([^/]+)\/(refund|cancel)$/.exec(path);
      if (method === 'POST' && orderAction !== null) {
        const id = decodeSegment(orderAction[1] ?? '');
        return ok(
          orderAction[2] === 'refund' ? this.store.refundOrder(id, json(ctx)) : this.store.cancelOrder(id),
        );
      }
      if (method === 'POST' && path === '/__sandbox/clock') return ok(this.store.setClock(json(ctx)));
      if (method === 'GET' && path === '/__sandbox/state') {
        // Bytes, not a string: a big store's state is longer than a V8 string can be.
        return this.respond(200, this.store.stateBytes(), requestId, {
          'content-type': 'application/json; charset=utf-8',
        });
      }
      if (method === 'GET' && path === '/__sandbox/messages') return ok(this.store.messages());
      throw notFound(`no route ${method} ${path}`);
    } catch (error) {
      if (error instanceof SandboxError) return this.errorResponse(error, requestId);
      // `handle` never throws: an unexpected error still gets the envelope, not a closed socket.
      const wrapped = new SandboxError(
        'api_error',
        'internal_error',
        `sandbox bug: ${error instanceof Error ? error.message : String(error)}`,
      );
      return this.errorResponse(wrapped, requestId);
    }
  }

  /**
   * Fetch-style adapter (used by the msw handlers). A dropped connection becomes
   * `Response.error()`, which makes `fetch` reject with a network error.
   */
  async handleFetch(request: Request): Promise<Response> {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const url = new URL(request.url);
    const res = await this.handle({
      method: request.method,
      url: url.pathname + url.search,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text(),
    });
    if (res.drop !== undefined) return Response.error();
    return new Response(res.body, { status: res.status, headers: res.headers });
  }
}
