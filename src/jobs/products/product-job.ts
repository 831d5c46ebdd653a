import { idempotencyKey } from '../../api/idempotency-key.js';
import { RefusedError } from '../../errors/refused-error.js';
import { isIdempotentRequest } from '../../api/retry.js';
import type { RowFilesSummary } from '../../apply/results-file.js';
import { WriteCheck } from '../../apply/write-check.js';
import { priceJumpRefusal } from '../../plan/price-jumps.js';
import { stockUnknownRefusal } from '../../plan/stock-unknown.js';
import type { PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import type { Product, ProductCreate, ProductUpdate } from '../../schema/index.js';
import type { AbortCause } from '../job-events.js';
import { failureOf } from '../runner/change-outcome.js';
import type {
  ApplyJobOptions,
  FailedRow,
  JobContext,
  JobDefinition,
  JobSession,
} from '../runner/job-definition.js';
import { rememberImages } from './image-memory.js';
import { checkProductDrift } from './product-drift.js';
import { ProductPlanFileSchema, type ProductOpResult, type ProductPlanFile } from './product-plan-file.js';
import { reconcileProductPatch } from './product-reconcile.js';
import { writeProductReport } from './product-report.js';
import { writeProductResults } from './product-results.js';
import { refuseChangedProduct, refuseExistingProduct, settleProductReplay } from './product-write-check.js';
import { replanProductRun } from './replan-product-run.js';

interface ProductOp {
  kind: 'product-create' | 'product-update' | 'product-hide' | 'product-delete';
  key: string;
  /** False for a PATCH whose variants/options create entries (a replay would create them twice). */
  idempotent: boolean;
  idempotencyKey?: string;
  /** Index of the entry in plan.entries. */
  index: number;
}

/**
 * `allowPriceJumps`: write a plan with suspicious prices (`--allow-price-jumps`). Default false: a
 * run that has not started refuses (exit 3) unless it was planned with the flag; a started run
 * (resume) goes on. `writeCheck`: re-read a product before writing it once the plan is a few
 * seconds old (see WriteCheck).
 */
export type ApplyProductsOptions = ApplyJobOptions;

export interface ProductApplySummary {
  runId: string;
  status: 'completed' | 'interrupted' | 'aborted';
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  updated: number;
  hidden: number;
  deleted: number;
  failed: number;
  unknown: number;
  notRun: number;
  /** Write requests sent by this session (one per operation executed; client retries not counted). */
  requests: number;
  rows: RowFilesSummary;
  /** Failed operations (by product). */
  failedOperations: { key: string; label: string; code: string; message: string; requestId?: string }[];
  /** Every failed or invalid input row. */
  failedRows: FailedRow[];
  /** Seconds spent writing. */
  seconds: number;
}

function buildOps(runId: string, plan: ProductPlan): ProductOp[] {
  const ops: ProductOp[] = [];
  plan.entries.forEach((e, index) => {
    switch (e.action) {
      case 'create':
        ops.push({
          kind: 'product-create',
          key: e.key,
          idempotent: true,
          idempotencyKey: idempotencyKey(runId, e.key, e.body),
          index,
        });
        break;
      case 'update':
      case 'hide':
        ops.push({
          kind: `product-${e.action}`,
          key: e.key,
          idempotent: isIdempotentRequest('PATCH', e.body, undefined),
          index,
        });
        break;
      case 'delete':
        ops.push({ kind: 'product-delete', key: e.key, idempotent: true, index });
        break;
      default:
        break;
    }
  });
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

type FailedOperation = ProductApplySummary['failedOperations'][number];

/**
 * One operation per writing entry, journaled. Creates are keyed POSTs (a replay after a lost answer
 * is answered from the service's memory), updates and hides are PATCHes of absolute values, deletes
 * are DELETEs: safe to replay. A PATCH whose variants or options create entries is not: when its
 * answer is lost it is reconciled (the product re-read, see reconcileProductPatch) and never resent
 * blindly. The before-state of each product is saved first (backup).
 */
function productSession(
  ctx: JobContext<ProductPlanFile>,
): JobSession<ProductOp, ProductOpResult, ProductApplySummary> {
  const started = performance.now();
  const { run, file, client, options } = ctx;
  const { plan } = file;
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  const entryOf = (op: ProductOp): PlanEntry => plan.entries[op.index] as PlanEntry;
  const counts = { created: 0, updated: 0, hidden: 0, deleted: 0 };
  const failedOperations: FailedOperation[] = [];
  let failedRows: FailedRow[] = [];

  async function writeProduct(op: ProductOp, entry: PlanEntry, id: string | null): Promise<ProductOpResult> {
    await ctx.saveBefore([
      { type: 'product', id: id ?? entry.key, before: id !== null ? (file.before[id] ?? null) : null },
    ]);
    ctx.countRequest();
    switch (op.kind) {
      case 'product-create': {
        // Writes get no abort signal: a stop lets those in flight finish and be journaled.
        const p = await client.products.create(entry.body as ProductCreate, {
          idempotencyKey: op.idempotencyKey,
        });
        const images = learnedImages(entry, p.images);
        return images ? { id: p.id, images } : { id: p.id };
      }
      case 'product-update':
      case 'product-hide':
        return patchResult(entry, await client.products.update(id as string, entry.body as ProductUpdate));
      case 'product-delete':
        await client.products.delete(id as string);
        return { id: id as string };
    }
  }

  const operations = buildOps(run.id, plan);
  // One catalog listing (both statuses) vs one get-one per update/hide/delete.
  check.preferListing(
    Math.ceil(plan.liveCount / 100) + 1,
    operations.filter((o) => o.kind !== 'product-create').length,
  );
  return {
    first: { operations },
    execute: async (op, exec) => {
      const entry = entryOf(op);
      // An absolute write whose earlier attempt has no known outcome is re-sent only while the
      // product is as planned; already holding the change settles it, anything else is drifted.
      if (exec.previous === 'unknown' && op.kind !== 'product-create') {
        const live = await settleProductReplay(client, check, entry, op.kind);
        if (live === 'deleted') return { id: entry.productId as string };
        if (live) return patchResult(entry, live);
      }
      // Refuse (nothing sent) a write whose product changed since planning: not overwritten.
      if (check.due(exec)) {
        if (op.kind === 'product-create') await refuseExistingProduct(client, check, entry);
        else await refuseChangedProduct(client, check, entry);
      }
      return writeProduct(op, entry, entry.productId);
    },
    // A PATCH that creates variants/options and lost its answer: re-read the product and decide.
    // Creates (keyed POSTs past the key's window) and deletes are left unknown, as before.
    reconcile: async (op) => {
      const entry = entryOf(op);
      if (op.kind !== 'product-update' && op.kind !== 'product-hide') {
        throw new Error(
          `could not tell whether the ${op.kind.slice('product-'.length)} of ${entry.label} (${op.key}) reached the store; check it, it will not be resent`,
        );
      }
      const decision = await reconcileProductPatch(client, entry, ctx.readSignal);
      return decision === 'not_applied' ? decision : { done: patchResult(entry, decision.applied) };
    },
    // One change per product (its rows get their results from product-results.ts).
    changes: (o) => {
      const entry = entryOf(o.op);
      if (o.status === 'done') counts[DONE_COUNT[o.op.kind]]++;
      else if (o.status !== 'not_run') {
        const f: FailedOperation = {
          key: o.key,
          label: entry.label,
          code: failureOf(o)?.code ?? 'failed',
          message: o.error?.message ?? 'no answer',
        };
        if (o.error?.requestId) f.requestId = o.error.requestId;
        failedOperations.push(f);
      }
      return [
        {
          sheet: entry.rows[0]?.sheet ?? file.sheets.products,
          row: entry.rows[0]?.rowNumber ?? 0,
          status: o.status,
          success: { outcome: 'updated' },
        },
      ];
    },
    // results.csv / failed.csv over the products sheet and the options sheet (product-results.ts).
    writeResults: async (_changes, execution) => {
      // Remember what the service made of the uploaded images (also from a previous session's journal).
      const pairs: [string, string][] = [];
      for (const o of execution.outcomes)
        if (o.status === 'done' && o.result?.images) pairs.push(...o.result.images);
      if (pairs.length > 0) rememberImages(file.imageMemoryFile, pairs);
      const rowFiles = await writeProductResults(
        run,
        file,
        new Map(execution.outcomes.map((o) => [o.key, o])),
      );
      failedRows = rowFiles.failedRows;
      return rowFiles.summary;
    },
    summarize: (t) => ({
      runId: run.id,
      status: t.execution.status,
      ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
      ...counts,
      failed: t.failed,
      unknown: t.unknown,
      notRun: t.notRun,
      requests: t.requests,
      rows: t.rows as RowFilesSummary,
      failedOperations,
      failedRows,
      seconds: (performance.now() - started) / 1000,
    }),
  };
}

/** Which count a done operation adds to. */
const DONE_COUNT = {
  'product-create': 'created',
  'product-update': 'updated',
  'product-hide': 'hidden',
  'product-delete': 'deleted',
} as const;

/** The products kind: catalog sheets (with options and images) planned against the live catalog. */
export const productJob: JobDefinition<ProductPlanFile, ProductOp, ProductOpResult, ProductApplySummary> = {
  kind: 'products',
  planSchema: ProductPlanFileSchema,
  refuse: (run, file, options) => {
    if (file.refusal) throw new RefusedError(file.refusal);
    const consented = options.allowPriceJumps === true || run.meta.options['allowPriceJumps'] === true;
    if (file.priceJumps && file.priceJumps.length > 0 && !consented && run.refresh().status === 'planned') {
      throw new RefusedError(priceJumpRefusal(file.priceJumps));
    }
    // Stock never made up: a plan read without --stock-unknown is never applied (plan it again with one).
    const unknownStock = stockUnknownRefusal(file.plan);
    if (unknownStock !== undefined) throw new RefusedError(unknownStock);
  },
  session: productSession,
  runCounts: (s) => ({
    created: s.created,
    updated: s.updated,
    hidden: s.hidden,
    deleted: s.deleted,
    failed: s.failed,
    requests: s.requests,
  }),
  report: writeProductReport,
  cliSummary: (s) => ({
    created: s.created,
    updated: s.updated,
    hidden: s.hidden,
    deleted: s.deleted,
    failed: s.failed,
    writeRequests: s.requests,
    failedRows: s.failedRows,
  }),
  drift: checkProductDrift,
  replan: (run, _file, options) => replanProductRun(run, options),
};
