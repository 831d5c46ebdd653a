import { idempotencyKey } from '../../api/idempotency-key.js';
import { isIdempotentRequest } from '../../api/retry.js';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import type { InventoryBatchEntry } from '../../schema/index.js';
import { reconcileProductPatch } from '../products/product-reconcile.js';
import { CREATED_KEPT, type RestoreEntry } from '../../plan/rollback-plan.js';
import { defineJob } from '../runner/define-job.js';
import type { ApplyJobOptions, JobContext, JobSession, SummaryOf } from '../runner/job-definition.js';
import type { ChangeFailure, ChangeOutcome, ChangeWord } from '../../results/change-outcome.js';
import type { EntityFailure } from '../../results/entity-results.js';
import { checkRollbackDrift } from './rollback-drift.js';
import { RollbackError, RollbackPlanFileSchema, type RollbackPlanFile } from './rollback-plan-file.js';
import { writeRollbackReport } from './rollback-report.js';
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

export type ApplyRollbackOptions = ApplyJobOptions;

/** An entity the rollback did not restore, and why. */
export type RollbackFailure = EntityFailure;

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
/** A rollback's own summary values: its failures split from the entities it never reached. */
interface RollbackValues {
  /** Failed or of unknown outcome. */
  failed: number;
  /** Not tried: the rollback stopped first. */
  notReached: number;
}

function rollbackSession(
  ctx: JobContext<RollbackPlanFile>,
): JobSession<RollbackOp, RollbackOpResult, RollbackValues> {
  const { run, file, client } = ctx;
  return {
    operations: file.restores.map((e) => toOp(run.id, e)),
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
    changes: entityOutcomes,
    // Entities an interrupted rollback never reached are not failures: counted apart (`failures`
    // still lists them, with the code not_run, so the page marks them pending).
    values: (t) => {
      const notReached = t.changes.filter((c) => c.status === 'not_run').length;
      return { failed: t.failed - notReached, notReached };
    },
    // Entities the rollback does not restore, and why.
    results: {
      entities: [
        ...file.notReversible.map((n) => ({
          ...n,
          outcome: n.reason === CREATED_KEPT ? 'kept' : 'not_reversible',
        })),
        ...file.leftAlone.map((l) => ({ ...l, outcome: 'left_alone' })),
      ],
    },
  };
}

/** One outcome per restored entity (a stock batch restores several items, one of which can fail). */
function entityOutcomes(o: OperationOutcome<RollbackOp, RollbackOpResult>): ChangeOutcome[] {
  const { entry } = o.op;
  const of = (type: string, id: string, label: string, done: ChangeWord, itemFailure?: ChangeFailure) => {
    const change: ChangeOutcome = {
      status: o.status,
      outcome: done,
      rows: [],
      entityId: id,
      entity: { type, label },
    };
    return itemFailure ? { ...change, status: 'failed' as const, failure: itemFailure } : change;
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
export const rollbackJob = defineJob({
  kind: 'rollback',
  planSchema: RollbackPlanFileSchema,
  refuse: (_run, file) => {
    if (file.refusal) throw new RollbackError(file.refusal, 'refused');
  },
  session: rollbackSession,
  /**
   * The summary of a rollback: entities `restored` (stock items count one each; deleted products
   * included), `failed` (failed or of unknown outcome), `notReached` (not tried: the rollback stopped
   * first; continuing it restores them), `requests` (write requests this session sent), and
   * `failures`: each entity not restored, and why (not reached: the code not_run).
   */
  summary: {
    restored: { of: 'done' },
    failed: { of: 'own' },
    notReached: { of: 'own', run: 'not reached' },
    requests: { of: 'requests', cli: 'writeRequests' },
  },
  report: writeRollbackReport,
  drift: checkRollbackDrift,
});

export type RollbackApplySummary = SummaryOf<typeof rollbackJob>;
