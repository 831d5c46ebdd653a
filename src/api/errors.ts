import { categoryOfApiErrorType } from '../errors/error-category.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { ErrorEnvelope } from '../schema/common.js';
import type { ErrorType } from '../schema/common.js';

/** What every error of the API layer carries besides its message. */
export interface ApiErrorFields {
  status?: number | undefined;
  type?: string | undefined;
  code?: string | undefined;
  param?: string | undefined;
  requestId?: string | undefined;
  /** `METHOD /path` of the request (never the query string's secrets, never headers). */
  request?: string | undefined;
}

function withRequestId(message: string, requestId: string | undefined): string {
  return requestId === undefined ? message : `${message} (request ${requestId})`;
}

/**
 * Root of the errors the server answered with (the spec's error envelope). `ApiError.from` picks the
 * subclass from `error.type` (or from the status when the body is not an envelope). The message shown
 * to people always names the request id when the server sent one.
 */
export class ApiError extends MbulkError {
  static override readonly errorName: string = 'ApiError';
  readonly status: number;
  readonly type: string;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly request: string | undefined;
  /** The server's own message, without the request id decoration. */
  readonly apiMessage: string;

  constructor(status: number, fields: ApiErrorFields & { message: string; type: string }) {
    const param = fields.param === undefined ? '' : ` [param: ${fields.param}]`;
    const where = fields.request === undefined ? '' : `${fields.request}: `;
    // Authentication and permission errors: the token was rejected (unreachable, exit code 4).
    super(
      categoryOfApiErrorType(fields.type),
      withRequestId(`${where}${status} ${fields.type}: ${fields.message}${param}`, fields.requestId),
    );
    this.status = status;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.request = fields.request;
    this.apiMessage = fields.message;
  }

  /**
   * The one factory: the subclass for the envelope's `error.type`, falling back to the HTTP status
   * when the body is not a well-formed envelope (a proxy's HTML page, an empty body).
   */
  static from(
    status: number,
    body: unknown,
    headers?: { get(name: string): string | null },
    request?: string,
  ): ApiError {
    const headerId = headers?.get('x-request-id') ?? undefined;
    const parsed = ErrorEnvelope.safeParse(body);
    let fields: ApiErrorFields & { message: string; type: string };
    if (parsed.success) {
      const e = parsed.data.error;
      fields = {
        type: e.type,
        code: e.code,
        message: e.message,
        param: e.param,
        requestId: e.request_id || headerId,
        request,
      };
    } else {
      const loose = looseEnvelope(body);
      fields = {
        type: loose.type ?? typeForStatus(status),
        code: loose.code,
        message: loose.message ?? fallbackMessage(status, headers),
        param: loose.param,
        requestId: loose.requestId ?? headerId,
        request,
      };
    }
    const Subclass = SUBCLASS_BY_TYPE[fields.type as ErrorType] ?? subclassForStatus(status);
    return new Subclass(status, fields);
  }
}

/** 400: the request was invalid; `param` names the offending field (a dotted path). */
export class InvalidRequestError extends ApiError {
  static override readonly errorName: string = 'InvalidRequestError';
}
/** 401: missing or invalid token. Category `unreachable` (exit code 4). */
export class AuthenticationError extends ApiError {
  static override readonly errorName: string = 'AuthenticationError';
}
/** 403: reserved for scope checks. Category `unreachable` (exit code 4). */
export class PermissionError extends ApiError {
  static override readonly errorName: string = 'PermissionError';
}
/** 404: unknown id or route. */
export class NotFoundError extends ApiError {
  static override readonly errorName: string = 'NotFoundError';
}
/** 429: too many requests; the request was not applied. */
export class RateLimitError extends ApiError {
  static override readonly errorName: string = 'RateLimitError';
}
/** 5xx / `api_error`: the server failed. */
export class InternalServerError extends ApiError {
  static override readonly errorName: string = 'InternalServerError';
}

const SUBCLASS_BY_TYPE: Record<ErrorType, typeof ApiError> = {
  invalid_request_error: InvalidRequestError,
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  not_found_error: NotFoundError,
  rate_limit_error: RateLimitError,
  api_error: InternalServerError,
};

