import { SheetError } from '../sheets/sheet-error.js';
import { CliError } from './cli-error.js';
import { ExitCode } from './exit-code.js';

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
 * Turns any thrown value into one message and an exit code. Errors from the API layer carry
 * `exitCode` and `requestId` (see src/api/errors); anything unexpected is an internal error,
 * reported without a stack trace unless MBULK_DEBUG is set.
 */
export function describeError(error: unknown): DescribedError {
  if (error instanceof CliError) {
    return { message: error.message, exitCode: error.exitCode };
  }
  if (error instanceof SheetError) {
    // The file cannot be read at all: nothing was planned or written.
    return { message: error.message, exitCode: ExitCode.Usage, code: error.code };
  }
  if (error instanceof Error) {
    const e = error as Error & ApiLikeError;
    const exitCode = (typeof e.exitCode === 'number' ? e.exitCode : ExitCode.RowsFailed) as ExitCode;
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
