import { join, resolve } from 'node:path';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RollbackApplySummary } from '../../jobs/rollback/rollback-run.js';
import type { SavedRunRefusal } from '../../jobs/saved-run-refusal.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { applyCommand, STRICT_CHECK_DESCRIBE, type ApplyArgs } from './apply.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import { helpGroups } from '../help-groups.js';
import { dryRunOption } from '../dry-run-option.js';
import { describeDriftedList } from '../../plan/drifted-entity.js';

interface RunsArgs extends GlobalArgs {
  run?: string;
  'runs-dir'?: string | undefined;
  open?: boolean;
  /** `runs show --report`: print the whole report.md too. */
  report?: boolean;
}

function root(args: RunsArgs, ctx: CommandContext): string {
  return resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
}

async function listCommand(args: RunsArgs, ctx: CommandContext): Promise<number> {
  const { listRuns } = await import('../../apply/run-directory.js');
  const { shownCounts } = await import('../run-summary.js');
  const runs = listRuns(root(args, ctx));
  const runsRoot = root(args, ctx);
  if (runs.length === 0) ctx.out.line(`No runs yet in ${runsRoot}.`);
  for (const r of runs) {
    ctx.out.line(`${r.id}  ${r.kind.padEnd(9)} ${r.status.padEnd(11)} ${shownCounts(r.counts)}`);
    if (r.input !== undefined) ctx.out.line(`  input: ${r.input}`);
    ctx.out.line(`  ${join(runsRoot, r.id)}`);
  }
  ctx.out.result({ ok: true, runs: runs.map((r) => ({ ...r, dir: join(runsRoot, r.id) })) });
  return ExitCode.Ok;
}

async function showCommand(args: RunsArgs, ctx: CommandContext): Promise<number> {
  const { openRun } = await import('../../apply/run-directory.js');
  const { existsSync, readFileSync } = await import('node:fs');
  const { isResumable, nextCommand, runProgress, splitCounts } = await import('../run-summary.js');
  const run = openRun(root(args, ctx), args.run ?? '', ctx.cwd);
  const meta = run.refresh();
  const status = run.status();
  const report = run.file('report');
  // --report: the whole report.md first (it may be older than the run's last apply: the live
  // summary follows). Without it, the summary alone.
  if (args.report === true && existsSync(report)) ctx.out.line(readFileSync(report, 'utf8'));
  const { readJournal, journalDamage } = await import('../../apply/journal.js');
  const { runJournalEvidence } = await import('../../apply/journal-evidence.js');
  const snapshot = readJournal(run.file('journal'));
  const damage = journalDamage(snapshot, runJournalEvidence(run));
  // From the journal: after a second Ctrl-C, run.json's counts are those of an earlier session.
  const progress = runProgress(meta, damage.length > 0 ? undefined : snapshot);
  const resumable = isResumable(status, meta.counts);
  ctx.out.line(`Run ${run.id} · ${meta.kind} · ${status}`);
  if (meta.input !== undefined) ctx.out.line(`Input: ${meta.input}`);
  ctx.out.line(`Target: ${meta.target}${meta.store_id !== undefined ? ` (store ${meta.store_id})` : ''}`);
  const { planned, outcome } = splitCounts(meta.counts);
  if (planned !== '') ctx.out.line(`Plan: ${planned}`);
  if (outcome !== '') ctx.out.line(`Outcome: ${outcome}`);
  if (progress !== undefined)
    ctx.out.line(
      `Progress: done ${progress.done}${progress.total === undefined ? '' : ` of ${progress.total}`} · ${progress.failed} failed`,
    );
  const journal =
    damage.length > 0
      ? { state: 'damaged' as const, damage }
      : snapshot.settled
        ? { state: 'settled' as const, at: snapshot.settled.at, damage: snapshot.settled.damage }
        : { state: 'intact' as const };
  if (journal.state === 'damaged')
    ctx.out.line(
      `Journal: damaged (${damage[0] ?? ''}); settle it with: mbulk runs resume ${run.id} --reconcile`,
    );
  else if (journal.state === 'settled')
    ctx.out.line(`Journal: damaged, settled against the store by --reconcile at ${journal.at}`);
  ctx.out.line(`Directory: ${run.dir}`);
  if (args.report !== true && existsSync(report))
    ctx.out.line(`Report: ${report} (all of it here: mbulk runs show ${run.id} --report)`);
  const { readDriftRefusal } = await import('../../apply/run-directory.js');
  const next = nextCommand(run.id, meta.kind, status, meta.counts, {
    needs: meta.needs,
    drifted: status === 'planned' && readDriftRefusal(run.dir) !== undefined,
  });
  if (next !== undefined) ctx.out.line(next);
  const files = (['plan', 'journal', 'results', 'failed', 'backup', 'report', 'reportHtml'] as const).filter(
    (f) => existsSync(run.file(f)),
  );
  const openError = args.open ? await openReviewPage(run, ctx) : undefined;
  ctx.out.result({
    ok: openError === undefined,
    run: { ...meta, status },
    progress,
    journal,
    resume: resumable ? `mbulk runs resume ${run.id}` : undefined,
    dir: run.dir,
    files: files.map((f) => run.file(f)),
    ...(openError === undefined ? {} : { error: openError }),
  });
  return openError === undefined ? ExitCode.Ok : ExitCode.Usage;
}

