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
 * The InvalidRowsError of a plan that has invalid rows and was not planned with `--skip-invalid`
 * (`nothing was <done>: N invalid row(s); fix them (see the report) or plan with --skip-invalid`),
 * or undefined when it may be written.
 */
export function invalidRowsError(
  issues: readonly RowIssue[],
  plan: { skipInvalid: boolean; invalid: number; done: string; report: string },
): InvalidRowsError | undefined {
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length === 0 || plan.skipInvalid) return undefined;
  return new InvalidRowsError(
    `nothing was ${plan.done}: ${plan.invalid} invalid row(s); fix them (see ${plan.report}) or plan with --skip-invalid`,
    errors,
  );
}
