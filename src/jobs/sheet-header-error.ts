import type { RowIssue } from '../mapping/row-issue.js';
import { MbulkError } from '../errors/mbulk-error.js';

/** A sheet that cannot be imported at all (a required column is missing): category `usage`, nothing planned. */
export class SheetHeaderError extends MbulkError {
  static override readonly errorName: string = 'SheetHeaderError';
  constructor(
    message: string,
    readonly issues: RowIssue[],
  ) {
    super('usage', message);
  }
}
