import { categoryOf, exitCodeFor } from '../errors/exit-code.js';

/** Progress of a job, reported through callbacks: the CLI renders it (listr2 or plain lines). */
export interface JobProgress {
  phase: 'read' | 'fetch' | 'plan' | 'apply' | 'results' | 'export';
  /** Units done in this phase (rows, items, operations, pages). */
  done: number;
  total?: number | undefined;
  failed?: number | undefined;
  /** Operations per second, when applying. */
  rate?: number | undefined;
  etaSeconds?: number | undefined;
  /** Writes sent and not yet answered (when applying). */
  inFlight?: number | undefined;
  message?: string | undefined;
}

export interface JobCallbacks {
  onProgress?: ((progress: JobProgress) => void) | undefined;
  /** Things the user should know (fallbacks, encoding guesses, ignored columns). */
  onWarning?: ((message: string) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** Why an apply stopped early: the error that aborted it and the exit code it calls for. */
export interface AbortCause {
  message: string;
  /** 4 when the API could not be reached or rejected the token, 5 on a local failure (disk full…), else 1. */
  exitCode: number;
  /** The error that stopped the apply (not enumerable: JSON summaries leave it out). */
  readonly error?: unknown;
}

/** The abort cause of an apply that stopped on a fatal error (undefined when it did not). */
export function abortCauseOf(summary: { status: string; fatalError?: unknown }): AbortCause | undefined {
  if (summary.status !== 'aborted') return undefined;
  const e = summary.fatalError as { message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(summary.fatalError);
  const category = categoryOf(summary.fatalError);
  const fatal = category === 'unreachable' || category === 'local' ? category : 'failed';
  const cause: AbortCause = { message, exitCode: exitCodeFor(fatal) };
  // The error itself, for advice on what to check; not enumerable, so JSON summaries skip it.
  Object.defineProperty(cause, 'error', { value: summary.fatalError, enumerable: false });
  return cause;
}

/** `{ abortedBy }` when the apply was aborted by a fatal error, else `{}` (to spread into a summary). */
export function abortFields(summary: { status: string; fatalError?: unknown }): { abortedBy?: AbortCause } {
  const cause = abortCauseOf(summary);
  return cause === undefined ? {} : { abortedBy: cause };
}

/** A reader warning as shown to people: prefixed with the file unless the message names it already. */
export function fileWarning(file: string, message: string): string {
  return message.includes(file) ? message : `${file}: ${message}`;
}
