import { MbulkError } from './mbulk-error.js';

/**
 * A guardrail refused: a plan refused when it was made (`--max-changes`, price jumps), a write
 * nobody consented to. Nothing was written. Exit code 3.
 */
export class RefusedError extends MbulkError {
  static override readonly errorName: string = 'RefusedError';
  constructor(message: string) {
    super('refused', message);
  }
}
