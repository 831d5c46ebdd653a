import type { OperationOutcome } from '../../apply/execute-plan.js';
import type { RowOutcome, RowResult } from '../../apply/results-file.js';
import type { ChangeFailure, ChangeOutcome } from './job-definition.js';

/**
 * Why an operation did not apply, in one wording for every kind: the API's code and message;
 * `outcome_unknown` (it was not resent; resume the run to settle it); `not_run` (the run stopped
 * first). Undefined when it is done.
 */
export function failureOf(outcome: OperationOutcome<unknown, unknown>): ChangeFailure | undefined {
  switch (outcome.status) {
    case 'done':
      return undefined;
    case 'failed':
      return {
        code: outcome.error.code ?? outcome.error.type ?? 'failed',
        message: outcome.error.message,
        requestId: outcome.error.requestId,
      };
    case 'unknown':
      return {
        code: 'outcome_unknown',
        message: `Outcome unknown (${outcome.error?.message ?? 'no answer'}); it was not resent. Resume the run to settle it.`,
        requestId: outcome.error?.requestId,
      };
    case 'not_run':
      return { code: 'not_run', message: 'Not applied: the run stopped first. Resume the run to apply it.' };
  }
}

/** The one change an operation carried (one row), with the operation's outcome. */
export function changeOf(
  outcome: OperationOutcome<unknown, unknown>,
  where: { sheet: string; row: number },
  success: ChangeOutcome['success'],
  extra?: ChangeOutcome['extra'],
): ChangeOutcome {
  const change: ChangeOutcome = { ...where, status: outcome.status, success };
  const failure = failureOf(outcome);
  if (failure) change.failure = failure;
  if (extra) change.extra = extra;
  return change;
}

/**
 * results.csv line of a change: its success outcome when done; failed with the code, message and
 * request id when failed or unknown; skipped (`not_run`) when the run stopped first.
 */
export function changeRowResult(label: string, change: ChangeOutcome): RowResult {
  const outcome: RowOutcome =
    change.status === 'done' ? change.success.outcome : change.status === 'not_run' ? 'skipped' : 'failed';
  const result: RowResult = { sheet: label, row: change.row, outcome };
  if (change.success.key !== undefined) result.key = change.success.key;
  if (change.success.entityId !== undefined) result.entityId = change.success.entityId;
  const failure = change.failure;
  if (change.status !== 'done' && failure) {
    result.errorCode = failure.code;
    result.errorMessage = failure.message;
    if (failure.requestId !== undefined) result.requestId = failure.requestId;
  }
  return result;
}
