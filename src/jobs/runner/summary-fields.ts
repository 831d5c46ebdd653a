import type { RunDirectory } from '../../apply/run-directory.js';
import type { CountSource, JobSummary, JobTally, SummaryFields } from './job-definition.js';
import type { EntitySummary } from '../../results/entity-results.js';
import type { SheetSummary } from '../../results/sheet-results.js';

/** Whether the kind counts changes its run did not reach apart (it declares a `notRun` count). */
export function countsNotRunApart(fields: SummaryFields): boolean {
  return Object.values(fields).some((f) => f.of === 'notRun');
}

function countOf(of: Exclude<CountSource, 'own'>, t: JobTally<unknown, unknown>): number {
  if (of === 'done') return Object.values(t.done).reduce((a, b) => a + b, 0);
  if (typeof of !== 'string') return of.reduce((n, word) => n + t.done[word], 0);
  return t[of];
}

/**
 * The apply summary of a kind, from its declaration and the tally: the run, its status and abort
 * cause, every declared count under its name, `failed` and `unknown`, the kind's own values, and
 * its results (rows and failed rows, or failed entities).
 */
export function summaryOf<File, Fields extends SummaryFields, Own extends object>(
  fields: Fields,
  run: RunDirectory,
  t: JobTally<unknown, unknown>,
  own: Own | undefined,
  results: SheetSummary | EntitySummary,
): JobSummary<File, Fields, Own> {
  const summary: Record<string, unknown> = {
    runId: run.id,
    status: t.execution.status,
    ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
  };
  for (const [name, field] of Object.entries(fields)) {
    if (field.of !== 'own') summary[name] = countOf(field.of, t);
  }
  Object.assign(summary, { failed: t.failed, unknown: t.unknown }, own, results);
  // Built field by field from the declaration the type is derived from (see JobSummary).
  return summary as JobSummary<File, Fields, Own>;
}

/** What the apply adds to run.json's counts: the declared numbers, under their run.json names. */
export function runCountsOf(fields: SummaryFields, summary: object): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value: unknown = Reflect.get(summary, name);
    if (field.run !== false && typeof value === 'number') counts[field.run ?? name] = value;
  }
  return counts;
}

/**
 * The summary as `mbulk apply --json` prints it (and its `Applied: …` line, from its numbers in
 * this order): the declared fields under their CLI names, then the failed rows (or entities).
 */
export function cliSummaryOf(fields: SummaryFields, summary: object): Record<string, unknown> {
  const cli: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.cli !== false) cli[field.cli ?? name] = Reflect.get(summary, name);
  }
  for (const list of ['failedRows', 'failures']) {
    if (list in summary) cli[list] = Reflect.get(summary, list);
  }
  return cli;
}
