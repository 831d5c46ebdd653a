import { MbulkError } from '../errors/mbulk-error.js';
import { SheetError } from '../sheets/sheet-error.js';
import { CliError } from './cli-error.js';
import { ExitCode, exitCodeFor } from './exit-code.js';

/** The run a command is applying, once known: a local failure's message names it and its journal. */
export interface RunInProgress {
  id: string;
  journal: string;
  /**
   * The command that continues the run from where it is now (default: `mbulk runs resume ID`
   * once written to, else none): `mbulk apply ID` with its flags while the run is still planned.
   */
  continueWith?: (() => string) | undefined;
}

export interface DescribedError {
  message: string;
  exitCode: ExitCode;
  type?: string;
  code?: string;
  param?: string;
  requestId?: string;
}

interface ApiLikeError {
  status?: number;
  type?: string;
  code?: string;
  param?: string;
  requestId?: string;
  exitCode?: number;
}

/**
 * Turns any thrown value into one message and an exit code. Every library error is an MbulkError:
 * its category gives the exit code (`exitCodeFor`); errors from the API layer also name their
 * `requestId` (see src/api/errors). Anything unexpected is an internal error (exit 1), reported
 * without a stack trace unless MBULK_DEBUG is set.
 */
export function describeError(error: unknown, run?: RunInProgress): DescribedError {
  if (error instanceof CliError) {
    return { message: error.message, exitCode: error.exitCode };
  }
  if (SheetError.is(error)) {
    // The file cannot be read at all: nothing was planned or written.
    return { message: error.message, exitCode: exitCodeFor(error.category), code: error.code };
  }
  const local = localFailure(error, run);
  if (local) return local;
  if (error instanceof Error) {
    const e = error as Error & ApiLikeError;
    const exitCode = MbulkError.is(error)
      ? exitCodeFor(error.category)
      : ((typeof e.exitCode === 'number' ? e.exitCode : ExitCode.RowsFailed) as ExitCode);
    const described: DescribedError = { message: e.message, exitCode };
    if (e.type !== undefined) described.type = e.type;
    if (e.code !== undefined) described.code = e.code;
    if (e.param !== undefined) described.param = e.param;
    if (e.requestId !== undefined) described.requestId = e.requestId;
    if (process.env['MBULK_DEBUG'] && e.stack) described.message += `\n${e.stack}`;
    return described;
  }
  return { message: String(error), exitCode: ExitCode.RowsFailed };
}

/** Errno codes of a local failure (exit 5): the disk or the file system refused, not the input or the API. */
const LOCAL_CODES: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'I/O error',
};

type ErrnoLike = Error & { code?: unknown; syscall?: unknown; path?: unknown; exitCode?: unknown };

/**
 * A file-system error escaping a command (writing run.json, a results file, an export…): exit 5,
 * one line naming the path and, during an apply, the run and its journal. An error that wraps one
 * (`cannot write FILE` with the errno in `cause`, as the sheet and export writers throw) counts too.
 */
function localFailure(error: unknown, run: RunInProgress | undefined): DescribedError | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as ErrnoLike;
  if (MbulkError.is(error) ? error.category === 'local' : e.exitCode === ExitCode.LocalFailure) {
    return { message: e.message, exitCode: ExitCode.LocalFailure, code: String(e.code ?? 'local_failure') };
  }
  if (MbulkError.is(error) || e.exitCode !== undefined) return undefined;
  const errno = localErrno(e);
  if (errno === undefined) return undefined;
  const what = LOCAL_CODES[errno.code]!;
  const where = typeof errno.path === 'string' ? ` ${errno.path}` : '';
  // A wrapper names the file itself ("cannot write FILE: …"); a bare errno is named by its call.
  const failed =
    errno === e
      ? `cannot ${String(e.syscall)}${where}`
      : e.message.endsWith(`: ${errno.message}`)
        ? e.message.slice(0, -(errno.message.length + 2))
        : e.message;
  const next =
    run === undefined
      ? 'fix it and run the command again'
      : `run ${run.id} stopped; its journal ${run.journal} records what was sent. Fix it, then continue with: mbulk runs resume ${run.id}`;
  return {
    message: `${failed}: ${what} (${errno.code}); ${next}`,
    exitCode: ExitCode.LocalFailure,
    code: errno.code,
  };
}

/** ERROR itself, or the first error of its `cause` chain, when it is a local errno (LOCAL_CODES). */
function localErrno(error: ErrnoLike): (ErrnoLike & { code: string }) | undefined {
  let cur: unknown = error;
  for (let depth = 0; depth < 4 && cur instanceof Error; depth++) {
    const e = cur as ErrnoLike;
    if (typeof e.code === 'string' && typeof e.syscall === 'string' && LOCAL_CODES[e.code] !== undefined)
      return e as ErrnoLike & { code: string };
    if (MbulkError.is(cur) && depth > 0) return undefined;
    cur = e.cause;
  }
  return undefined;
}
