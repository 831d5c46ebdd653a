import { MbulkError } from './mbulk-error.js';

/**
 * A flag or option that cannot be used as given (`--max-changes must be…`, `--batch-size…`):
 * nothing was read, planned or written. Exit code 2.
 */
export class UsageError extends MbulkError {
  static override readonly errorName: string = 'UsageError';
  constructor(
    message: string,
    /** The option at fault, when one is (`max-changes`). */
    readonly option?: string,
  ) {
    super('usage', message);
  }
}
