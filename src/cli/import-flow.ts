import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { MerchantClient } from '../api/merchant-client.js';
import type { RunDirectory } from '../apply/run-directory.js';
import type { InputIdentity } from '../jobs/input-identity.js';
import type { AbortCause, JobCallbacks } from '../jobs/job-events.js';
import type { ImportArgs } from './commands/import.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-code.js';
import type { ResolvedTarget } from './target.js';
import type { RemoteSource } from '../feeds/remote-source.js';

/** The options every planner takes, filled in from the command line. */
export interface PlanBasics extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  target: string;
  read: { sheet?: string };
  /** The input's identity (`--apply` of a kind that has one): recorded with the run. */
  identity?: InputIdentity | undefined;
}

/** What a planner returns: its run, the store it was planned for, and why it refuses (if it does). */
export interface PlannedImport {
  run: RunDirectory;
  store: { id: string; name: string };
  refusal?: string | undefined;
  /** A refusal that only stops `--apply` (the dry run shows the plan and exits as usual). */
  applyRefusal?: string | undefined;
}

/** What a kind's apply returns (AppliedSavedRun's `detail`), as far as the flow is concerned. */
export interface AppliedImport {
  status: string;
  failedRows: readonly unknown[];
  abortedBy?: AbortCause | undefined;
}

/** What the command printed about its plan, and what the flow needs of it. */
export interface PlanView {
  /** Fields of every JSON result (run id, run dir, target, counts…), in order. */
  base: Record<string, unknown>;
  /** Invalid rows: a dry run with any exits 1. */
  invalid: number;
  /** The invalid rows for a dry run's JSON result, under `key`. */
  invalidRows: { key: string; rows: unknown };
  /** Planned writes: none means "Nothing to …" and no confirmation. */
  writes: number;
  /** The dry run line when there are writes, and the one when there are none. */
  dryRun: string;
  nothing: string;
  /** The confirmation question before writing. */
  confirm: string;
  /** `mbulk: …` printed on a refusal (default `refused: REASON`). */
  refused?: (refusal: string) => string;
}

/** What the command printed about its apply, and the JSON fields it adds. */
export interface ApplyView {
  /** Result fields between `status` and `failedRows`, in order. */
  fields: Record<string, unknown>;
  /** A failure besides failed rows that makes the run not ok (exit 1). */
  alsoFailed?: boolean;
}

export interface ImportFlow<P extends PlannedImport, A extends AppliedImport> {
  /**
   * `stock`, `products`, `customers`, `messages`, `templates`: names the run in notifications (unless
   * `command`), and is the run's kind: with
   * `--apply`, a run of the same input (same kind, store and bytes) left unfinished is continued,
   * and an input of deltas already applied is refused (jobs/input-runs.ts).
   */
  kind?: string;
  /** Input files besides FILE that shape the plan (products' `--options`): part of the input's identity. */
  extraInputs?: readonly string[] | undefined;
  /** Values besides the files that are part of the input's identity (messages: the template). */
  identityParams?: readonly string[] | undefined;
  /**
   * The options that shape the plan (`images`, `missing`…): recorded with the run (run.json's
   * `plan_flags`); continuing the unfinished run of the same input with other values is refused
   * (exit 3): a run continues as it was planned.
   */
  planFlags?: readonly string[] | undefined;
  /** The command's own way of asking for an input applied already once more, besides --again (messages: --resend). */
  again?: boolean | undefined;
  /** The command notifications name (default `import KIND`), e.g. `messages send`. */
  command?: string;
  planLabel: string;
  plan(basics: PlanBasics): Promise<P>;
  /** Prints the plan (run, store, counts, changes, issues) and describes it. */
  show(planned: P, target: ResolvedTarget): PlanView;
  applyLabel: string;
  /** Prints the lines before `Results: …` (the counts, the failures). */
  summarize(applied: A): ApplyView;
  /** Print "Failed rows to fix and re-import: FILE" when rows failed. */
  failedFile: boolean;
  /** Lines after `Results: …` (and the failed rows file). */
  notes?: (applied: A) => readonly string[];
}

