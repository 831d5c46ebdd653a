import type { InputRunDecision } from '../jobs/input-runs.js';
import type { ImportArgs } from './commands/import.js';
import type { CommandContext } from './command-context.js';
import type { ResolvedTarget } from './target.js';

/**
 * `import … --apply` of an input whose earlier run was left unfinished (interrupted, killed,
 * stopped by an error): that run is continued as `mbulk runs resume` would, never planned again
 * (what it wrote is not written twice). The caller holds the store's lock.
 */
export async function continueInputRun(
  args: ImportArgs,
  ctx: CommandContext,
  target: ResolvedTarget,
  decision: Extract<InputRunDecision, { action: 'continue' }>,
): Promise<number> {
  const { applySavedRun } = await import('../jobs/apply-saved-run.js');
  const { withProgress } = await import('./progress.js');
  const { confirmApply } = await import('./confirm.js');
  const { splitCounts } = await import('./run-summary.js');
  const { printAppliedSavedRun, printSavedRunEvent, savedRunRefused } = await import('./saved-run-output.js');
  const out = ctx.out;
  const { run, previous, identity } = decision;
  const { continueRunCommand, resumeRunCommand } = await import('./run-hints.js');
  ctx.run = { id: run.id, journal: run.file('journal'), continueWith: () => continueRunCommand(run, args) };
  const written =
    previous.done !== undefined && previous.total !== undefined
      ? `${previous.done} of ${previous.total} changes written`
      : `${run.meta.status}`;
  out.line(
    `Continuing run ${run.id} of ${identity.input} (same input, sha256 ${identity.sha256.slice(0, 8)}…; ${run.status()} at ${previous.at}, ${written}): nothing it wrote is written again`,
  );
  const titles = { drift: 'Check for drift', replan: 'Plan again', apply: 'Resume' };
  const outcome = await applySavedRun(run, {
    resume: true,
    client: target.client,
    target: target.describe,
    concurrency: args.concurrency,
    writeCheck: { strict: args['strict-check'] === true },
    // The import holds the store's lock since before it looked for this run.
    lock: false,
    confirm: async (toApply, store) => {
      await confirmApply(
        out,
        `Continue run ${toApply.id} (${splitCounts(toApply.meta.counts).planned}) on ${store.name} at ${target.describe}?`,
        args.yes,
      );
      return true;
    },
    step: (step, work) => withProgress(out, titles[step], work),
    onEvent: (event) => printSavedRunEvent(out, event),
    onWarning: (m) => out.warn(`warning: ${m}`),
    signal: ctx.signal,
  });
  if (outcome.applied === false) return savedRunRefused(ctx, outcome);
  return printAppliedSavedRun(ctx, outcome, { applied: true, continuedRun: run.id, runDir: run.dir }, (id) =>
    resumeRunCommand(id, args),
  );
}
