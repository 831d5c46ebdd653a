import { dirname } from 'node:path';
import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../../api/errors.js';
import { idempotencyKey } from '../../api/idempotency-key.js';
import { RefusedError } from '../../errors/refused-error.js';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import type { StockChange } from '../../plan/stock-plan.js';
import type { LiveInventoryIndex } from '../../plan/live-inventory-index.js';
import { InventoryItem, type InventoryBatchEntry } from '../../schema/index.js';
import { runInputPath } from '../../apply/run-input.js';
import { defineJob } from '../runner/define-job.js';
import type { ApplyJobOptions, JobContext, JobSession, SummaryOf } from '../runner/job-definition.js';
import type { ChangeFailure, ChangeOutcome } from '../../results/change-outcome.js';
import { readItemQuantity, readLiveInventory, sharedInventoryReader } from './live-inventory.js';
import { planStockImport } from './plan-stock-import.js';
import { checkStockDrift } from './stock-drift.js';
import { StockPlanFileSchema, type StockPlanFile } from './stock-plan-file.js';
import { writeStockReport } from './stock-report.js';

export type StockOp =
  | {
      kind: 'stock-batch';
      key: string;
      idempotent: true;
      idempotencyKey: string;
      reReadExpired: boolean;
      changes: StockChange[];
    }
  | { kind: 'stock-item'; key: string; idempotent: boolean; change: StockChange };

/** What an operation's journal record keeps: small JSON. */
export interface StockOpResult {
  applied: Record<string, number>;
  failed: Record<string, ChangeFailure>;
}

export type ApplyStockOptions = ApplyJobOptions;

/** What a stock apply sends: batch requests, or one PATCH per item where the batch route is missing. */
type StockMode = 'batch' | 'per-item';

const BatchResponse = z.array(InventoryItem);

function entryOf(c: StockChange): InventoryBatchEntry {
  return c.mode === 'delta'
    ? { item_id: c.itemId, delta_quantity: c.value }
    : { item_id: c.itemId, quantity: c.value };
}

function entryFailure(error: unknown): ChangeFailure {
  const e = error as { code?: string; message?: string; requestId?: string; name?: string };
  return { code: e.code ?? e.name ?? 'error', message: e.message ?? String(error), requestId: e.requestId };
}

/** A 404 that names no parameter is the batch route itself missing (an unknown item names `<n>.item_id`). */
function isRouteMissing(error: unknown): boolean {
  return error instanceof NotFoundError && error.param === undefined;
}

function buildOps(runId: string, file: StockPlanFile, mode: 'batch' | 'per-item'): StockOp[] {
  const changes = file.plan.changes;
  if (mode === 'per-item') {
    return changes.map((change) => ({
      kind: 'stock-item',
      key: `stock-item:${change.itemId}`,
      idempotent: change.mode === 'quantity',
      change,
    }));
  }
  const ops: StockOp[] = [];
  for (let i = 0, n = 0; i < changes.length; i += file.batchSize, n++) {
    const chunk = changes.slice(i, i + file.batchSize);
    const key = `stock-batch:${n}`;
    ops.push({
      kind: 'stock-batch',
      key,
      idempotent: true,
      idempotencyKey: idempotencyKey(runId, key, chunk.map(entryOf)),
      // A batch of deltas whose key may have expired is re-read on resume, never sent blindly.
      reReadExpired: chunk.some((c) => c.mode === 'delta'),
      changes: chunk,
    });
  }
  return ops;
}

/**
 * Batches of `batchSize` through the batch route, each with a deterministic Idempotency-Key, so a
 * replay after a crash is answered from the service's memory instead of being applied twice; or,
 * where the route is missing, one PATCH per item, where a delta whose outcome is unknown is settled
 * by re-reading the item, never resent blindly.
 */
