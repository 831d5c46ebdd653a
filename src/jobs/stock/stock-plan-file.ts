import { z } from 'zod';
import type { StockPlan } from '../../plan/stock-plan.js';
import type { RunInput } from '../run-input.js';
import { listOf, RowIssuesSchema, RunInputSchema, StoreSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

/** plan.json of a stock run. Plain JSON. */
export interface StockPlanFile {
  kind: 'stock';
  version: 1;
  store: { id: string; name: string; currency: string };
  input: RunInput;
  batchSize: number;
  liveItems: number;
  plan: StockPlan;
  /** Set when a guardrail (--max-changes) refused the plan: it is never applied, not even by `mbulk apply`. */
  refusal?: string;
}

/** What applying, drift and replanning read of a stock plan.json. */
export const StockPlanFileSchema = planFileSchema('stock', {
  store: StoreSchema,
  input: RunInputSchema,
  batchSize: z.number().int().min(1),
  plan: z.looseObject({
    options: z.looseObject({ preserveSales: z.boolean() }),
    changes: listOf({
      itemId: z.string(),
      sheet: z.string(),
      rowNumber: z.number(),
      before: z.number(),
      after: z.number(),
      mode: z.enum(['quantity', 'delta']),
      value: z.number(),
    }),
    issues: RowIssuesSchema,
    skipped: listOf({ sheet: z.string(), rowNumber: z.number(), reason: z.string() }),
  }),
  refusal: z.string().optional(),
});