/**
 * The message of an answer without an error envelope. A redirect says where to: the client never
 * follows one (a POST redirected with 301/302 would be re-sent as a GET by fetch's rules), so a 3xx
 * almost always means a base URL that is not the API's own (http for https, a missing path).
 */
function fallbackMessage(status: number, headers?: { get(name: string): string | null }): string {
  if (status >= 300 && status < 400) {
    const location = headers?.get('location') ?? undefined;
    return `the server answered ${status}, a redirect${location !== undefined ? ` to ${location}` : ''}; mbulk does not follow redirects: use the address the API answers on as --base-url (or MERCHANT_API_URL)`;
  }
  return `the server answered ${status} without an error envelope`;
}

function typeForStatus(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function subclassForStatus(status: number): typeof ApiError {
  return SUBCLASS_BY_TYPE[typeForStatus(status)];
}

function looseEnvelope(body: unknown): {
  type?: string;
  code?: string;
  message?: string;
  param?: string;
  requestId?: string;
} {
  const error = (body as { error?: unknown } | null)?.error;
  if (error === null || typeof error !== 'object') return {};
  const e = error as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  const out: { type?: string; code?: string; message?: string; param?: string; requestId?: string } = {};
  const type = str(e['type']);
  if (type !== undefined) out.type = type;
  const code = str(e['code']);
  if (code !== undefined) out.code = code;
  const message = str(e['message']);
  if (message !== undefined) out.message = message;
  const param = str(e['param']);
  if (param !== undefined) out.param = param;
  const requestId = str(e['request_id']);
  if (requestId !== undefined) out.requestId = requestId;
  return out;
}

/**
 * The request could not be completed at the transport level (refused, reset, dropped). No status.
 * `sent` says whether the request may have reached the server (false only when the connection was
 * never established). Category `unreachable` (exit code 4).
 */
export class ConnectionError extends MbulkError {
  static override readonly errorName: string = 'ConnectionError';
  readonly status = undefined;
  readonly requestId = undefined;
  constructor(
    message: string,
    readonly sent: boolean,
    readonly request?: string,
    options?: { cause?: unknown },
  ) {
    super('unreachable', request === undefined ? message : `${request}: ${message}`, options);
  }
}

/** Connecting, or waiting for headers or body, took longer than the configured timeout. Category `unreachable`. */
export class TimeoutError extends ConnectionError {
  static override readonly errorName: string = 'TimeoutError';
}

/**
 * A request that is not safe to repeat (a POST without Idempotency-Key, a `delta_quantity` PATCH,
 * ...) failed after it may have reached the server: it may or may not have been applied. It is
 * never retried blindly; the caller must reconcile (re-read the entity) before deciding.
 */
export class OutcomeUnknownError extends MbulkError {
  static override readonly errorName: string = 'OutcomeUnknownError';
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly type = 'outcome_unknown';
  constructor(
    readonly request: string,
    override readonly cause: Error,
  ) {
    const requestId = (cause as { requestId?: unknown }).requestId;
    const rid = typeof requestId === 'string' ? requestId : undefined;
    // The cause's message already names its request id, if there was an answer at all.
    super(
      'failed',
      `${request}: outcome unknown (the request may or may not have been applied; not retried because it is not idempotent): ${cause.message}`,
      { cause },
    );
    this.requestId = rid;
    const status = (cause as { status?: unknown }).status;
    this.status = typeof status === 'number' ? status : undefined;
  }
}

/** A 2xx response whose body does not match the schema: the service and our schema disagree. */
export class ApiContractError extends MbulkError {
  static override readonly errorName: string = 'ApiContractError';
  readonly type = 'api_contract_error';
  constructor(
    readonly request: string,
    /** Dotted path of the first offending field (`data.3.price`), or '' for the whole body. */
    readonly path: string,
    readonly detail: string,
    readonly requestId?: string,
    readonly status?: number,
  ) {
    super(
      'failed',
      withRequestId(
        `${request}: response does not match the API schema at ${path === '' ? '(body)' : path}: ${detail}`,
        requestId,
      ),
    );
  }
}