/** `--open`: the run's report.html in the default browser; the problem when there is none or it cannot be opened. */
async function openReviewPage(run: RunDirectory, ctx: CommandContext): Promise<string | undefined> {
  const { existsSync } = await import('node:fs');
  const { openInBrowser } = await import('../open-in-browser.js');
  const page = run.file('reportHtml');
  let problem: string | undefined;
  if (!existsSync(page))
    problem = `${run.id} has no review page (${page}): it was planned before report.html existed`;
  else {
    try {
      await openInBrowser(page, ctx.env);
      ctx.out.line(`Opened ${page}`);
    } catch (error) {
      problem = (error as Error).message;
    }
  }
  if (problem !== undefined) ctx.out.warn(`mbulk: ${problem}`);
  return problem;
}

interface PruneArgs extends RunsArgs {
  'older-than': string;
  'dry-run': boolean;
}

/** `30d`, `12h`, `2w` → ms; undefined when unreadable. */
export function parseAge(text: string): number | undefined {
  const m = /^(\d+)\s*([hdw])$/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[
    (m[2] as string).toLowerCase() as 'h' | 'd' | 'w'
  ];
  return Number(m[1]) * unit;
}

/**
 * `mbulk runs prune --older-than 30d`: deletes run directories whose last activity (run.json's
 * `updated_at`) is older than that. A run being applied by a live process is never touched, and
 * the store's memory of its inputs (inputs.ndjson, beside the run directories) is kept.
 */
