import { idempotencyKey } from '../../api/idempotency-key.js';
import { isIdempotentRequest } from '../../api/retry.js';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import type { InventoryBatchEntry } from '../../schema/index.js';
import type { AbortCause } from '../job-events.js';
import { reconcileProductPatch } from '../products/product-reconcile.js';
import type { RestoreEntry } from '../../plan/rollback-plan.js';
import { failureOf } from '../runner/change-outcome.js';
import type {
  ApplyJobOptions,
  ChangeOutcome,
  JobContext,
  JobDefinition,
  JobSession,
} from '../runner/job-definition.js';
import { checkRollbackDrift } from './rollback-drift.js';
import { RollbackError, RollbackPlanFileSchema, type RollbackPlanFile } from './rollback-plan-file.js';
import { writeRollbackReport } from './rollback-report.js';
import { rollbackRow, writeRollbackResults, type RollbackRow } from './rollback-results.js';
import { isUnreachable } from '../../errors/exit-code.js';

interface RollbackOp {
  kind: `restore-${RestoreEntry['type']}`;
  key: string;
  /** False for a product PATCH that recreates variants/options (a replay would create them twice). */
  idempotent: boolean;
  idempotencyKey?: string;
  entry: RestoreEntry;
}

/** What an operation's journal record keeps. Stock: quantities written and failed entries. */
interface RollbackOpResult {
  id?: string;
  updatedAt?: string;
  applied?: Record<string, number>;
  failed?: Record<string, { code: string; message: string }>;
}

export type ApplyRollbackOptions = Omit<ApplyJobOptions, 'allowPriceJumps' | 'writeCheck'>;

export interface RollbackFailure {
  type: string;
  id: string;
  code: string;
  message: string;
}

export interface RollbackApplySummary {
  runId: string;
  status: 'completed' | 'interrupted' | 'aborted';
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  /** Entities restored (stock items count one each; deleted products included). */
  restored: number;
  failed: number;
  /** Write requests sent by this session. */
  requests: number;
  failures: RollbackFailure[];
}

function toOp(runId: string, entry: RestoreEntry): RollbackOp {
  const idempotent = entry.type === 'product' ? isIdempotentRequest('PATCH', entry.body, undefined) : true;
  const op: RollbackOp = { kind: `restore-${entry.type}`, key: entry.key, idempotent, entry };
  if (entry.type === 'stock') op.idempotencyKey = idempotencyKey(runId, entry.key, stockEntries(entry));
  return op;
}
function stockEntries(entry: Extract<RestoreEntry, { type: 'stock' }>): InventoryBatchEntry[] {
  return entry.items.map((i) => ({ item_id: i.itemId, quantity: i.restore }));
}

/**
 * Every write is absolute (quantities, field values) or a DELETE, journaled and safe to replay, so
 * a resumed rollback never does anything twice. The live state of each entity as planned is saved
 * first (the rollback's own backup.json).
 */
