import type { RowIssue } from '../mapping/row-issue.js';

/** A sheet that cannot be imported at all (a required column is missing): exit 2, nothing planned. */
export class SheetHeaderError extends Error {
  override readonly name = 'SheetHeaderError';
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly issues: RowIssue[],
  ) {
    super(message);
  }
}
