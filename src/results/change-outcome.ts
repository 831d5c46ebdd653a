import type { OperationOutcome } from '../apply/execute-plan.js';
import type { RowOutcome, RowResult } from './row-result.js';

/**
 * What a done change did to its entity. The results.csv of a run from a sheet, whose outcome words
 * are fewer, shows `hidden`, `deleted` and `restored` rows as `updated`; the counts (and the entity
 * lines of a run without a sheet) keep them apart.
 */
export type ChangeWord = 'created' | 'updated' | 'hidden' | 'deleted' | 'restored';

/** An input row: the sheet label rows carry, and the row number as the spreadsheet shows it. */
export interface RowRef {
  sheet: string;
  row: number;
}

/** How one planned change (a row, an item of a batch, an entity) ended: one per entity it wrote. */
export interface ChangeOutcome {
  status: 'done' | 'failed' | 'unknown' | 'not_run';
  /** What it did, when done. */
  outcome: ChangeWord;
  /** Why it did not apply: set unless done. */
  failure?: ChangeFailure | undefined;
  /** The input rows it was planned from (its results.csv lines); none for an entity no row names. */
  rows: readonly RowRef[];
  /** results.csv `entity_id` of its rows. */
  entityId?: string | undefined;
  /** results.csv `key` of its rows (sku, phone, template name…). */
  key?: string | undefined;
  /** For results listed by entity (a run without an input sheet): its type and label. */
  entity?: { type: string; label: string } | undefined;
  /** Extra results.csv cells of its rows (see SheetResults.extraColumns). */
  extra?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface ChangeFailure {
  code: string;
  message: string;
  requestId?: string | undefined;
}

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

/**
 * What an apply left unwritten, by the key `keyOf` gives an operation's plan entry: `pending` (the
 * run stopped first: resume it) or `failed: code: message` (failed, or of unknown outcome). Done
 * operations are absent: the review page shows them `done`.
 */
export function notWrittenByKey<Op>(
  outcomes: readonly OperationOutcome<Op, unknown>[],
  keyOf: (op: Op) => string,
): Record<string, string> {
  return Object.fromEntries(
    outcomes.flatMap((o) => {
      const failure = failureOf(o);
      if (failure === undefined) return [];
      return [
        [keyOf(o.op), o.status === 'not_run' ? 'pending' : `failed: ${failure.code}: ${failure.message}`],
      ];
    }),
  );
}

/** The change an operation carried, with the operation's status and (unless done) why it did not apply. */
export function changeOf(
  outcome: OperationOutcome<unknown, unknown>,
  change: Omit<ChangeOutcome, 'status' | 'failure'>,
): ChangeOutcome {
  const failure = failureOf(outcome);
  return failure ? { ...change, status: outcome.status, failure } : { ...change, status: outcome.status };
}

/** results.csv's word for what a done change did (it has no `hidden`, `deleted` or `restored`). */
function rowOutcomeOf(change: ChangeOutcome): RowOutcome {
  return change.outcome === 'created' ? 'created' : 'updated';
}

/**
 * results.csv line of one input row of a change: its outcome when done; failed with the code,
 * message and request id when failed or unknown; skipped (`not_run`) when the run stopped first.
 */
export function changeRowResult(label: string, row: number, change: ChangeOutcome): RowResult {
  const outcome: RowOutcome =
    change.status === 'done' ? rowOutcomeOf(change) : change.status === 'not_run' ? 'skipped' : 'failed';
  const result: RowResult = { sheet: label, row, outcome };
  if (change.key !== undefined) result.key = change.key;
  if (change.entityId !== undefined) result.entityId = change.entityId;
  const failure = change.failure;
  if (change.status !== 'done' && failure) {
    result.errorCode = failure.code;
    result.errorMessage = failure.message;
    if (failure.requestId !== undefined) result.requestId = failure.requestId;
  }
  return result;
}
