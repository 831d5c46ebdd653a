import { idempotencyKey } from '../../api/idempotency-key.js';
import { RefusedError } from '../../errors/refused-error.js';
import { isIdempotentRequest } from '../../api/retry.js';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import { takeListing, WriteCheck, type WriteCheckOptions } from '../../apply/write-check.js';
import { priceJumpRefusal } from '../../plan/price-jumps.js';
import { stockUnknownRefusal } from '../../plan/stock-unknown.js';
import { categoryRefusal } from '../../plan/category-plan.js';
import type { PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import type { Product } from '../../schema/index.js';
import { changeOf, failureOf, notWrittenByKey } from '../../results/change-outcome.js';
import { defineJob } from '../runner/define-job.js';
import type { ApplyJobOptions, JobContext, JobSession, SummaryOf } from '../runner/job-definition.js';
import { rememberImages } from './image-memory.js';
import { checkProductDrift } from './product-drift.js';
import { ProductPlanFileSchema, type ProductOpResult, type ProductPlanFile } from './product-plan-file.js';
import { reconcileProductPatch } from './product-reconcile.js';
import { writeProductReport } from './product-report.js';
import { productResults } from './product-results.js';
import { refuseChangedProduct, refuseExistingProduct, settleProductReplay } from './product-write-check.js';
import { replanProductRun } from './replan-product-run.js';

/** One write of the plan: the entry it sends (the body, the live product), by what it does. */
type ProductOp =
  | {
      kind: 'product-create';
      key: string;
      idempotent: true;
      idempotencyKey: string;
      entry: Extract<PlanEntry, { action: 'create' }>;
    }
  | {
      kind: 'product-update' | 'product-hide';
      key: string;
      /** False for a PATCH whose variants/options create entries (a replay would create them twice). */
      idempotent: boolean;
      entry: Extract<PlanEntry, { action: 'update' | 'hide' }>;
    }
  | {
      kind: 'product-delete';
      key: string;
      idempotent: true;
      entry: Extract<PlanEntry, { action: 'delete' }>;
    };

/**
 * `allowPriceJumps`: write a plan with suspicious prices (`--allow-price-jumps`). Default false: a
 * run that has not started refuses (exit 3) unless it was planned with the flag; a started run
 * (resume) goes on. `writeCheck`: re-read a product before writing it once the plan is a few
 * seconds old (see WriteCheck).
 */
export interface ApplyProductsOptions extends ApplyJobOptions {
  allowPriceJumps?: boolean | undefined;
  /**
   * Write a plan the delete guard refused when planned (`--allow-deletes`: it hides or deletes
   * more than the guard's share of the catalog). Default false: such a run is refused (exit 3).
   */
  allowDeletes?: boolean | undefined;
  writeCheck?: WriteCheckOptions | undefined;
}

/** A write that failed (or whose outcome is unknown), by product. */
export interface FailedProductOperation {
  key: string;
  label: string;
  code: string;
  message: string;
  requestId?: string;
}

/**
 * The kind's own summary values: failed writes by product, the seconds spent writing, and what
 * became of each plan entry that was not written (by its key: `pending` when the run stopped
 * before it, `failed: code: message`), for the report's per-product outcomes.
 */
interface ProductValues {
  failedOperations: FailedProductOperation[];
  seconds: number;
  notWritten: Record<string, string>;
}

/** What a done operation did to its product. */
const OUTCOME = {
  'product-create': 'created',
  'product-update': 'updated',
  'product-hide': 'hidden',
  'product-delete': 'deleted',
} as const;

function buildOps(runId: string, plan: ProductPlan): ProductOp[] {
  const ops: ProductOp[] = [];
  for (const entry of plan.entries) {
    const { key } = entry;
    switch (entry.action) {
      case 'create':
        ops.push({
          kind: 'product-create',
          key,
          idempotent: true,
          idempotencyKey: idempotencyKey(runId, key, entry.body),
          entry,
        });
        break;
      case 'update':
      case 'hide':
        ops.push({
          kind: `product-${entry.action}`,
          key,
          idempotent: isIdempotentRequest('PATCH', entry.body, undefined),
          entry,
        });
        break;
      case 'delete':
        ops.push({ kind: 'product-delete', key, idempotent: true, entry });
        break;
      default:
        break;
    }
  }
  return ops;
}

function learnedImages(entry: PlanEntry, stored: readonly string[]): [string, string][] | undefined {
  if (!entry.imageUploads || entry.imageUploads.length === 0) return undefined;
  const pairs: [string, string][] = [];
  for (const u of entry.imageUploads) {
    const s = stored[u.index];
    if (s !== undefined && s !== u.source) pairs.push([u.source, s]);
  }
  return pairs.length > 0 ? pairs : undefined;
}

/** The journaled result of an update/hide: the id, and what the service made of uploaded images. */
function patchResult(entry: PlanEntry, p: Product): ProductOpResult {
  const images = learnedImages(entry, p.images);
  return images ? { id: p.id, images } : { id: p.id };
}

/**
 * One operation per writing entry, journaled. Creates are keyed POSTs (a replay after a lost answer
 * is answered from the service's memory), updates and hides are PATCHes of absolute values, deletes
 * are DELETEs: safe to replay. A PATCH whose variants or options create entries is not: when its
 * answer is lost it is reconciled (the product re-read, see reconcileProductPatch) and never resent
 * blindly. The before-state of each product is saved first (backup).
 */
function productSession(
  ctx: JobContext<ProductPlanFile, ApplyProductsOptions>,
): JobSession<ProductOp, ProductOpResult, ProductValues> {
  const { run, file, client, options } = ctx;
  const { plan } = file;
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  // The run's own read of the catalog (the plan's, `import … --apply`; the drift check's, `mbulk
  // apply RUN`) is the check's first listing: no second read of the catalog while it is fresh.
  check.seed(takeListing(run));

  async function writeProduct(op: ProductOp): Promise<ProductOpResult> {
    const { entry } = op;
    const id = entry.productId;
    await ctx.saveBefore([
      { type: 'product', id: id ?? entry.key, before: id !== null ? (file.before[id] ?? null) : null },
    ]);
    ctx.countRequest();
    switch (op.kind) {
      case 'product-create': {
        // Writes get no abort signal: a stop lets those in flight finish and be journaled.
        const p = await client.products.create(op.entry.body, { idempotencyKey: op.idempotencyKey });
        const images = learnedImages(op.entry, p.images);
        return images ? { id: p.id, images } : { id: p.id };
      }
      case 'product-update':
      case 'product-hide':
        return patchResult(op.entry, await client.products.update(op.entry.productId, op.entry.body));
      case 'product-delete':
        await client.products.delete(op.entry.productId);
        return { id: op.entry.productId };
    }
  }

  const operations = buildOps(run.id, plan);
  // A listing of its own (both statuses) vs one get-one per update/hide/delete.
  check.preferListing(
    Math.ceil(plan.liveCount / 100) + 1,
    operations.filter((o) => o.kind !== 'product-create').length,
  );
  return {
    operations,
    execute: async (op, exec) => {
      const { entry } = op;
      // An absolute write whose earlier attempt has no known outcome is re-sent only while the
      // product is as planned; already holding the change settles it, anything else is drifted.
      if (exec.previous === 'unknown' && op.kind !== 'product-create') {
        const live = await settleProductReplay(client, check, op.entry, op.kind);
        if (live === 'deleted') return { id: op.entry.productId };
        if (live) return patchResult(entry, live);
      }
      // Refuse (nothing sent) a write whose product changed since planning: not overwritten.
      if (check.due(exec)) {
        if (op.kind === 'product-create') await refuseExistingProduct(client, check, op.entry);
        else await refuseChangedProduct(client, check, entry);
      }
      return writeProduct(op);
    },
    // A PATCH that creates variants/options and lost its answer: re-read the product and decide.
    // Creates (keyed POSTs past the key's window) and deletes are left unknown, as before.
    reconcile: async (op) => {
      const { entry } = op;
      if (op.kind !== 'product-update' && op.kind !== 'product-hide') {
        throw new Error(
          `could not tell whether the ${op.kind.slice('product-'.length)} of ${entry.label} (${op.key}) reached the store; check it, it will not be resent`,
        );
      }
      const decision = await reconcileProductPatch(client, entry, ctx.readSignal);
      return decision === 'not_applied' ? decision : { done: patchResult(entry, decision.applied) };
    },
    // One change per product: what it did, over every row of both sheets it was planned from.
    changes: (o) => {
      const { entry } = o.op;
      return [
        changeOf(o, {
          outcome: OUTCOME[o.op.kind],
          rows: entry.rows.map((r) => ({ sheet: r.sheet, row: r.rowNumber })),
          key: entry.label,
          entityId: o.status === 'done' ? o.result?.id || (entry.productId ?? undefined) : undefined,
        }),
      ];
    },
    results: productResults(run, file),
    // Remember what the service made of the uploaded images (also from a previous session's journal).
    finish: (execution) => {
      const pairs: [string, string][] = [];
      for (const o of execution.outcomes)
        if (o.status === 'done' && o.result?.images) pairs.push(...o.result.images);
      if (pairs.length > 0) rememberImages(file.imageMemoryFile, pairs);
    },
    values: (t) => ({
      failedOperations: t.execution.outcomes.flatMap(failedOperation),
      seconds: t.seconds,
      notWritten: notWrittenByKey(t.execution.outcomes, (op) => op.entry.key),
    }),
  };
}

/** A write that failed or whose outcome is unknown, as the summary lists it (none otherwise). */
function failedOperation(o: OperationOutcome<ProductOp, ProductOpResult>): FailedProductOperation[] {
  if (o.status === 'done' || o.status === 'not_run') return [];
  const f: FailedProductOperation = {
    key: o.key,
    label: o.op.entry.label,
    code: failureOf(o)?.code ?? 'failed',
    message: o.error?.message ?? 'no answer',
  };
  if (o.error?.requestId) f.requestId = o.error.requestId;
  return [f];
}

/** The products kind: catalog sheets (with options and images) planned against the live catalog. */
export const productJob = defineJob({
  kind: 'products',
  planSchema: ProductPlanFileSchema,
  refuse: (run, file, options) => {
    // A products plan's refusal is the delete guard's (checkGuardrail): --allow-deletes lifts it.
    if (file.refusal && options.allowDeletes !== true) throw new RefusedError(file.refusal);
    const consented = options.allowPriceJumps === true || run.meta.options['allowPriceJumps'] === true;
    if (file.priceJumps && file.priceJumps.length > 0 && !consented && run.refresh().status === 'planned') {
      throw new RefusedError(priceJumpRefusal(file.priceJumps));
    }
    // Stock never made up: a plan read without --stock-unknown is never applied (plan it again with one).
    const unknownStock = stockUnknownRefusal(file.plan);
    if (unknownStock !== undefined) throw new RefusedError(unknownStock);
    // Nor a migration's new products left off the storefront unasked (no category).
    const noCategory = categoryRefusal(file.plan);
    if (noCategory !== undefined) throw new RefusedError(noCategory);
  },
  session: productSession,
  /**
   * The summary of a products apply: products `created`, `updated`, `hidden`, `deleted`, `failed`
   * (failed writes and unknown outcomes), `notRun` (not tried because the run stopped first: resume
   * the run), `requests` (write requests this session sent, one per operation executed).
   */
  summary: {
    created: { of: ['created'] },
    updated: { of: ['updated'] },
    hidden: { of: ['hidden'] },
    deleted: { of: ['deleted'] },
    failed: { of: 'failed' },
    notRun: { of: 'notRun', run: false, cli: false },
    requests: { of: 'requests', cli: 'writeRequests' },
  },
  report: writeProductReport,
  drift: checkProductDrift,
  replan: (run, _file, options) => replanProductRun(run, options),
});

export type ProductApplySummary = SummaryOf<typeof productJob>;
