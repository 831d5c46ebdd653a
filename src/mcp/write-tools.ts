import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RunDirectory } from '../apply/run-directory.js';
import type { SavedRunRefusal } from '../jobs/saved-run-refusal.js';
import { checkApplyGuards, trippedGuards, type ApplyRequest } from './apply-guards.js';
import type { McpServerDeps } from './mcp-deps.js';
import { progressSender, type Extra } from './progress-sender.js';
import { planHash } from './plan-hash.js';
import { readPlanView } from './plan-view.js';
import { Allow, ApplyOutput, Reason, RunId } from './tool-schemas.js';
import { guarded, toolError, toolResult } from './tool-result.js';

/** How to plan a run's input again, in tool terms. */
function planAgain(kind: string): string {
  return kind === 'rollback'
    ? 'plan the rollback again (rollback_run) and apply the new plan with its plan_hash'
    : 'plan the sheet again (plan_import with the same source) and apply the new plan with its plan_hash';
}

/** A refusal of the library's apply entry, said in tool terms (every other field kept as data). */
export function refusalMessage(refusal: SavedRunRefusal, kind: string): string {
  const id = refusal.runId;
  switch (refusal.refused) {
    case 'not-planned':
      return `run ${id} was already ${refusal.status === 'applying' ? 'started' : refusal.status}; continue it with resume_run (run_id ${id})`;
    case 'stale-plan':
      return `run ${id} cannot be applied as it was planned; ${planAgain(kind)}`;
    case 'damaged-plan':
      return `run ${id}: its plan.json is not what mbulk wrote (${refusal.problem}); nothing was written; ${planAgain(kind)}`;
    case 'damaged-journal':
      return `run ${id}: its journal cannot prove what was sent (${refusal.damage.slice(0, 3).join('; ')}); nothing was written. resume_run with reconcile: true re-reads the store for every operation the journal cannot prove (nothing is resent blindly)`;
    case 'already-applied':
      return `run ${id} was already applied: there is nothing to resume. resume_run with reconcile: true checks every operation its journal cannot prove against the store (nothing is resent blindly)`;
    case 'other-store':
      return `run ${id} was planned for store ${refusal.plannedStore}, but this server's token belongs to store ${refusal.store.id} (${refusal.store.name}); nothing was written. Only the server's operator can change the store (the token mbulk mcp runs with)`;
    case 'other-target':
      return `run ${id} was planned against ${refusal.plannedTarget}, but this server writes to ${refusal.target}; nothing was written. Only the server's operator can change where it writes (MERCHANT_API_URL of mbulk mcp)`;
    case 'drift':
      return `the live store changed since run ${id} was planned (${refusal.drifted.length} entit${refusal.drifted.length === 1 ? 'y' : 'ies'}: see drifted); nothing was written; ${planAgain(kind)}`;
    case 'replan-repeats':
    case 'replan-refused':
      return `the live store changed since run ${id} was planned; nothing was written; ${planAgain(kind)}`;
    case 'busy':
      return refusal.pid !== undefined
        ? `run ${id} is being applied by process ${refusal.pid}; nothing was written; ask again (run_status) once it has finished`
        : `another mbulk is writing to this store; nothing was written; try again when it has finished (run_status tells a run's progress)`;
    case 'invalid-rows':
      return `run ${id} has invalid rows (${refusal.issues.length} error${refusal.issues.length === 1 ? '' : 's'}: see issues) and was not planned with skip_invalid; nothing was written; fix the rows, or plan the sheet again with skip_invalid: true`;
    case 'not-appliable':
    case 'plan-refused':
    case 'declined':
      return refusal.message;
  }
}

/** The fields of a refusal as data: what was refused and the entities concerned, no directories. */
function refusalData(refusal: SavedRunRefusal): Record<string, unknown> {
  const { applied: _, message: __, ...fields } = refusal;
  if ('issues' in fields) {
    // Bounded like every result: the first 20 errors and their count.
    const { issues, ...rest } = fields;
    return {
      ...(JSON.parse(JSON.stringify(rest)) as Record<string, unknown>),
      issues: JSON.parse(JSON.stringify(issues.slice(0, 20))) as unknown,
      issueCount: issues.length,
    };
  }
  if ('replannedRun' in fields) {
    const { replannedRun, ...rest } = fields;
    return {
      ...(JSON.parse(JSON.stringify(rest)) as Record<string, unknown>),
      replannedRun: replannedRun.id,
    };
  }
  return JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
}

