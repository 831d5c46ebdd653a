import { z } from 'zod';
import type { ColumnUse } from '../../formats/source-format.js';
import type { CustomerMatchKey, CustomerPlan } from '../../plan/customer-plan.js';
import type { RunInput } from '../run-input.js';
import { listOf, RowIssuesSchema, RunInputSchema, StoreSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

/** What a blank cell means: leave the live value (default) or, for email, erase it. */
export type BlankMode = 'keep' | 'clear';

/** plan.json of a customers run. Plain JSON. */
export interface CustomerPlanFile {
  kind: 'customers';
  version: 1;
  store: { id: string; name: string; country: string };
  input: RunInput;
  blank: BlankMode;
  /** The keys rows were matched on, in order (absent in plans made before `--match`: id, phone, email). */
  match?: CustomerMatchKey[];
  /** Data rows read. */
  rows: number;
  liveCustomers: number;
  /** Row issues of the mapping and the plan (header issues first), in row order. */
  plan: CustomerPlan;
  /** Set when the sheet was read as another platform's export: its name and each column's use. */
  source?: { label: string; columns: ColumnUse[] };
}

/** What applying and drift read of a customers plan.json. */
export const CustomerPlanFileSchema = planFileSchema('customers', {
  store: StoreSchema,
  input: RunInputSchema,
  blank: z.enum(['keep', 'clear']),
  match: z.array(z.enum(['id', 'phone', 'email'])).optional(),
  rows: z.number(),
  liveCustomers: z.number(),
  plan: z.looseObject({
    entries: listOf({
      action: z.enum(['create', 'update', 'noop', 'skip']),
      sheet: z.string(),
      rowNumber: z.number(),
      key: z.string(),
      customerId: z.string().optional(),
      changes: z.array(z.looseObject({ field: z.string() })),
    }),
    issues: RowIssuesSchema,
    counts: z.record(z.string(), z.number()),
  }),
});
