import { resolve } from 'node:path';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import type { SavedRunRefusal } from '../../jobs/saved-run-refusal.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import { helpGroups } from '../help-groups.js';

export interface ApplyArgs extends GlobalArgs, NotifyArgs {
  run: string;
  yes: boolean;
  replan?: boolean;
  'allow-price-jumps'?: boolean;
  'allow-deletes'?: boolean;
  /** `mbulk apply RUN --dry-run`: every check of an apply (drift included), then stop before writing. */
  'dry-run'?: boolean;
  /** `runs resume --reconcile`: settle what the journal cannot prove by re-reading the store. */
  reconcile?: boolean;
  /** Re-read every product/customer before writing it (default: only when the plan is > 5 s old). */
  'strict-check'?: boolean;
  'runs-dir'?: string | undefined;
}

/**
 * Applies a saved plan (`mbulk apply RUN`) or continues an interrupted one (`mbulk runs resume
 * RUN`). A saved plan is applied only if the live store still matches it: every entity it touches
 * must be as it was when planned (else exit 3, listing them). A resume checks the same for every
 * operation its journal has not started or shows failed (what the run itself wrote is not drift),
 * and re-reads every write it cannot prove unsent before sending it (no delta is resent blindly).
 * A resume refuses (exit 2) a run applied with nothing failed or unknown, or a damaged journal,
 * unless `--reconcile`: then every operation the journal cannot prove done is settled by
 * re-reading the store.
 */
export async function applyCommand(args: ApplyArgs, ctx: CommandContext, resume: boolean): Promise<number> {
  const { withNotification } = await import('../notify.js');
  return withNotification(args, ctx.out, resume ? 'runs resume' : 'apply', () =>
    applyOrResume(args, ctx, resume),
  );
}

