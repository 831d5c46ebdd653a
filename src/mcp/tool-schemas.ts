import { z } from 'zod';
import type { RunMeta } from '../apply/run-directory.js';
import { MoneySchema } from './money-value.js';

/** A run id argument. */
export const RunId = z.string().min(1).describe('A run id as returned by plan_import or list_runs');

/** The guards an assistant may lift in apply_plan (each named in `reason`). */
export const Allow = z
  .object({
    price_jumps: z.boolean().optional().describe('Write price changes of ×10 or more'),
    deletes: z
      .boolean()
      .optional()
      .describe('Delete products (only on a server started with --allow-delete)'),
  })
  .optional()
  .describe('Guards to lift for this apply; each needs a reason that names it');

export const Reason = z
  .string()
  .optional()
  .describe('Why a lifted guard should be lifted; must name each allow flag passed');

/** One planned change: money values are `{amount, currency}` in currency units. */
export const ChangeShape = z.object({
  index: z.number(),
  action: z.string(),
  entity: z.string(),
  id: z.string().nullable(),
  label: z.string(),
  sheet: z.string().nullable(),
  row: z.number().nullable(),
  fields: z.array(
    z.object({
      field: z.string(),
      before: z.unknown(),
      after: z.unknown(),
      note: z.string().optional(),
    }),
  ),
});

export const GuardShape = z.object({
  guard: z.string(),
  message: z.string(),
  allow: z.string().nullable(),
  operatorFlag: z.string().nullable(),
});

/** The invalid rows of a plan: how many, and the first ones with where and why. */
export const InvalidRowsShape = z.object({
  count: z.number(),
  first: z.array(
    z.object({
      sheet: z.string(),
      row: z.number(),
      column: z.string().nullable(),
      header: z.string().nullable(),
      code: z.string(),
      message: z.string(),
    }),
  ),
});

export const PriceJumpShape = z.object({
  label: z.string(),
  row: z.number().nullable(),
  before: MoneySchema.nullable(),
  after: MoneySchema,
  reason: z.string(),
  message: z.string(),
});

export const PlanOutput = {
  runId: z.string(),
  kind: z.string(),
  store: z.object({ id: z.string(), name: z.string() }),
  counts: z.record(z.string(), z.number()),
  writes: z.number(),
  planHash: z.string(),
  guards: z.array(GuardShape),
  priceJumps: z
    .object({ count: z.number(), first: z.array(PriceJumpShape) })
    .describe('Prices ×10 or more of the live price (or over 10× the median): how many, and the first 20'),
  invalidRows: InvalidRowsShape,
  notReversible: z
    .object({
      count: z.number(),
      first: z.array(z.object({ type: z.string(), id: z.string(), label: z.string(), reason: z.string() })),
    })
    .describe('A rollback: what the run did that it cannot (or will not) undo, and why'),
  firstChanges: z.array(ChangeShape),
  reviewPage: z.string(),
  report: z.string(),
};

export const RunOutput = {
  id: z.string(),
  kind: z.string(),
  status: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  storeId: z.string().nullable(),
  counts: z.record(z.string(), z.number()),
};

export const ApplyOutput = {
  runId: z.string(),
  kind: z.string(),
  status: z.string(),
  ok: z.boolean(),
  summary: z.record(z.string(), z.unknown()),
  results: z.string(),
  replannedFrom: z.string().nullable(),
};

/** A run's run.json as the tools return it. */
export function runFields(meta: RunMeta): Record<string, unknown> {
  return {
    id: meta.id,
    kind: meta.kind,
    status: meta.status,
    createdAt: meta.created_at,
    updatedAt: meta.updated_at,
    storeId: meta.store_id ?? null,
    counts: meta.counts,
  };
}
