import { MbulkError } from './mbulk-error.js';

/**
 * A file merchant-bulk keeps its own state in is missing, damaged or not of the shape it writes:
 * a run's `run.json` or `backup.json`, the export watermarks (`exports.json`), the remembered feeds
 * (`sources.json`), the sandbox's state or seed. `file` names it and the message says what to do;
 * nothing was written. Category `usage` (exit code 2).
 */
export class StateFileError extends MbulkError {
  static override readonly errorName: string = 'StateFileError';
  constructor(
    /** The file at fault. */
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('usage', message, options);
  }
}