async function applyOrResume(args: ApplyArgs, ctx: CommandContext, resume: boolean): Promise<number> {
  const { openRun } = await import('../../apply/run-directory.js');
  const { applySavedRun, checkSavedRun } = await import('../../jobs/apply-saved-run.js');
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { splitCounts } = await import('../run-summary.js');
  const { printAppliedSavedRun, printSavedRunEvent, savedRunRefused } =
    await import('../saved-run-output.js');
  const out = ctx.out;
  const run = openRun(resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs'), args.run, ctx.cwd);
  // Stopped before it wrote (the drift check, the prompt), the same command continues it; once
  // written to, a resume does.
  const flags = (['replan', 'allow-price-jumps', 'allow-deletes', 'strict-check', 'reconcile'] as const)
    .filter((f) => args[f] === true)
    .map((f) => ` --${f}`)
    .join('');
  const { resumeRunCommand, targetFlags } = await import('../run-hints.js');
  const same = `mbulk ${resume ? 'runs resume' : 'apply'} ${run.id}${flags}${targetFlags(args)}`;
  ctx.run = {
    id: run.id,
    journal: run.file('journal'),
    continueWith: () => {
      let planned = false;
      try {
        planned = run.refresh().status === 'planned';
      } catch {
        // run.json unreadable: a resume checks the run before it writes.
      }
      return resume || planned ? same : resumeRunCommand(run.id, args);
    },
  };
  const options = { resume, reconcile: args.reconcile === true, replan: args.replan === true };
  // What needs no store is checked before the target is resolved (a bad run is named first).
  const checked = await checkSavedRun(run, options);
  if (checked.applied === false) return await refused(checked);

  const target = await resolveTarget(args, ctx);
  try {
    const { commandStoreLock } = await import('../lock-store.js');
    const titles = { drift: 'Check for drift', replan: 'Plan again', apply: resume ? 'Resume' : 'Apply' };
    const outcome = await applySavedRun(run, {
      ...options,
      client: target.client,
      target: target.describe,
      concurrency: args.concurrency,
      allowPriceJumps: args['allow-price-jumps'] === true,
      allowDeletes: args['allow-deletes'] === true,
      writeCheck: { strict: args['strict-check'] === true },
      // One writer per store on this machine (also stops two resumes of one run racing).
      lock: commandStoreLock(ctx),
      confirm: async (toApply, store) => {
        // A dry run stops here, after every check passed and before the first write.
        if (args['dry-run'] === true) return false;
        await confirmApply(
          out,
          `${resume ? 'Resume' : 'Apply'} run ${toApply.id} (${splitCounts(toApply.meta.counts).planned}) on ${store.name} at ${target.describe}?`,
          args.yes,
        );
        return true;
      },
      step: (step, work) => withProgress(out, titles[step], work),
      onEvent: (event) => printSavedRunEvent(out, event),
      onWarning: (m) => out.warn(`warning: ${m}`),
      signal: ctx.signal,
    });
    if (outcome.applied === false && outcome.refused === 'declined' && args['dry-run'] === true)
      return dryRunEnd(outcome.runId ?? run.id);
    if (outcome.applied === false) return await refused(outcome);
    // The same ending as an import: what was applied, failures, where the results are.
    return printAppliedSavedRun(ctx, outcome, {}, (id) => resumeRunCommand(id, args));
  } finally {
    await target.close();
  }

  function refused(refusal: SavedRunRefusal): Promise<number> {
    return savedRunRefused(ctx, refusal);
  }

  /**
   * The end of `mbulk apply RUN --dry-run`: the checks passed (run, store, target, lock, drift),
   * nothing was written. A plan whose refusal needs a flag not given (run.json's needs) would
   * still be refused when written: exit 3 naming the flag; else exit 0 with the command that writes.
   */
  async function dryRunEnd(runId: string): Promise<number> {
    const { ExitCode } = await import('../exit-code.js');
    const { openRun: open } = await import('../../apply/run-directory.js');
    const checkedRun =
      runId === run.id ? run : open(resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs'), runId, ctx.cwd);
    const missing = (checkedRun.refresh().needs ?? []).flatMap((need) =>
      need === 'allowDeletes' && args['allow-deletes'] !== true
        ? ['--allow-deletes']
        : need === 'allowPriceJumps' && args['allow-price-jumps'] !== true
          ? ['--allow-price-jumps']
          : need === 'plan-again'
            ? ['a new plan']
            : [],
    );
    if (missing.length > 0) {
      out.warn(
        `Dry run: nothing was written; run ${runId} passed the drift check, but writing it would be refused without ${missing.join(' and ')} (why: mbulk runs show ${runId} --report)`,
      );
      out.result({ ok: false, dryRun: true, applied: false, runId, refused: 'needs', needs: missing });
      return ExitCode.Refused;
    }
    out.line(
      `Dry run: nothing was written; run ${runId} passed every check (the store is as planned). To write: mbulk apply ${runId}${flags.replace(' --replan', '')}${targetFlags(args)}`,
    );
    out.result({ ok: true, dryRun: true, applied: false, runId });
    return ExitCode.Ok;
  }
}

/** `--help` of `--strict-check` (apply, runs resume). */
export const STRICT_CHECK_DESCRIBE =
  'Products and customers: re-read each entity (GET one) just before writing it, even when the plan is fresh (default: once the plan is more than 5 s old, check writes against a listing of the catalog or customers, the read the run made itself while younger than max(3 s, 10x its read time), then read again, or each entity re-read when that costs fewer requests; a change made within that time can be missed); a write whose entity changed since planning is refused as drifted and the run goes on';

export const registerApply: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'apply <run>',
    'Apply a saved plan (run id, id prefix, or path), refusing if the live store drifted since planning',
    (y) =>
      helpGroups(
        notifyOptions(y)
          .positional('run', {
            type: 'string',
            demandOption: true,
            describe: 'Run id, unique prefix, or path',
          })
          .option('yes', { type: 'boolean', default: false, describe: 'Do not ask for confirmation' })
          .option('replan', {
            type: 'boolean',
            default: false,
            describe: "When the store drifted, plan the run's input again and apply the new plan",
          })
          .option('allow-price-jumps', {
            type: 'boolean',
            default: false,
            describe:
              'Write a products plan whose prices change ×10 or more, or exceed 10× the catalog median (default: refused, exit 3, unless planned with the flag)',
          })
          .option('allow-deletes', {
            type: 'boolean',
            default: false,
            describe:
              'Write a products plan that hides or deletes more of the catalog than the guard allows (default: refused, exit 3, unless planned with the flag)',
          })
          .option('strict-check', { type: 'boolean', default: false, describe: STRICT_CHECK_DESCRIBE })
          .option('dry-run', {
            type: 'boolean',
            default: false,
            describe:
              'Run every check of an apply (the run, its store and target, the drift check) and stop before the first write: nothing is written (exit 0, or 3 when the apply would be refused)',
          })
          .option('runs-dir', {
            type: 'string',
            describe: 'Where run directories are (default: .mbulk/runs)',
          }),
        [
          ['Essentials:', ['yes', 'dry-run']],
          ['Safety:', ['replan', 'allow-price-jumps', 'allow-deletes', 'strict-check']],
          ['Output:', ['runs-dir', 'notify-url', 'notify-on']],
        ],
      ),
    async (argv) => {
      setExit(await applyCommand(argv as unknown as ApplyArgs, ctx, false));
    },
  );
