import { MbulkError } from '../errors/mbulk-error.js';
import { SheetError } from '../sheets/sheet-error.js';
import { CliError } from './cli-error.js';
import { ExitCode, exitCodeFor } from './exit-code.js';

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
export function describeError(error: unknown): DescribedError {
  if (error instanceof CliError) {
    return { message: error.message, exitCode: error.exitCode };
  }
  if (SheetError.is(error)) {
    // The file cannot be read at all: nothing was planned or written.
    return { message: error.message, exitCode: exitCodeFor(error.category), code: error.code };
  }
  const local = localFailure(error);
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

/** A file-system error escaping a command (writing run.json, a results file…): exit 5, one line naming the path. */
function localFailure(error: unknown): DescribedError | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as Error & { code?: unknown; syscall?: unknown; path?: unknown; exitCode?: unknown };
  if (MbulkError.is(error) ? error.category === 'local' : e.exitCode === ExitCode.LocalFailure) {
    return { message: e.message, exitCode: ExitCode.LocalFailure, code: String(e.code ?? 'local_failure') };
  }
  if (
    MbulkError.is(error) ||
    typeof e.code !== 'string' ||
    typeof e.syscall !== 'string' ||
    e.exitCode !== undefined
  )
    return undefined;
  const what = LOCAL_CODES[e.code];
  if (what === undefined) return undefined;
  const where = typeof e.path === 'string' ? ` ${e.path}` : '';
  return {
    message: `cannot ${e.syscall}${where}: ${what} (${e.code}); fix it and run the command again (an interrupted apply continues with mbulk runs resume RUN)`,
    exitCode: ExitCode.LocalFailure,
    code: e.code,
  };
}
