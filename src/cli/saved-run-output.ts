import { existsSync } from 'node:fs';
import type { AppliedSavedRun, SavedRunEvent } from '../jobs/apply-saved-run.js';
import { describeDriftedList } from '../plan/drifted-entity.js';
import type { Output } from './output.js';
import type { CommandContext } from './command-context.js';
import type { SavedRunRefusal } from '../jobs/saved-run-refusal.js';
import { exitCodeFor, type ExitCode } from './exit-code.js';
import { applyExitCode, appliedLine, failureLines, unfinishedLine } from './run-summary.js';

/**
 * The ending of every saved run applied or continued (`apply`, `runs resume`, an import that
 * continues its input's run): what was applied, the failures, where the results are, the JSON
 * result (with `extra` after the run's fields), and the exit code.
 */
export function printAppliedSavedRun(
  ctx: CommandContext,
  outcome: AppliedSavedRun,
  extra: Record<string, unknown> = {},
  /** The command that continues the run, should it stop (default `mbulk runs resume RUN`). */
  resume?: (runId: string) => string,
): ExitCode {
  const out = ctx.out;
  const applied = outcome.run;
  if (outcome.status !== 'completed') out.warn(unfinishedLine(applied, outcome.status, resume?.(applied.id)));
  out.line(appliedLine(outcome.summary, outcome.status));
  const failures = failureLines(outcome.summary);
  for (const line of failures.slice(0, 20)) out.line(`  ${line}`);
  if (failures.length > 20) out.line(`  … and ${failures.length - 20} more in ${applied.file('results')}`);
  out.line(`Results: ${applied.file('results')}`);
  if (failures.length > 0 && existsSync(applied.file('failed')))
    out.line(`Failed rows to fix and re-import: ${applied.file('failed')}`);
  out.result({
    ok: outcome.ok,
    runId: applied.id,
    kind: outcome.kind,
    status: outcome.status,
    ...outcome.summary,
    abortedBy: outcome.abortedBy,
    ...extra,
  });
  return applyExitCode(out, outcome, !outcome.ok, ctx.apiSources);
}

/**
 * A refusal of a saved run as the CLI shows it: a drift refusal lists what drifted (printed by the
 * caller as it was found) and ends with a JSON result; any other is an error message (exit code
 * from its category).
 */
export async function savedRunRefused(ctx: CommandContext, refusal: SavedRunRefusal): Promise<number> {
  const { CliError } = await import('./cli-error.js');
  switch (refusal.refused) {
    case 'drift':
    case 'replan-repeats':
    case 'replan-refused':
      ctx.out.warn(`mbulk: refused: ${refusal.message}`);
      ctx.out.result({
        ok: false,
        refused: refusal.refused === 'replan-refused' ? refusal.reason : 'drift',
        runId: refusal.runId,
        drifted: refusal.drifted,
      });
      return exitCodeFor(refusal.category);
    default:
      throw new CliError(refusal.message, exitCodeFor(refusal.category));
  }
}

/** What `mbulk apply`, `runs resume` and an import continuing its run print for each step of the saved run's apply. */
export function printSavedRunEvent(out: Output, event: SavedRunEvent): void {
  if (event.type === 'checked')
    out.line(`Run ${event.run.id} · ${event.kind} · store ${event.store.name} (${event.store.id})`);
  else if (event.type === 'drifted') {
    const { drifted } = event;
    out.line(
      `${drifted.length} planned ${drifted.length === 1 ? 'entity has' : 'entities have'} changed since planning:`,
    );
    for (const line of describeDriftedList(drifted)) out.line(`  ${line}`);
  } else out.line(`Planned again from the run's own copy of the input as run ${event.run.id}`);
}