function rollbackSession(
  ctx: JobContext<RollbackPlanFile>,
): JobSession<RollbackOp, RollbackOpResult, RollbackApplySummary> {
  const { run, file, client } = ctx;
  const rows: RollbackRow[] = [];
  return {
    first: { operations: file.restores.map((e) => toOp(run.id, e)) },
    execute: async (op) => {
      const { entry } = op;
      switch (entry.type) {
        case 'stock': {
          await ctx.saveBefore(
            entry.items.map((i) => ({
              type: 'inventory_item',
              id: i.itemId,
              before: { quantity: i.current, sku: i.sku },
            })),
          );
          ctx.countRequest();
          const res = await client.inventory.batchUpdate(stockEntries(entry), {
            idempotencyKey: op.idempotencyKey,
            chunkSize: entry.items.length,
            // No abort signal on writes: a stop lets those in flight finish and be journaled.
          });
          const result: Required<Pick<RollbackOpResult, 'applied' | 'failed'>> = {
            applied: {},
            failed: {},
          };
          let fatal: unknown;
          for (const r of res.results) {
            if (r.ok) result.applied[r.entry.item_id] = r.item.quantity;
            else {
              const e = r.error as Error & { code?: string };
              if (isUnreachable(e)) fatal = e;
              result.failed[r.entry.item_id] = { code: e.code ?? e.name, message: e.message };
            }
          }
          // Unreachable or token rejected: fail the operation (it is retried on resume).
          if (fatal !== undefined && Object.keys(result.applied).length === 0) throw fatal;
          return result;
        }
        case 'customer': {
          const c = entry.current;
          await ctx.saveBefore([
            {
              type: 'customer',
              id: entry.customerId,
              before: { id: c.id, name: c.name, phone: c.phone, email: c.email, updated_at: c.updated_at },
            },
          ]);
          ctx.countRequest();
          const updated = await client.customers.update(entry.customerId, entry.body);
          return { id: updated.id, updatedAt: updated.updated_at };
        }
        case 'product': {
          await ctx.saveBefore([{ type: 'product', id: entry.productId, before: entry.current }]);
          ctx.countRequest();
          const p = await client.products.update(entry.productId, entry.body);
          return { id: p.id, updatedAt: p.updated_at };
        }
        case 'product-delete': {
          await ctx.saveBefore([{ type: 'product', id: entry.productId, before: entry.current }]);
          ctx.countRequest();
          await client.products.delete(entry.productId);
          return { id: entry.productId };
        }
      }
    },
    // A product restore that recreates variants/options and lost its answer: re-read the product
    // and decide. Other kinds are replay-safe; past the idempotency window they stay unknown.
    reconcile: async (op) => {
      const { entry } = op;
      if (entry.type !== 'product') {
        throw new Error(
          `could not tell whether ${op.key} reached the store; check it, it will not be resent`,
        );
      }
      const decision = await reconcileProductPatch(
        client,
        {
          key: entry.key,
          label: entry.label,
          productId: entry.productId,
          expectedUpdatedAt: entry.current.updated_at,
          body: entry.body,
        },
        ctx.readSignal,
      );
      if (decision === 'not_applied') return decision;
      return { done: { id: decision.applied.id, updatedAt: decision.applied.updated_at } };
    },
    changes: (o) =>
      entityOutcomes(o).map((r) => {
        rows.push(r.row);
        return r.change;
      }),
    writeResults: async () => {
      await writeRollbackResults(run.file('results'), rows, file);
      return undefined;
    },
    summarize: (t) => {
      const failures: RollbackFailure[] = t.changes
        .filter((c) => c.status !== 'done')
        .map((c) => ({
          type: c.sheet,
          id: c.success.entityId ?? '',
          code: c.failure?.code ?? '',
          message: c.failure?.message ?? '',
        }));
      return {
        runId: run.id,
        status: t.execution.status,
        ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
        restored: t.done,
        failed: failures.length,
        requests: t.requests,
        failures,
      };
    },
  };
}

/** One outcome per restored entity (a stock batch restores several items, one of which can fail). */
function entityOutcomes(
  o: OperationOutcome<RollbackOp, RollbackOpResult>,
): { change: ChangeOutcome; row: RollbackRow }[] {
  const { entry } = o.op;
  const failure = failureOf(o);
  const of = (
    type: string,
    id: string,
    label: string,
    done: string,
    entityFailure?: { code: string; message: string },
  ) => {
    const f = entityFailure ?? failure;
    const change: ChangeOutcome = {
      sheet: type,
      row: 0,
      status: entityFailure ? 'failed' : o.status,
      success: { outcome: 'updated', entityId: id },
    };
    if (f) change.failure = f;
    return {
      change,
      row: rollbackRow(type, id, label, f ? 'failed' : done, f?.code ?? '', f?.message ?? ''),
    };
  };
  if (entry.type === 'stock') {
    return entry.items.map((i) =>
      of(
        'inventory_item',
        i.itemId,
        i.sku ?? i.itemId,
        'restored',
        o.status === 'done' ? o.result?.failed?.[i.itemId] : undefined,
      ),
    );
  }
  const type = entry.type === 'customer' ? 'customer' : 'product';
  const id = entry.type === 'customer' ? entry.customerId : entry.productId;
  return [of(type, id, entry.label, entry.type === 'product-delete' ? 'deleted' : 'restored')];
}

/** The rollback kind: puts back what a run changed, from its backup. */
export const rollbackJob: JobDefinition<
  RollbackPlanFile,
  RollbackOp,
  RollbackOpResult,
  RollbackApplySummary
> = {
  kind: 'rollback',
  planSchema: RollbackPlanFileSchema,
  notRun: 'failure',
  refuse: (_run, file) => {
    if (file.refusal) throw new RollbackError(file.refusal, 'refused');
  },
  session: rollbackSession,
  runCounts: (s) => ({ restored: s.restored, failed: s.failed, requests: s.requests }),
  report: writeRollbackReport,
  cliSummary: (s) => ({
    restored: s.restored,
    failed: s.failed,
    writeRequests: s.requests,
    failures: s.failures,
  }),
  drift: checkRollbackDrift,
};
