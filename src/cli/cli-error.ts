import { categoryForExitCode, type FailureExitCode } from '../errors/exit-code.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { ExitCode } from './exit-code.js';

/**
 * An error the CLI reports as one clear message (no stack trace) with a given exit code: its
 * category is the one of that exit code (usage 2 by default, refused 3, interrupted 130…).
 */
export class CliError extends MbulkError {
  static override readonly errorName: string = 'CliError';
  constructor(message: string, exitCode: FailureExitCode = ExitCode.Usage) {
    super(categoryForExitCode(exitCode) ?? 'failed', message);
  }
}

/**
 * The reason of the abort signal commands get when the user pressed Ctrl-C or SIGTERM arrived.
 * Category `interrupted` (exit code 130).
 */
export class InterruptedError extends MbulkError {
  static override readonly errorName: string = 'InterruptedError';
  constructor(readonly signal: string) {
    super('interrupted', `interrupted (${signal})`);
  }
}
