import { resolve } from 'node:path';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';

export interface ApplyArgs extends GlobalArgs, NotifyArgs {
  run: string;
  yes: boolean;
  replan?: boolean;
  'allow-price-jumps'?: boolean;
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
 * operation its journal has not started (what the run itself wrote is not drift). A resume refuses
 * (exit 2) a run already applied or a damaged journal unless `--reconcile`: then every operation
 * the journal cannot prove done is settled by re-reading the store, never by resending a delta.
 */
export async function applySavedRun(args: ApplyArgs, ctx: CommandContext, resume: boolean): Promise<number> {
  const { withNotification } = await import('../notify.js');
  return withNotification(args, ctx.out, resume ? 'runs resume' : 'apply', () =>
    applyOrResume(args, ctx, resume),
  );
}

async function applyOrResume(args: ApplyArgs, ctx: CommandContext, resume: boolean): Promise<number> {
  const { openRun, isRunLive } = await import('../../apply/run-directory.js');
  const { runKind } = await import('../../jobs/run-kind.js');
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { CliError } = await import('../cli-error.js');
  const { applyExitCode, appliedLine, failureLines, unfinishedLine } = await import('../run-summary.js');
  const { existsSync } = await import('node:fs');
  const out = ctx.out;
  let run = openRun(resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs'), args.run, ctx.cwd);
  const meta = run.refresh();
  if (meta.status === 'applying' && isRunLive(meta)) {
    throw new CliError(
      `run ${run.id} is being applied by process ${meta.pid}; wait for it to finish`,
      ExitCode.Refused,
    );
  }
  if (!resume && meta.status !== 'planned') {
    throw new CliError(
      `run ${run.id} was already ${meta.status === 'applying' ? 'started' : meta.status}; continue it with: mbulk runs resume ${run.id}`,
      ExitCode.Usage,
    );
  }
  const kind = await runKind(meta.kind);
  if (!kind)
    throw new CliError(`run ${run.id} is a ${meta.kind} run, which cannot be applied`, ExitCode.Usage);
  const damagedPlan = planShapeProblem(meta.kind, run.readPlan());
  if (damagedPlan !== undefined) {
    throw new CliError(
      `run ${run.id}: damaged plan, plan again (${run.file('plan')}: ${damagedPlan}); nothing was written. Plan again with: mbulk import ${meta.kind} ${meta.input ?? 'FILE'}`,
      ExitCode.Usage,
    );
  }
  const { readJournal, journalDamage } = await import('../../apply/journal.js');
  const journal = readJournal(run.file('journal'));
  if (resume && !args.reconcile) {
    const damage = journalDamage(journal, meta.journal_seq);
    if (damage.length > 0) {
      const { JournalDamagedError } = await import('../../apply/apply-run.js');
      throw new CliError(
        new JournalDamagedError(run.id, run.file('journal'), damage).message,
        ExitCode.Usage,
      );
    }
    if (meta.status === 'applied') {
      throw new CliError(
        `run ${run.id} was already applied: there is nothing to resume, and resending could repeat writes. To check every operation its journal cannot prove against the store (nothing is resent blindly): mbulk runs resume ${run.id} --reconcile`,
        ExitCode.Usage,
      );
    }
  }
  if (resume && args.reconcile) run.settleUnproven = true;

  const target = await resolveTarget(args, ctx);
  let lock: { release(): void; setRunId(id: string): void } | undefined;
  try {
    const store = await target.client.me({ signal: ctx.signal });
    if (meta.store_id !== undefined && store.id !== meta.store_id) {
      throw new CliError(
        `run ${run.id} was planned for store ${meta.store_id}, but the token belongs to store ${store.id} (${store.name}); nothing was written`,
        ExitCode.Refused,
      );
    }
    // Two services can hold stores with the same id (two sandboxes do): the run also names where it
    // was planned, and writes go nowhere else.
    if (meta.target !== target.describe) {
      throw new CliError(
        `run ${run.id} was planned against ${meta.target}, but this command targets ${target.describe}; set --base-url (or MERCHANT_API_URL) to ${meta.target}. Nothing was written`,
        ExitCode.Refused,
      );
    }
    // One writer per store on this machine (also stops two resumes of one run racing).
    const { lockStore } = await import('../store-lock.js');
    lock = lockStore(args, ctx, target, store, run.id);
    out.line(`Run ${run.id} · ${meta.kind} · store ${store.name} (${store.id})`);
    // The journal knows what this run wrote: the drift check covers what it has not started. With
    // --reconcile the journal cannot be trusted to tell, and every operation re-reads the store.
    if (!args.reconcile && kind.drift) {
      const drifted = await withProgress(out, 'Check for drift', () => kind.drift!(run, target.client));
      if (drifted.length > 0) {
        out.line(
          `${drifted.length} planned ${drifted.length === 1 ? 'entity has' : 'entities have'} changed since planning:`,
        );
        for (const d of drifted.slice(0, 20)) out.line(`  ${d.type} ${d.id} (${d.label}): ${d.reason}`);
        if (drifted.length > 20) out.line(`  … and ${drifted.length - 20} more`);
        if (!args.replan || !kind.replan) {
          const how = kind.replan
            ? `mbulk apply ${run.id} --replan`
            : `mbulk import ${meta.kind} ${meta.input ?? 'FILE'}`;
          out.warn(`mbulk: refused: the live store drifted since planning; plan again with ${how}`);
          out.result({ ok: false, refused: 'drift', runId: run.id, drifted });
          return ExitCode.Refused;
        }
        if (journal.records > 0 && kind.replanRepeats?.(run)) {
          out.warn(
            `mbulk: refused: run ${run.id} already sent some of its changes, and planning its input again would send those again (${kind.replanRepeats(run)}); fix the drifted entities by hand or plan a new sheet with what is left`,
          );
          out.result({ ok: false, refused: 'drift', runId: run.id, drifted });
          return ExitCode.Refused;
        }
        const replanned = await withProgress(out, 'Plan again', (report) =>
          kind.replan!(run, {
            client: target.client,
            target: target.describe,
            onProgress: report,
            signal: ctx.signal,
          }),
        );
        out.line(`Planned again from the run's own copy of the input as run ${replanned.run.id}`);
        if (replanned.refusal) {
          out.warn(`mbulk: refused: ${replanned.refusal}`);
          out.result({ ok: false, refused: replanned.refusal, runId: replanned.run.id, drifted });
          return ExitCode.Refused;
        }
        run = replanned.run;
        lock.setRunId(run.id);
      }
    }
    await confirmApply(out, `${resume ? 'Resume' : 'Apply'} run ${run.id} on ${store.name}?`, args.yes);
    const result = await withProgress(out, resume ? 'Resume' : 'Apply', (report) =>
      kind.apply(run, {
        client: target.client,
        concurrency: args.concurrency,
        allowPriceJumps: args['allow-price-jumps'] === true,
        writeCheck: { strict: args['strict-check'] === true },
        onProgress: report,
        onWarning: (m) => out.warn(`warning: ${m}`),
        signal: ctx.signal,
      }),
    );
    // The same ending as an import: what was applied, failures, where the results are.
    out.line(appliedLine(result.summary));
    const failures = failureLines(result.summary);
    for (const line of failures.slice(0, 20)) out.line(`  ${line}`);
    if (failures.length > 20) out.line(`  … and ${failures.length - 20} more in ${run.file('results')}`);
    out.line(`Results: ${run.file('results')}`);
    if (failures.length > 0 && existsSync(run.file('failed')))
      out.line(`Failed rows to fix and re-import: ${run.file('failed')}`);
    if (result.status !== 'completed') out.warn(`mbulk: ${unfinishedLine(run, result.status)}`);
    out.result({
      ok: result.ok,
      runId: run.id,
      kind: meta.kind,
      status: result.status,
      ...result.summary,
      abortedBy: result.abortedBy,
    });
    return applyExitCode(out, result, !result.ok, ctx.apiSources);
  } finally {
    lock?.release();
    await target.close();
  }
}

/** `--help` of `--strict-check` (apply, runs resume). */
export const STRICT_CHECK_DESCRIBE =
  'Products and customers: re-read each entity (GET one) just before writing it, even when the plan is fresh (default: once the plan is more than 5 s old, check writes against a shared listing re-read every few seconds); a write whose entity changed since planning is refused as drifted and the run goes on';

export const registerApply: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'apply <run>',
    'Apply a saved plan (run id, id prefix, or path), refusing if the live store drifted since planning',
    (y) =>
      notifyOptions(y)
        .positional('run', { type: 'string', demandOption: true, describe: 'Run id, unique prefix, or path' })
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
        .option('strict-check', { type: 'boolean', default: false, describe: STRICT_CHECK_DESCRIBE })
        .option('runs-dir', { type: 'string', describe: 'Where run directories are (default: .mbulk/runs)' }),
    async (argv) => {
      setExit(await applySavedRun(argv as unknown as ApplyArgs, ctx, false));
    },
  );

/**
 * What is wrong with the shape of a run's plan.json (edited or damaged by hand), or undefined:
 * checked before anything reads it, so a missing field is "damaged plan", not a TypeError.
 */
export function planShapeProblem(kind: string, plan: unknown): string | undefined {
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) return 'not a JSON object';
  const p = plan as Record<string, unknown>;
  if (kind !== 'rollback') {
    if (p['kind'] !== kind) return `its kind is ${JSON.stringify(p['kind'])}, not "${kind}"`;
    const store = p['store'] as { id?: unknown } | undefined;
    if (typeof store !== 'object' || store === null || typeof store.id !== 'string')
      return 'store.id is missing';
    if (typeof p['input'] !== 'object' || p['input'] === null) return 'input is missing';
  }
  const inner = p['plan'] as Record<string, unknown> | undefined;
  const list = (name: string): string | undefined =>
    typeof inner === 'object' && inner !== null && Array.isArray(inner[name])
      ? undefined
      : `plan.${name} is missing`;
  switch (kind) {
    case 'stock': {
      const batch = p['batchSize'];
      if (typeof batch !== 'number' || !Number.isInteger(batch) || batch < 1) return 'batchSize is missing';
      return list('changes') ?? list('issues') ?? list('skipped');
    }
    case 'products':
      return list('entries');
    default:
      return undefined;
  }
}