/**
 * The flow every sheet command shares: resolve the target, take the store's lock (with --apply),
 * plan (with progress), show the plan,
 * refuse (exit 3), stop at a dry run (exit 1 with invalid rows), confirm, apply (with progress),
 * print where the results are, and exit as the apply calls for. The command supplies its own parts.
 */
export async function runImportFlow<P extends PlannedImport, A extends AppliedImport>(
  args: ImportArgs,
  ctx: CommandContext,
  flow: ImportFlow<P, A>,
): Promise<number> {
  const { withNotification } = await import('./notify.js');
  return withNotification(args, ctx.out, flow.command ?? `import ${flow.kind ?? args.file}`, () =>
    importFromSource(args, ctx, flow),
  );
}

async function importFromSource<P extends PlannedImport, A extends AppliedImport>(
  args: ImportArgs,
  ctx: CommandContext,
  flow: ImportFlow<P, A>,
): Promise<number> {
  const out = ctx.out;
  if (args.header !== undefined && args.header.length > 0) {
    // A malformed --header is a usage error (naming it, never its value) whatever the source.
    const { parseHeaders } = await import('../feeds/remote-source.js');
    parseHeaders(args.header);
  }
  const runsRoot = resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
  let file = resolve(ctx.cwd, args.file);
  let remote: RemoteSource | undefined;
  if (/^https?:\/\//i.test(args.file)) {
    const { fetchRemoteSource } = await import('../feeds/remote-source.js');
    const { parseDuration, parseSize } = await import('../feeds/download-limits.js');
    const { headersFromEnv } = await import('./header-env.js');
    const maxDownload = args['max-download'];
    const timeout = args['download-timeout'];
    remote = await fetchRemoteSource({
      url: args.file,
      headers: [...(args.header ?? []), ...headersFromEnv(args['header-env'], ctx.env)],
      force: args.force === true,
      stateFile: join(dirname(runsRoot), 'sources.json'),
      insecureHttp: args['insecure-http'],
      maxBytes: maxDownload === undefined ? undefined : parseSize(maxDownload),
      timeoutMs: timeout === undefined ? undefined : parseDuration(timeout),
      crossOriginRedirects: args['follow-redirects'] === true,
      signal: ctx.signal,
    });
    if (remote.file === undefined) {
      const previous = remote.previous;
      const since =
        previous?.run !== undefined
          ? `since run ${previous.run} applied it at ${previous.appliedAt}`
          : 'since the last applied run';
      out.line(`Unchanged ${since}: ${remote.shown}; nothing to do (--force to import it anyway)`);
      out.result({
        ok: true,
        unchanged: true,
        applied: false,
        source: remote.shown,
        ...(previous?.run !== undefined ? { run: previous.run } : {}),
        ...(previous !== undefined ? { appliedAt: previous.appliedAt } : {}),
      });
      return ExitCode.Ok;
    }
    file = remote.file;
  }
  try {
    const code = await planAndApply(args, ctx, flow, file, runsRoot, remote?.shown);
    // Only a feed whose apply succeeded counts as done: a failed one is imported again next time.
    if (remote !== undefined && args.apply && code === ExitCode.Ok) remote.remember(ctx.run?.id);
    return code;
  } finally {
    // The run directory keeps its own copy; the download itself goes.
    if (remote?.file !== undefined) rmSync(dirname(remote.file), { recursive: true, force: true });
  }
}

