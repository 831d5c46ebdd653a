/**
 * What kind of failure an error is. The CLI turns the category into its exit code in one place
 * (src/errors/exit-code.ts, `exitCodeFor`): `usage` 2, `refused` 3, `unreachable` 4, `local` 5,
 * `failed` 1, `interrupted` 130.
 */
export type ErrorCategory =
  /** Bad options, configuration or input that cannot be read: nothing was planned or written. */
  | 'usage'
  /** A guardrail refused (drift, another store, a limit, a lock held by another process): nothing was written. */
  | 'refused'
  /** The API could not be reached, or it rejected the token. */
  | 'unreachable'
  /** The disk or file system refused (disk full, read-only, permission denied, I/O error). */
  | 'local'
  /** Anything else that failed: a row, an operation, an answer that does not match the API. */
  | 'failed'
  /** Stopped by the user (Ctrl-C) or SIGTERM: what was written is journaled; the run is resumable. */
  | 'interrupted';

/** Every category, in exit-code order. */
export const ERROR_CATEGORIES: readonly ErrorCategory[] = [
  'failed',
  'usage',
  'refused',
  'unreachable',
  'local',
  'interrupted',
];

/** Whether `value` names a category. */
export function isErrorCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(value);
}

/**
 * The category of an API error envelope's `type` (the client's `ApiError`, the sandbox's
 * `SandboxError`): a rejected token (`authentication_error`, `permission_error`) is `unreachable`
 * (exit code 4: the API cannot be used with it); any other answer is `failed`.
 */
export function categoryOfApiErrorType(type: string): ErrorCategory {
  return type === 'authentication_error' || type === 'permission_error' ? 'unreachable' : 'failed';
}