function stockSession(
  ctx: JobContext<StockPlanFile>,
): JobSession<StockOp, StockOpResult, { mode: StockMode; pendingItems: string[] }> {
  const { run, file, client } = ctx;
  let mode: StockMode = run.meta.options['inventoryMode'] === 'per-item' ? 'per-item' : 'batch';

  const sendBatch = async (op: Extract<StockOp, { kind: 'stock-batch' }>): Promise<StockOpResult> => {
    const result: StockOpResult = { applied: {}, failed: {} };
    let pending = op.changes;
    // A 400 naming one entry (`3.quantity`) fails that entry; the rest is resent as a new batch
    // (a new body, so a new key derived from the old one: a replay takes the same path).
    for (let attempt = 0; pending.length > 0; attempt++) {
      const body = pending.map(entryOf);
      const key = attempt === 0 ? op.idempotencyKey : idempotencyKey(run.id, `${op.key}:${attempt}`, body);
      try {
        ctx.countRequest();
        const items = await client.request({
          method: 'POST',
          path: client.paths.batchUpdate,
          body,
          schema: BatchResponse,
          idempotencyKey: key,
        });
        const byId = new Map(items.map((item) => [item.item_id, item.quantity]));
        for (const c of pending) result.applied[c.itemId] = byId.get(c.itemId) ?? c.after;
        return result;
      } catch (error) {
        const index = error instanceof InvalidRequestError ? /^(\d+)\./.exec(error.param ?? '') : null;
        const bad = index ? pending[Number(index[1])] : undefined;
        if (!bad) throw error;
        result.failed[bad.itemId] = entryFailure(error);
        pending = pending.filter((c) => c !== bad);
      }
    }
    return result;
  };
  const sendItem = async (op: Extract<StockOp, { kind: 'stock-item' }>): Promise<StockOpResult> => {
    const { change } = op;
    const body = change.mode === 'delta' ? { delta_quantity: change.value } : { quantity: change.value };
    ctx.countRequest();
    const item = await client.inventory.update(change.itemId, body);
    return { applied: { [change.itemId]: item.quantity }, failed: {} };
  };
  // Unknown outcomes settled together share one catalog read (strict mode has no get-one).
  const liveInventory = sharedInventoryReader(() => readLiveInventory(client, ctx.readSignal));
  // An operation this session has not sent was last touched by an earlier session (an unknown
  // outcome, or one its journal cannot prove unsent): one read, taken when the first of them is
  // settled, tells them all (this session writes an item only once it is decided).
  const sentNow = new Set<string>();
  let earlier: Promise<LiveInventoryIndex> | undefined;
  const earlierInventory = () => (earlier ??= readLiveInventory(client, ctx.readSignal));

  return {
    operations: buildOps(run.id, file, mode),
    // A service without the batch route (or the sandbox in strict mode): its 404 stops the first
    // pass, and one PATCH per item is sent instead, remembered so that a resumed run builds the same
    // operations.
    ...(mode === 'batch' ? { isFatal: isRouteMissing } : {}),
    secondPass: (first) => {
      if (mode !== 'batch' || first.status !== 'aborted' || !isRouteMissing(first.fatalError))
        return undefined;
      client.warnOnce(
        'inventory-batch-404',
        `The batch inventory route (POST ${client.paths.batchUpdate}) answered 404; sending one PATCH per item instead.`,
      );
      mode = 'per-item';
      run.update({ options: { ...run.meta.options, inventoryMode: mode } });
      return { operations: buildOps(run.id, file, mode) };
    },
    execute: async (op) => {
      const touched = op.kind === 'stock-batch' ? op.changes : [op.change];
      await ctx.saveBefore(
        touched.map((c) => ({
          type: 'inventory_item',
          id: c.itemId,
          before: { quantity: c.before, sku: c.sku },
        })),
      );
      sentNow.add(op.key);
      return op.kind === 'stock-batch' ? sendBatch(op) : sendItem(op);
    },
    // Called for per-item deltas (not idempotent), and for a keyed batch whose key the service
    // may have forgotten (started more than 24 h ago): re-read the items and decide.
    reconcile: async (op) => {
      const inventory = sentNow.has(op.key) ? liveInventory : earlierInventory;
      if (op.kind === 'stock-batch') {
        // Absolute quantities are harmless to send again; deltas are never resent blindly.
        if (op.changes.every((c) => c.mode !== 'delta')) return 'not_applied';
        const index = await inventory();
        const now = op.changes.map((c) => index.get(c.itemId)?.quantity);
        if (op.changes.every((c, i) => now[i] === c.after)) {
          return {
            done: { applied: Object.fromEntries(op.changes.map((c) => [c.itemId, c.after])), failed: {} },
          };
        }
        if (op.changes.every((c, i) => now[i] === c.before)) return 'not_applied';
        throw new Error(
          `could not tell whether the batch of ${op.changes.length} deltas (${op.key}) reached the store: its items are neither all at their planned quantities nor all at the quantities seen when planning; check them and fix by hand, it will not be resent`,
        );
      }
      const { change } = op;
      const now = await readItemQuantity(client, change, inventory);
      if (now === change.after) return { done: { applied: { [change.itemId]: now }, failed: {} } };
      if (now === change.before) return 'not_applied';
      throw new Error(
        `could not tell whether the delta ${change.value} reached item ${change.itemId}: the quantity is now ${now ?? 'unknown'} (planned ${change.before} → ${change.after}); check it and fix by hand, it will not be resent`,
      );
    },
    changes: (o) => itemChanges(o),
    results: {
      invalid: file.plan.issues,
      rows: file.plan.skipped.map((s) => ({
        sheet: s.sheet,
        row: s.rowNumber,
        outcome: 'skipped' as const,
        errorCode: 'inventory_not_enabled',
        errorMessage: s.reason,
      })),
    },
    // The mode the run's operations were built in, for a resume to build the same.
    finish: () => {
      if (run.meta.options['inventoryMode'] === undefined)
        run.update({ options: { ...run.meta.options, inventoryMode: mode } });
    },
    // The items the run did not reach (interrupted): the report shows them as pending.
    values: (t) => ({
      mode,
      pendingItems: t.changes.flatMap((c) =>
        c.status === 'not_run' && c.entityId !== undefined ? [c.entityId] : [],
      ),
    }),
  };
}

