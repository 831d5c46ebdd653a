import { writeCsvFile } from '../sheets/csv-file-writer.js';
import { neutralizeResultText } from '../sheets/neutralize-formula.js';
import type { ChangeOutcome } from './change-outcome.js';

/** results.csv lines of a run without an input sheet for entities no change carried. */
export interface EntityLine {
  type: string;
  id: string;
  label: string;
  outcome: string;
  /** Why (the error message column). */
  reason: string;
}

/** A change of a run without an input sheet that did not apply (rollback: an entity not restored). */
export interface EntityFailure {
  type: string;
  id: string;
  code: string;
  message: string;
}

/** The summary of a run without an input sheet: the entities whose change did not apply. */
export interface EntitySummary {
  failures: EntityFailure[];
}

const COLUMNS = ['type', 'id', 'label', 'outcome', 'error_code', 'error_message'] as const;

/** One line of the results.csv of a run without an input sheet: an entity and what became of it. */
type EntityRow = Record<(typeof COLUMNS)[number], string>;

function entityRow(
  type: string,
  id: string,
  label: string,
  outcome: string,
  code: string,
  message: string,
): EntityRow {
  return {
    type,
    id,
    label: neutralizeResultText(label),
    outcome,
    error_code: code,
    error_message: neutralizeResultText(message),
  };
}

/**
 * results.csv of a run without an input sheet (a rollback): one line per entity a change wrote
 * (its outcome) or did not (failed, with why, or not_reached: the run stopped first), then the kind's lines for entities no change
 * carried; and the entities whose change counts as failed.
 */
export async function writeEntityResults(
  path: string,
  changes: readonly ChangeOutcome[],
  lines: readonly EntityLine[],
  counted: (change: ChangeOutcome) => boolean,
): Promise<EntitySummary> {
  const all: EntityRow[] = [];
  const failures: EntityFailure[] = [];
  for (const c of changes) {
    const type = c.entity?.type ?? '';
    const id = c.entityId ?? '';
    const f = c.failure;
    // A change the run stopped before is `not_reached` (continue the run), never `failed`.
    const outcome = c.status === 'not_run' ? 'not_reached' : f ? 'failed' : c.outcome;
    all.push(entityRow(type, id, c.entity?.label ?? id, outcome, f?.code ?? '', f?.message ?? ''));
    if (counted(c)) failures.push({ type, id, code: f?.code ?? '', message: f?.message ?? '' });
  }
  for (const l of lines) all.push(entityRow(l.type, l.id, l.label, l.outcome, '', l.reason));
  await writeCsvFile(
    path,
    COLUMNS,
    all.map((row) => COLUMNS.map((column) => row[column])),
  );
  return { failures };
}