async function planAndApply<P extends PlannedImport, A extends AppliedImport>(
  args: ImportArgs,
  ctx: CommandContext,
  flow: ImportFlow<P, A>,
  file: string,
  runsRoot: string,
  shown: string | undefined,
): Promise<number> {
  const { resolveTarget } = await import('./target.js');
  const { withProgress } = await import('./progress.js');
  const { confirmApply } = await import('./confirm.js');
  const { allInvalidHint, applyExitCode, unfinishedLine } = await import('./run-summary.js');
  const out = ctx.out;
  const target = await resolveTarget(args, ctx);
  let lock: { release(): void; setRunId(id: string): void } | undefined;
  try {
    let identity: InputIdentity | undefined;
    if (args.apply) {
      // One writer per store: taken before planning, so a second import refuses before it reads.
      const { lockStore } = await import('./lock-store.js');
      const { clientStore } = await import('../apply/run-store.js');
      const store = await clientStore(target.client, ctx.signal);
      lock = lockStore(ctx, target, store);
      if (flow.kind !== undefined) {
        // The same input as an earlier run: continue that run, or refuse deltas applied already.
        const { inputIdentity } = await import('../jobs/input-identity.js');
        const { inputRunDecision } = await import('../jobs/input-runs.js');
        identity = inputIdentity({
          kind: flow.kind,
          target: target.describe,
          storeId: store.id,
          file,
          shown: shown ?? args.file,
          sheet: args.sheet,
          extraFiles: flow.extraInputs,
          params: flow.identityParams,
        });
        const decision = inputRunDecision(runsRoot, identity, {
          again: args.again === true || flow.again === true,
        });
        if (decision.action === 'refuse') {
          const { refusal } = decision;
          out.warn(`mbulk: refused: ${refusal.message}`);
          // `applied` is how many of its changes the earlier run applied (null: not known).
          out.result({
            ok: false,
            ...refusal,
            applied: refusal.applied ?? null,
            total: refusal.total ?? null,
          });
          return ExitCode.Refused;
        }
        if (decision.action === 'continue') {
          const { planFlagsOf, planFlagsDiffer } = await import('./plan-flags.js');
          const differ = planFlagsDiffer(
            decision.run.meta.plan_flags,
            planFlagsOf(args as unknown as Record<string, unknown>, flow.planFlags ?? [], ctx.cwd),
          );
          if (differ.length > 0) {
            const { resumeRunCommand } = await import('./run-hints.js');
            const { id } = decision.run;
            out.warn(
              `mbulk: refused: run ${id} of ${identity.input} (the same input) is unfinished and was planned with other options: ${differ.join(', ')}. A run continues as it was planned: continue it with ${resumeRunCommand(id, args)} (or this command with the run's options). Nothing was written`,
            );
            out.result({ ok: false, refused: 'other-options', run: id, differ, applied: false });
            return ExitCode.Refused;
          }
          lock.setRunId(decision.run.id);
          const { continueInputRun } = await import('./continue-input-run.js');
          return await continueInputRun(args, ctx, target, decision);
        }
      }
    }
    const planned = await withProgress(out, flow.planLabel, (report) =>
      flow.plan({
        client: target.client,
        file,
        runsRoot,
        target: target.describe,
        read: args.sheet ? { sheet: args.sheet } : {},
        identity,
        onProgress: report,
        onWarning: (m) => out.warn(`warning: ${m}`),
        signal: ctx.signal,
      }),
    );
    lock?.setRunId(planned.run.id);
    if (flow.planFlags !== undefined) {
      // How it was planned: a re-run that continues it must be given the same (see planFlags).
      const { planFlagsOf } = await import('./plan-flags.js');
      planned.run.update({
        plan_flags: planFlagsOf(args as unknown as Record<string, unknown>, flow.planFlags, ctx.cwd),
      });
    }
    const { continueRunCommand, resumeRunCommand } = await import('./run-hints.js');
    const runId = planned.run.id;
    ctx.run = {
      id: runId,
      journal: planned.run.file('journal'),
      // Stopped at the prompt the run is only planned: `mbulk apply RUN` writes it; once it has
      // begun writing, `mbulk runs resume RUN` continues it.
      continueWith: () => continueRunCommand(planned.run, args),
    };
    const view = flow.show(planned, target);
    const hint = allInvalidHint(planned.run.meta.counts['rows'] ?? 0, view.invalid, {
      command: flow.command ?? `import ${flow.kind ?? ''}`.trim(),
      sheet: args.sheet,
    });
    if (hint !== undefined) out.warn(hint);
    // The review page (report.html) beside report.md: its path is printed and in every JSON result.
    const reportHtml = planned.run.file('reportHtml');
    out.line(`Review page: ${reportHtml}`);
    const base = { ...view.base, reportHtml };

    if (planned.refusal) {
      out.warn(`mbulk: ${view.refused ? view.refused(planned.refusal) : `refused: ${planned.refusal}`}`);
      out.result({ ok: false, refused: planned.refusal, applied: false, ...base });
      return ExitCode.Refused;
    }
    if (!args.apply) {
      out.line(view.writes > 0 ? view.dryRun : view.nothing);
      out.result({
        ok: view.invalid === 0,
        applied: false,
        ...base,
        [view.invalidRows.key]: view.invalidRows.rows,
      });
      return view.invalid > 0 ? ExitCode.RowsFailed : ExitCode.Ok;
    }
    if (planned.applyRefusal) {
      out.warn(`mbulk: ${planned.applyRefusal}`);
      out.result({ ok: false, refused: planned.applyRefusal, applied: false, ...base });
      return ExitCode.Refused;
    }
    // Written through the library's one apply entry, as `mbulk apply RUN` would: the store's lock
    // (held since before planning), the run's checks, the confirmation, the journal.
    const { applySavedRun } = await import('../jobs/apply-saved-run.js');
    const { savedRunRefused } = await import('./saved-run-output.js');
    const outcome = await applySavedRun(planned.run, {
      client: target.client,
      target: target.describe,
      justPlanned: true,
      lock: false,
      concurrency: args.concurrency,
      writeCheck: { strict: args['strict-check'] === true },
      // The question names the target: a store's name alone does not say which server it is on.
      confirm: async () => {
        if (view.writes > 0)
          await confirmApply(out, `${view.confirm.replace(/\?$/, '')} at ${target.describe}?`, args.yes);
        return true;
      },
      step: (_step, work) => withProgress(out, flow.applyLabel, work),
      onWarning: (m) => out.warn(`warning: ${m}`),
      signal: ctx.signal,
    });
    if (outcome.applied === false && outcome.refused === 'invalid-rows') {
      // Invalid rows the plan was not made to skip (the library's refusal, for every caller).
      out.warn(`mbulk: ${outcome.message}`);
      out.result({ ok: false, applied: false, ...base, [view.invalidRows.key]: view.invalidRows.rows });
      return ExitCode.RowsFailed;
    }
    if (outcome.applied === false) return await savedRunRefused(ctx, outcome);
    // The kind's own summary: what its runner returned for this run.
    const applied = outcome.detail as A;
    // An apply that stopped leads with that (never a success line).
    if (applied.status !== 'completed')
      out.warn(unfinishedLine(planned.run, applied.status, resumeRunCommand(planned.run.id, args)));
    const summary = flow.summarize(applied);
    out.line(`Results: ${planned.run.file('results')}`);
    if (flow.failedFile && applied.failedRows.length > 0)
      out.line(`Failed rows to fix and re-import: ${planned.run.file('failed')}`);
    for (const note of flow.notes?.(applied) ?? []) out.line(note);
    const ok = applied.failedRows.length === 0 && !summary.alsoFailed && applied.status === 'completed';
    out.result({
      ok,
      applied: true,
      ...base,
      status: applied.status,
      ...summary.fields,
      failedRows: applied.failedRows,
      abortedBy: applied.abortedBy,
    });
    return applyExitCode(out, applied, !ok, ctx.apiSources);
  } finally {
    lock?.release();
    await target.close();
  }
}

/** The error rows of a plan, for a dry run's JSON (`column` too when asked). */
export function invalidRows(
  issues: readonly {
    severity: string;
    sheet: string;
    rowNumber: number;
    column?: string | undefined;
    code: string;
    message: string;
  }[],
  withColumn = false,
) {
  return issues
    .filter((i) => i.severity === 'error')
    .map((i) =>
      withColumn
        ? { sheet: i.sheet, row: i.rowNumber, column: i.column, code: i.code, message: i.message }
        : { sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message },
    );
}
