import { MbulkError } from '../errors/mbulk-error.js';

/**
 * A feed that cannot be downloaded as asked: a bad URL or header, a plain http:// address, a refused
 * redirect, a size or time limit reached, an error answer or a failed connection. Nothing was
 * imported. Category `usage` (exit code 2): the source given must change, or a limit be raised.
 */
export class FeedError extends MbulkError {
  static override readonly errorName: string = 'FeedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}
