import type { ErrorCategory } from './error-category.js';
import { isErrorCategory } from './error-category.js';

/** Exit codes of every command (README, Exit codes). */
export const ExitCode = {
  /** Done. */
  Ok: 0,
  /** Finished with failed or invalid rows. */
  RowsFailed: 1,
  /** Usage or configuration error. */
  Usage: 2,
  /** Refused: guardrail, drift, confirmation declined. */
  Refused: 3,
  /** The API could not be reached or rejected the token. */
  Unreachable: 4,
  /** A local failure: disk full, read-only file system, permission denied, I/O error. */
  LocalFailure: 5,
  /** Interrupted (Ctrl-C, SIGTERM): what was written is journaled; the run is resumable. */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
/** The exit code of a failure: any but 0. */
export type FailureExitCode = Exclude<ExitCode, typeof ExitCode.Ok>;

/** The one map from an error's category to the exit code the CLI ends with. */
const EXIT_CODE_BY_CATEGORY: Readonly<Record<ErrorCategory, FailureExitCode>> = {
  failed: ExitCode.RowsFailed,
  usage: ExitCode.Usage,
  refused: ExitCode.Refused,
  unreachable: ExitCode.Unreachable,
  local: ExitCode.LocalFailure,
  interrupted: ExitCode.Interrupted,
};

/** The exit code of a category. */
export function exitCodeFor(category: ErrorCategory): FailureExitCode {
  return EXIT_CODE_BY_CATEGORY[category];
}

/** The category whose exit code is `code` (the inverse of `exitCodeFor`); undefined for 0 or an unknown code. */
export function categoryForExitCode(code: number): ErrorCategory | undefined {
  const found = Object.entries(EXIT_CODE_BY_CATEGORY).find(([, c]) => c === code);
  return found === undefined ? undefined : (found[0] as ErrorCategory);
}

/**
 * The category of any thrown value: an MbulkError's own (from any copy of this package), else the
 * category of the exit code a foreign error carries (`{ exitCode: 4 }`), else undefined.
 */
export function categoryOf(error: unknown): ErrorCategory | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { category, exitCode } = error as { category?: unknown; exitCode?: unknown };
  if (isErrorCategory(category)) return category;
  return typeof exitCode === 'number' ? categoryForExitCode(exitCode) : undefined;
}

/** Whether an error means the API could not be reached or rejected the token (it stops a whole apply). */
export function isUnreachable(error: unknown): boolean {
  return categoryOf(error) === 'unreachable';
}
