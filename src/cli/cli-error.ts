import { ExitCode } from './exit-code.js';

/** An error the CLI reports as one clear message (no stack trace) with a given exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.Usage,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The reason of the abort signal commands get when the user pressed Ctrl-C or SIGTERM arrived. */
export class InterruptedError extends Error {
  readonly exitCode = ExitCode.Interrupted;
  constructor(readonly signal: string) {
    super(`interrupted (${signal})`);
    this.name = 'InterruptedError';
  }
}
