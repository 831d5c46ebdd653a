import type { ChangeOutcome, ChangeWord } from './change-outcome.js';

/** The changes of an apply, each counted once (the source of every count a kind declares). */
export interface ChangeCounts {
  /** Done changes, by what they did. */
  done: Readonly<Record<ChangeWord, number>>;
  /**
   * Changes that failed, whose outcome is unknown, and (for a kind that declares no `notRun`
   * count) those the run did not reach.
   */
  failed: number;
  unknown: number;
  /** Changes the run did not reach because it stopped first (resume it to apply them). */
  notRun: number;
}

/**
 * Counts every change once: done (by what it did), failed (`counted`: unknown included), else not
 * run (the run stopped first: a run to resume, for a kind that counts those apart).
 */
export function countChanges(
  changes: readonly ChangeOutcome[],
  counted: (change: ChangeOutcome) => boolean,
): ChangeCounts {
  const done: Record<ChangeWord, number> = { created: 0, updated: 0, hidden: 0, deleted: 0, restored: 0 };
  let failed = 0;
  let unknown = 0;
  let notRun = 0;
  for (const c of changes) {
    if (c.status === 'done') done[c.outcome]++;
    else if (!counted(c)) notRun++;
    else {
      failed++;
      if (c.status === 'unknown') unknown++;
    }
  }
  return { done, failed, unknown, notRun };
}