async function pruneCommand(args: PruneArgs, ctx: CommandContext): Promise<number> {
  const { listRuns } = await import('../../apply/run-directory.js');
  const { rmSync } = await import('node:fs');
  const { CliError } = await import('../cli-error.js');
  const { plural } = await import('../run-summary.js');
  const age = parseAge(args['older-than']);
  if (age === undefined) {
    throw new CliError(
      `--older-than must look like 30d, 12h or 2w (got "${args['older-than']}")`,
      ExitCode.Usage,
    );
  }
  const runsRoot = root(args, ctx);
  const cutoff = Date.now() - age;
  const removed: string[] = [];
  for (const meta of listRuns(runsRoot)) {
    const last = Date.parse(meta.updated_at);
    if (!(last < cutoff)) continue;
    if (meta.status === 'applying') continue; // listRuns' derived status: applying means live
    const dir = join(runsRoot, meta.id);
    if (!args['dry-run']) rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  const verb = args['dry-run'] ? 'Would remove' : 'Removed';
  ctx.out.line(`${verb} ${plural(removed.length, 'run')} older than ${args['older-than']} from ${runsRoot}`);
  for (const dir of removed.slice(0, 20)) ctx.out.line(`  ${dir}`);
  if (removed.length > 20) ctx.out.line(`  … and ${removed.length - 20} more`);
  ctx.out.result({ ok: true, dryRun: args['dry-run'], removed });
  return ExitCode.Ok;
}

interface RollbackArgs extends RunsArgs, NotifyArgs {
  run: string;
  apply: boolean;
  yes: boolean;
  force: boolean;
  'delete-created': boolean;
}

/**
 * `mbulk runs rollback RUN`: plans the rollback of an applied or interrupted run as a new run
 * (dry run: prints what it would restore and what it cannot), and writes it with --apply. Given an
 * unfinished rollback run, continues it.
 */
async function rollbackCommand(args: RollbackArgs, ctx: CommandContext): Promise<number> {
  // A dry run ends no run: only a rollback written (--apply) notifies.
  if (!args.apply) return rollbackRun(args, ctx);
  const { withNotification } = await import('../notify.js');
  return withNotification(args, ctx.out, 'runs rollback', () => rollbackRun(args, ctx));
}

async function rollbackRun(args: RollbackArgs, ctx: CommandContext): Promise<number> {
  const { openRun } = await import('../../apply/run-directory.js');
  const rollback = await import('../../jobs/rollback/rollback-run.js');
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { CliError } = await import('../cli-error.js');
  const { applyExitCode, doneLabel, unfinishedLine } = await import('../run-summary.js');
  const out = ctx.out;
  const source = openRun(root(args, ctx), args.run, ctx.cwd);
  const meta = source.refresh();
  const resuming = meta.kind === 'rollback' && meta.status !== 'applied';
  // Continuing a rollback run is a resume like any other: applySavedRun's checks and refusals
  // (only planned, applied by a live process, another store or target, the store's lock, drift).
  const { applySavedRun, checkSavedRun } = await import('../../jobs/apply-saved-run.js');
  const { exitCodeFor } = await import('../exit-code.js');
  const refusalError = (refusal: SavedRunRefusal) =>
    new CliError(refusal.message, exitCodeFor(refusal.category));
  if (resuming) {
    const checked = await checkSavedRun(source, { resume: true });
    if (checked.applied === false) throw refusalError(checked);
  }
  const target = await resolveTarget(args, ctx);
  let lock: { release(): void; setRunId(id: string): void } | undefined;
  try {
    const finish = (
      run: RunDirectory,
      applied: Pick<
        RollbackApplySummary,
        'restored' | 'failed' | 'notReached' | 'requests' | 'failures' | 'abortedBy'
      > & {
        status: string;
      },
      extra: Record<string, unknown>,
    ): number => {
      if (applied.status !== 'completed') out.warn(unfinishedLine(run, applied.status));
      // Entities an interrupted rollback never reached are "not reached", never "failed".
      out.line(
        `${doneLabel('Rolled back', applied.status)}: ${applied.restored} restored · ${applied.failed} failed${applied.notReached > 0 ? ` · ${applied.notReached} not reached` : ''} · ${applied.requests} write requests`,
      );
      for (const f of applied.failures.filter((f) => f.code !== 'not_run').slice(0, 20))
        out.line(`  failed: ${f.type} ${f.id}: ${f.code}: ${f.message}`);
      out.line(`Results: ${run.file('results')}`);
      const ok = applied.status === 'completed' && applied.failed === 0;
      out.result({
        ok,
        applied: true,
        runId: run.id,
        runDir: run.dir,
        status: applied.status,
        restored: applied.restored,
        failed: applied.failed,
        notReached: applied.notReached,
        writeRequests: applied.requests,
        failures: applied.failures,
        abortedBy: applied.abortedBy,
        ...extra,
      });
      return applyExitCode(out, applied, !ok, ctx.apiSources);
    };

    if (resuming) {
      const file = rollback.readRollbackPlan(source);
      out.line(`Run ${source.id} · rollback of ${file.source.id} · ${meta.status}`);
      if (!args.apply) {
        const { applyRunCommand, resumeRunCommand } = await import('../run-hints.js');
        const how =
          meta.status === 'planned' ? applyRunCommand(source.id, args) : resumeRunCommand(source.id, args);
        out.line(`Dry run: nothing was written. To continue it: ${how}`);
        out.result({ ok: true, applied: false, runId: source.id, runDir: source.dir, status: meta.status });
        return ExitCode.Ok;
      }
      const { commandStoreLock } = await import('../lock-store.js');
      const outcome = await applySavedRun(source, {
        resume: true,
        client: target.client,
        target: target.describe,
        concurrency: args.concurrency,
        lock: commandStoreLock(ctx),
        confirm: async (run, store) => {
          await confirmApply(out, `Continue rollback ${run.id} on ${store.name}?`, args.yes);
          return true;
        },
        step: (step, work) => withProgress(out, step === 'apply' ? 'Roll back' : 'Check for drift', work),
        onEvent: (event) => {
          if (event.type !== 'drifted') return;
          out.line(`Changed since the rollback was planned (${event.drifted.length}):`);
          for (const line of describeDriftedList(event.drifted)) out.line(`  ${line}`);
        },
        signal: ctx.signal,
      });
      if (outcome.applied === false) throw refusalError(outcome);
      const summary = outcome.summary as Pick<
        RollbackApplySummary,
        'restored' | 'failed' | 'notReached' | 'failures'
      > & {
        writeRequests: number;
      };
      const applied = {
        ...summary,
        requests: summary.writeRequests,
        status: outcome.status,
        abortedBy: outcome.abortedBy,
      };
      return finish(source, applied, { source: file.source.id, resumed: true });
    }

    if (args.apply) {
      // One writer per store: taken before planning, so nothing changes the store between the
      // rollback's reads and its writes (the apply below reads it no second time).
      const { lockStore } = await import('../lock-store.js');
      const { clientStore } = await import('../../apply/run-store.js');
      lock = lockStore(ctx, target, await clientStore(target.client, ctx.signal));
    }
    const planned = await withProgress(out, 'Plan rollback', (report) =>
      rollback.planRollback(source, {
        client: target.client,
        runsRoot: root(args, ctx),
        target: target.describe,
        deleteCreated: args['delete-created'],
        force: args.force,
        onProgress: report,
        signal: ctx.signal,
      }),
    );
    const { file, run } = planned;
    out.line(
      `Run ${run.id} · rollback of ${source.id} (${meta.kind}, ${meta.status}) · store ${planned.store.name} (${planned.store.id})`,
    );
    const lines = rollback.restoreLines(file);
    const { keptApart } = await import('../../plan/rollback-plan.js');
    // Products the run created are kept unless --delete-created: kept, not "cannot be undone".
    const { kept, notReversible } = keptApart(file.notReversible);
    out.line(
      `Plan: restore ${file.counts['stock_items'] ?? 0} stock items, ${file.counts['customers'] ?? 0} customers, ${file.counts['products'] ?? 0} products; delete ${file.counts['products_deleted'] ?? 0} created products${kept.length > 0 ? ` · keep ${kept.length} created products` : ''} · ${notReversible.length} not reversible · ${file.leftAlone.length} left alone`,
    );
    for (const l of lines.slice(0, 20)) out.line(`  ${l}`);
    if (lines.length > 20) out.line(`  … and ${lines.length - 20} more in ${run.file('report')}`);
    if (kept.length > 0) {
      out.line(
        `Kept (${kept.length}): created by the run; to delete them too: mbulk runs rollback ${source.id} --delete-created --apply`,
      );
      for (const n of kept.slice(0, 20)) out.line(`  ${n.type} ${n.id} (${n.label})`);
      if (kept.length > 20) out.line(`  … and ${kept.length - 20} more`);
    }
    if (notReversible.length > 0) {
      out.line(`Cannot be undone (${notReversible.length}):`);
      for (const n of notReversible.slice(0, 20)) out.line(`  ${n.type} ${n.id} (${n.label}): ${n.reason}`);
      if (notReversible.length > 20) out.line(`  … and ${notReversible.length - 20} more`);
    }
    if (file.drifted.length > 0) {
      out.line(`Changed after the run wrote them (${file.drifted.length}):`);
      for (const line of describeDriftedList(file.drifted)) out.line(`  ${line}`);
    }
    const base = {
      runId: run.id,
      runDir: run.dir,
      source: source.id,
      sourceKind: meta.kind,
      target: target.describe,
      counts: file.counts,
      /** Every restore is listed in report.md; the first 1000 here. */
      changes: lines.slice(0, 1000),
      totalChanges: lines.length,
      /** False when something the run did cannot be undone (listed in notReversible; kept products apart). */
      complete: notReversible.length === 0,
      kept,
      notReversible: file.notReversible,
      drifted: file.drifted,
    };
    if (planned.refusal) {
      out.warn(`mbulk: refused: ${planned.refusal}`);
      out.result({ ok: false, refused: 'drift', applied: false, ...base });
      return ExitCode.Refused;
    }
    const { writeThisPlanHint } = await import('../run-hints.js');
    if (!args.apply || file.restores.length === 0) {
      out.line(
        file.restores.length > 0
          ? `Dry run: nothing was written. ${writeThisPlanHint('write', run.id, args, ctx)}`
          : 'Nothing to restore.',
      );
      out.result({ ok: true, applied: false, ...base });
      return ExitCode.Ok;
    }
    lock?.setRunId(run.id);
    // Stopped at the prompt, the rollback run is only planned: `mbulk apply RUN` writes it.
    const { continueRunCommand } = await import('../run-hints.js');
    ctx.run = { id: run.id, journal: run.file('journal'), continueWith: () => continueRunCommand(run, args) };
    // Written through the library's one apply entry, as `mbulk apply RUN` would.
    const outcome = await applySavedRun(run, {
      client: target.client,
      target: target.describe,
      justPlanned: true,
      lock: false,
      concurrency: args.concurrency,
      confirm: async () => {
        await confirmApply(
          out,
          `Roll back run ${source.id} on ${planned.store.name} (${lines.length} restores)?`,
          args.yes,
        );
        return true;
      },
      step: (_step, work) => withProgress(out, 'Roll back', work),
      signal: ctx.signal,
    });
    if (outcome.applied === false) throw refusalError(outcome);
    return finish(run, outcome.detail as RollbackApplySummary & { status: string }, base);
  } finally {
    lock?.release();
    await target.close();
  }
}

/** `mbulk runs list|show RUN|resume RUN|rollback RUN`. */
export const registerRuns: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('runs', 'List, show, resume, roll back and prune runs (.mbulk/runs)', (y) =>
    y
      .option('runs-dir', { type: 'string', describe: 'Where run directories are (default: .mbulk/runs)' })
      .command(
        'list',
        'List runs, oldest first',
        (s) => helpGroups(s, [['Output:', ['runs-dir']]]),
        async (argv) => {
          setExit(await listCommand(argv as unknown as RunsArgs, ctx));
        },
      )
      .command(
        'prune',
        'Delete run directories last active longer ago than --older-than',
        (s) =>
          helpGroups(
            s
              .epilog(
                'Kept: inputs.ndjson in the runs directory, the memory of which inputs (kind, store, sha256 of the file) its runs applied. A delta sheet, a templates sheet or a recipients sheet applied by a pruned run is still refused (--again, or messages send --resend, applies it once more).',
              )
              .option('older-than', {
                type: 'string',
                demandOption: true,
                describe: "Age such as 30d, 12h or 2w, measured from the run's last activity",
              })
              .option('dry-run', {
                type: 'boolean',
                default: false,
                describe: 'List what would be removed, remove nothing',
              }),
            [
              ['Essentials:', ['older-than', 'dry-run']],
              ['Output:', ['runs-dir']],
            ],
          ),
        async (argv) => {
          setExit(await pruneCommand(argv as unknown as PruneArgs, ctx));
        },
      )
      .command(
        'show <run>',
        "Show a run's summary: status, input, target, counts, progress and the next command",
        (s) =>
          helpGroups(
            s
              .positional('run', { type: 'string', demandOption: true })
              .option('report', {
                type: 'boolean',
                default: false,
                describe: "Also print the run's whole report.md (every change and issue)",
              })
              .option('open', {
                type: 'boolean',
                default: false,
                describe:
                  "Also open the run's review page (report.html) in the default browser (xdg-open, open or start; MBULK_OPEN overrides)",
              }),
            [
              ['Essentials:', ['report', 'open']],
              ['Output:', ['runs-dir']],
            ],
          ),
        async (argv) => {
          setExit(await showCommand(argv as unknown as RunsArgs, ctx));
        },
      )
      .command(
        'resume <run>',
        'Continue an interrupted run, or one that ended with failures: operations already done are not repeated, failures are retried, and a write the journal cannot prove unsent is re-read first',
        (s) =>
          helpGroups(
            notifyOptions(s)
              .positional('run', { type: 'string', demandOption: true })
              .option('yes', { type: 'boolean', default: false, describe: 'Do not ask for confirmation' })
              .option('replan', {
                type: 'boolean',
                default: false,
                describe:
                  "When entities it has not written yet changed in the store, plan the run's input again and apply that (default: refuse, exit 3)",
              })
              .option('reconcile', {
                type: 'boolean',
                default: false,
                describe:
                  'Resume a damaged journal or re-check an applied run: settle every operation the journal cannot prove done by re-reading the store, never by resending a delta; a product/customer write is re-sent only while the entity is as planned, else its row is drifted (default: refuse, exit 2)',
              })
              .option('strict-check', { type: 'boolean', default: false, describe: STRICT_CHECK_DESCRIBE }),
            [
              ['Essentials:', ['yes']],
              ['Safety:', ['replan', 'reconcile', 'strict-check']],
              ['Output:', ['runs-dir', 'notify-url', 'notify-on']],
            ],
          ),
        async (argv) => {
          setExit(await applyCommand(argv as unknown as ApplyArgs, ctx, true));
        },
      )
      .command(
        'rollback <run>',
        'Undo an applied or interrupted run from its backup (dry run unless --apply), as a new, resumable run',
        (s) =>
          helpGroups(
            dryRunOption(
              notifyOptions(s)
                .positional('run', {
                  type: 'string',
                  demandOption: true,
                  describe: 'Run id, unique prefix, or path',
                })
                .option('apply', {
                  type: 'boolean',
                  default: false,
                  describe: 'Write the rollback (default: dry run)',
                }),
            )
              .option('yes', { type: 'boolean', default: false, describe: 'Do not ask for confirmation' })
              .option('force', {
                type: 'boolean',
                default: false,
                describe: 'Also restore entities changed after the run wrote them (default: refuse, exit 3)',
              })
              .option('delete-created', {
                type: 'boolean',
                default: false,
                describe: 'Delete the products (and variants, options) the run created (default: keep them)',
              }),
            [
              ['Essentials:', ['apply', 'yes', 'dry-run']],
              ['Safety:', ['force', 'delete-created']],
              ['Output:', ['runs-dir', 'notify-url', 'notify-on']],
            ],
          ),
        async (argv) => {
          setExit(await rollbackCommand(argv as unknown as RollbackArgs, ctx));
        },
      )
      .demandCommand(1, 'Name a runs command: list, show, resume, rollback or prune.'),
  );
