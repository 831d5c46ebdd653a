/** Exit codes of every command (DESIGN.md, CLI contract). */
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
