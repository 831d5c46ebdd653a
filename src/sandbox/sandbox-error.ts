import type { z } from 'zod';
import { categoryOfApiErrorType } from '../errors/error-category.js';
import { MbulkError } from '../errors/mbulk-error.js';
import type { ErrorType } from '../schema/index.js';

const STATUS: Record<ErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  api_error: 500,
};

/**
 * An API error the sandbox answers with the spec's error envelope. Thrown by the store's rules and
 * turned into a response by the app; `request_id` is filled in by the app. Its category is the one
 * the client's `ApiError` of the same type has: `unreachable` for a rejected token, else `failed`.
 */
export class SandboxError extends MbulkError {
  static override readonly errorName: string = 'SandboxError';
  readonly status: number;
  constructor(
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(categoryOfApiErrorType(type), message);
    this.status = STATUS[type];
  }

  /** The error envelope body, as the spec defines it. */
  toBody(requestId: string): { error: Record<string, string> } {
    const error: Record<string, string> = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error['param'] = this.param;
    error['request_id'] = requestId;
    return { error };
  }
}

/** 400 invalid_request_error / invalid_parameter naming `param`. */
export function invalidParam(
  param: string | undefined,
  message: string,
  code = 'invalid_parameter',
): SandboxError {
  return new SandboxError('invalid_request_error', code, message, param);
}

/** 404 not_found_error / resource_missing. */
export function notFound(message: string, param?: string): SandboxError {
  return new SandboxError('not_found_error', 'resource_missing', message, param);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * The first zod issue as a 400: `param` is the dotted path (`variants.1.price`), the code is
 * `missing_parameter` when a required field is absent and `invalid_parameter` otherwise.
 */
export function fromZodError(error: z.ZodError, input: unknown): SandboxError {
  const issue = error.issues[0];
  if (issue === undefined) return invalidParam(undefined, 'invalid request body');
  let path: PropertyKey[] = [...issue.path];
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    if (key !== undefined) path = [...path, key];
    message = `unknown property${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
  }
  const param = path.length > 0 ? path.map(String).join('.') : undefined;
  const missing = issue.code === 'invalid_type' && path.length > 0 && valueAt(input, path) === undefined;
  const text = param !== undefined ? `${param}: ${message}` : message;
  return invalidParam(param, text, missing ? 'missing_parameter' : 'invalid_parameter');
}
