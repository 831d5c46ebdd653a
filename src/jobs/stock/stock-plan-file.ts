import { z } from 'zod';
import type { StockChange, StockPlan, StockSkip } from '../../plan/stock-plan.js';
import { RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

const StockChangeSchema: z.ZodType<StockChange> = z.looseObject({
  itemId: z.string(),
  sku: z.string().nullable(),
  name: z.string(),
  productId: z.string(),
  variantId: z.string().nullable(),
  sheet: z.string(),
  rowNumber: z.number(),
  before: z.number(),
  after: z.number(),
  mode: z.enum(['quantity', 'delta']),
  value: z.number(),
  expectedUpdatedAt: z.string(),
});

const StockSkipSchema: z.ZodType<StockSkip> = z.looseObject({
  sheet: z.string(),
  rowNumber: z.number(),
  reason: z.string(),
});

const StockPlanSchema: z.ZodType<StockPlan> = z.looseObject({
  kind: z.literal('stock'),
  options: z.looseObject({ preserveSales: z.boolean() }),
  rows: z.number(),
  changes: z.array(StockChangeSchema),
  unchanged: z.number(),
  skipped: z.array(StockSkipSchema),
  issues: RowIssuesSchema,
});

/** plan.json of a stock run: what applying, drift, replan and the report read. Plain JSON. */
export const StockPlanFileSchema = planFileSchema('stock', {
  store: storeSchema({ currency: z.string() }),
  input: RunInputSchema,
  /** Items per batch request. */
  batchSize: z.number().int().min(1),
  /** Inventory items in the store when planned (`--max-changes P%` counts against it). */
  liveItems: z.number(),
  plan: StockPlanSchema,
  /** Set when a guardrail (--max-changes) refused the plan: it is never applied, not even by `mbulk apply`. */
  refusal: z.string().optional(),
});
export type StockPlanFile = z.infer<typeof StockPlanFileSchema>;
