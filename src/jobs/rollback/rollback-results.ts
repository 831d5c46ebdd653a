import { writeCsvFile } from '../../sheets/csv-file-writer.js';
import { neutralizeResultText } from '../../sheets/neutralize-formula.js';
import type { RollbackPlanFile } from './rollback-plan-file.js';

const COLUMNS = ['type', 'id', 'label', 'outcome', 'error_code', 'error_message'] as const;

/** One line of a rollback's results.csv: an entity and what became of it. */
export type RollbackRow = Record<(typeof COLUMNS)[number], string>;

export function rollbackRow(
  type: string,
  id: string,
  label: string,
  outcome: string,
  code: string,
  message: string,
): RollbackRow {
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
 * results.csv of a rollback: one line per entity restored, deleted or failed, then those not
 * reversible and those left alone (a rollback has no input sheet to mirror).
 */
export async function writeRollbackResults(
  path: string,
  rows: readonly RollbackRow[],
  file: RollbackPlanFile,
): Promise<void> {
  const all = [...rows];
  for (const n of file.notReversible)
    all.push(rollbackRow(n.type, n.id, n.label, 'not_reversible', '', n.reason));
  for (const l of file.leftAlone) all.push(rollbackRow(l.type, l.id, l.label, 'left_alone', '', l.reason));
  await writeCsvFile(
    path,
    COLUMNS,
    all.map((row) => COLUMNS.map((column) => row[column])),
  );
}