/** One change per item of the operation: a batch can fail one entry and apply the others. */
function itemChanges(o: OperationOutcome<StockOp, StockOpResult>): ChangeOutcome[] {
  const items = o.op.kind === 'stock-batch' ? o.op.changes : [o.op.change];
  return items.map((c): ChangeOutcome => {
    const where = {
      outcome: 'updated' as const,
      rows: [{ sheet: c.sheet, row: c.rowNumber }],
      entityId: c.itemId,
    };
    const entry = o.status === 'done' ? o.result?.failed[c.itemId] : undefined;
    return entry ? { ...where, status: 'failed', failure: entry } : { ...where, status: o.status };
  });
}

/** The stock kind: quantities of inventory items, absolute or as deltas. */
export const stockJob = defineJob({
  kind: 'stock',
  planSchema: StockPlanFileSchema,
  // A refused plan stays refused: `mbulk apply RUN` must not bypass --max-changes.
  refuse: (_run, file) => {
    if (file.refusal) throw new RefusedError(`refused: ${file.refusal}`);
  },
  session: stockSession,
  /**
   * `mode` (batch requests, or one PATCH per item), `applied` (items written), `failed`, `notRun`
   * (not tried because the run stopped first: resume the run), `requests` (write requests sent).
   */
  summary: {
    mode: { of: 'own' },
    applied: { of: 'done', cli: 'updated' },
    failed: { of: 'failed' },
    notRun: { of: 'notRun', run: false },
    requests: { of: 'requests', cli: 'writeRequests' },
  },
  report: writeStockReport,
  drift: checkStockDrift,
  deltasUnrecorded: true,
  // Plans the run's own copy of the sheet again, with the run's options, as a new run.
  replan: async (run, file, options) => {
    const maxChanges = run.meta.options['maxChanges'];
    const planned = await planStockImport({
      ...options,
      file: runInputPath(run, file.input),
      runsRoot: dirname(run.dir),
      read: file.input.sheet ? { sheet: file.input.sheet } : {},
      preserveSales: file.plan.options.preserveSales,
      batchSize: file.batchSize,
      maxChanges: typeof maxChanges === 'string' ? maxChanges : undefined,
      allowEmpty: run.meta.options['allowEmpty'] === true,
    });
    return { run: planned.run, refusal: planned.refusal };
  },
});

export type StockApplySummary = SummaryOf<typeof stockJob>;
