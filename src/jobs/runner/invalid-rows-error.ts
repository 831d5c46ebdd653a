import { MbulkError } from '../../errors/mbulk-error.js';
import type { RowIssue } from '../../mapping/row-issue.js';

/** Invalid rows in a plan that does not allow skipping them: nothing may be sent (exit 1). */
export class InvalidRowsError extends MbulkError {
  static override readonly errorName: string = 'InvalidRowsError';
  constructor(
    message: string,
    readonly issues: RowIssue[],
  ) {
    super('failed', message);
  }
}

/**
 * Throws InvalidRowsError when the plan has invalid rows and was not planned with `--skip-invalid`:
 * `nothing was <done>: N invalid row(s); fix them (see the report) or plan with --skip-invalid`.
 */
export function refuseInvalidRows(
  issues: readonly RowIssue[],
  plan: { skipInvalid: boolean; invalid: number; done: string; report: string },
): void {
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length === 0 || plan.skipInvalid) return;
  throw new InvalidRowsError(
    `nothing was ${plan.done}: ${plan.invalid} invalid row(s); fix them (see ${plan.report}) or plan with --skip-invalid`,
    errors,
  );
}
