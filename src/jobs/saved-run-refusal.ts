import type { LockOwner } from '../apply/lock-file.js';
import type { RunDirectory } from '../apply/run-directory.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { Store } from '../schema/index.js';
import type { DriftedEntity } from './run-kind.js';

/** What every refusal of `applySavedRun` says: nothing was written. */
interface RefusalBase {
  applied: false;
  /** The run that was refused. */
  runId: string;
  /**
   * `usage` (exit code 2: the run cannot be applied this way), `refused` (exit code 3: a
   * guardrail) or `failed` (exit code 1: rows of the plan are invalid).
   */
  category: 'usage' | 'refused' | 'failed';
  /** One line for people, naming what to do next. */
  message: string;
}

/**
 * Why `applySavedRun` wrote nothing. Switch on `refused`:
 * - `busy`: another live process is applying the run (`pid`), or holds the store's lock (`owner`);
 * - `not-planned`: `apply` of a run already started or applied (continue it with a resume);
 * - `stale-plan`: no longer returned (a rollback that was only planned is applied with a drift
 *   check, like any plan); kept for callers that switch on it;
 * - `not-appliable`: a kind of run that cannot be applied (an export);
 * - `damaged-plan`: plan.json is not what its kind writes (edited or damaged);
 * - `damaged-journal`: a resume of a journal that cannot prove what was sent (pass `reconcile`);
 * - `already-applied`: a resume of a run that was applied with nothing failed or unknown (pass
 *   `reconcile` to re-check it);
 * - `other-store`: the client's token belongs to another store than the run was planned for;
 * - `other-target`: the client writes to another service than the run was planned against;
 * - `drift`: entities the run touches changed since planning (`drifted`); `canReplan` says
 *   whether `replan: true` would plan the run's input again;
 * - `replan-repeats`: drift, and planning again would repeat writes the run already sent;
 * - `replan-refused`: drift, and the new plan (`replannedRun`) was refused by a guardrail;
 * - `plan-refused`: the plan itself is refused (it was refused when planned, or its price jumps
 *   were not allowed);
 * - `invalid-rows`: the plan has invalid rows (`issues`: their errors) and was not planned to skip
 *   them (templates and messages: `skipInvalid`; exit code 1);
 * - `declined`: `confirm` answered no.
 */
export type SavedRunRefusal = RefusalBase &
  (
    | {
        refused: 'busy';
        pid?: number | undefined;
        owner?: LockOwner | undefined;
        lockFile?: string | undefined;
      }
    | { refused: 'not-planned'; status: string }
    | { refused: 'stale-plan' }
    | { refused: 'not-appliable'; kind: string }
    | { refused: 'damaged-plan'; problem: string; file: string }
    | { refused: 'damaged-journal'; damage: readonly string[]; file: string }
    | { refused: 'already-applied' }
    | { refused: 'other-store'; plannedStore: string; store: Store }
    | { refused: 'other-target'; plannedTarget: string; target: string }
    | { refused: 'drift'; drifted: DriftedEntity[]; canReplan: boolean }
    | { refused: 'replan-repeats'; drifted: DriftedEntity[]; reason: string }
    | { refused: 'replan-refused'; drifted: DriftedEntity[]; reason: string; replannedRun: RunDirectory }
    | { refused: 'plan-refused' }
    | { refused: 'invalid-rows'; issues: readonly RowIssue[] }
    | { refused: 'declined' }
  );

/** The kinds of refusal (`SavedRunRefusal['refused']`). */
export type SavedRunRefusalKind = SavedRunRefusal['refused'];

/** Whether an `applySavedRun` result is a refusal (nothing was written). */
export function isSavedRunRefusal(result: { applied: boolean }): result is SavedRunRefusal {
  return result.applied === false;
}