/** apply_plan and resume_run: not registered on a `--read-only` server. */
export function registerWriteTools(
  server: McpServer,
  deps: McpServerDeps,
  run: (id: string) => RunDirectory,
): void {
  const { options } = deps;

  /**
   * Applies whose client cancelled them: they stop taking writes at once, but hold the store's lock
   * until the writes in flight are answered and journaled. The next apply or resume waits for them
   * (a client's "resume" right after its cancel is not refused as busy by its own server).
   */
  const winding = new Set<Promise<unknown>>();

  async function apply(
    r: RunDirectory,
    request: ApplyRequest & { reconcile?: boolean | undefined },
    extra: Extra,
    resume: boolean,
  ): Promise<CallToolResult> {
    await Promise.allSettled([...winding]);
    // Never rejects: a failure is a tool error (a cancelled call's answer is dropped by the SDK).
    const applying = guarded(() => applyChecked(r, request, extra, resume));
    const onCancel = (): void => {
      winding.add(applying);
      void applying.finally(() => winding.delete(applying));
    };
    if (extra.signal.aborted) onCancel();
    else extra.signal.addEventListener('abort', onCancel, { once: true });
    return applying;
  }

  async function applyChecked(
    r: RunDirectory,
    request: ApplyRequest & { reconcile?: boolean | undefined },
    extra: Extra,
    resume: boolean,
  ): Promise<CallToolResult> {
    const refusal = checkApplyGuards(trippedGuards(readPlanView(r), options), request);
    if (refusal !== undefined)
      return toolError({
        error: 'refused',
        runId: r.id,
        ...refusal,
        message: `refused: ${refusal.message}; nothing was written`,
      });
    const { applySavedRun } = await import('../jobs/apply-saved-run.js');
    const onProgress = progressSender(extra);
    const outcome = await applySavedRun(r, {
      client: deps.client,
      target: deps.target,
      resume,
      ...(request.reconcile === true ? { reconcile: true } : {}),
      allowPriceJumps: request.allow?.price_jumps === true,
      lock: deps.lock,
      ...(onProgress ? { onProgress } : {}),
      // A client's cancellation stops new writes as Ctrl-C does: the run is interrupted and resumable.
      signal: AbortSignal.any([deps.signal, extra.signal]),
    });
    if (outcome.applied === false) {
      return toolError({
        error: 'refused',
        ...refusalData(outcome),
        message: `refused (${outcome.refused}): ${refusalMessage(outcome, r.meta.kind)}`,
      });
    }
    return toolResult({
      runId: outcome.run.id,
      kind: outcome.kind,
      status: outcome.status,
      ok: outcome.ok,
      summary: JSON.parse(JSON.stringify(outcome.summary)) as Record<string, unknown>,
      results: outcome.run.file('results'),
      replannedFrom: outcome.replannedFrom ?? null,
    });
  }

  /** The refusal of a hash that is not the run's plan's, or undefined when it is. */
  function wrongHash(r: RunDirectory, given: string): CallToolResult | undefined {
    if (given === planHash(r)) return undefined;
    return toolError({
      error: 'refused',
      refused: 'plan-hash',
      runId: r.id,
      message: `refused: the plan hash does not match run ${r.id}'s plan (it changed since, or is another run's); show it again (show_plan) and apply with its hash. Nothing was written`,
    });
  }

  server.registerTool(
    'apply_plan',
    {
      title: 'Apply a plan',
      description:
        "Writes a planned run to the store: an import, or a rollback planned with rollback_run. Needs the run id and the plan hash plan_import, rollback_run or show_plan returned: a plan changed since, made for another store, or whose entities changed in the store since planning is refused. Guards (max changes, hides, deletes, price jumps) are refused unless lifted by an allow flag that a reason names; some only the server's operator can lift.",
      inputSchema: { run_id: RunId, plan_hash: z.string().min(1), allow: Allow, reason: Reason },
      outputSchema: ApplyOutput,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args, extra) =>
      guarded(async () => {
        const r = run(args.run_id);
        return wrongHash(r, args.plan_hash) ?? apply(r, args, extra, false);
      }),
  );

  server.registerTool(
    'resume_run',
    {
      title: 'Resume a run',
      description:
        'Continues an interrupted run (or one cancelled while applying): operations its journal proves done are not sent again, the rest are checked for drift and sent once. A run that was planned and never started is applied only with its plan_hash (as apply_plan). The same guards as apply_plan apply.',
      inputSchema: {
        run_id: RunId,
        plan_hash: z
          .string()
          .min(1)
          .optional()
          .describe('The plan hash you were shown: needed for a run that never started, checked when given'),
        allow: Allow,
        reason: Reason,
        reconcile: z
          .boolean()
          .optional()
          .describe(
            'Re-read the store for every operation the journal cannot prove (a damaged journal, or a run already applied); nothing is resent blindly',
          ),
      },
      outputSchema: ApplyOutput,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args, extra) =>
      guarded(async () => {
        const r = run(args.run_id);
        const meta = r.refresh();
        if (args.plan_hash !== undefined) {
          const wrong = wrongHash(r, args.plan_hash);
          if (wrong !== undefined) return wrong;
        } else if (meta.status === 'planned') {
          // Nothing of it was ever written: it is applied as a plan is, once seen (by its hash).
          return toolError({
            error: 'refused',
            refused: 'never-started',
            runId: r.id,
            status: meta.status,
            message: `refused: run ${r.id} was planned and never started, so there is nothing to resume; show it (show_plan) and apply it with apply_plan (run_id ${r.id} and its plan_hash), or pass its plan_hash here. Nothing was written`,
          });
        }
        return apply(r, args, extra, meta.status !== 'planned');
      }),
  );
}
