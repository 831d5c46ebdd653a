import { z } from 'zod';
import type { CustomerPlan, CustomerPlanEntry, FieldChange } from '../../plan/customer-plan.js';
import type { CustomerCreate, CustomerUpdate } from '../../schema/index.js';
import { ColumnUseSchema, RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

/** What a blank cell means: leave the live value (default) or, for email, erase it. */
export type BlankMode = 'keep' | 'clear';

const FieldChangeSchema: z.ZodType<FieldChange> = z.looseObject({
  field: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});

const CustomerCreateSchema: z.ZodType<CustomerCreate> = z.looseObject({
  name: z.string(),
  phone: z.string(),
  email: z.string().optional(),
});

const CustomerUpdateSchema: z.ZodType<CustomerUpdate> = z.looseObject({
  name: z.string().optional(),
  phone: z.string().optional(),
  email: z.string().nullable().optional(),
});

const CustomerPlanEntrySchema: z.ZodType<CustomerPlanEntry> = z.looseObject({
  action: z.enum(['create', 'update', 'noop', 'skip']),
  sheet: z.string(),
  rowNumber: z.number(),
  key: z.string(),
  customerId: z.string().exactOptional(),
  matchedBy: z.enum(['id', 'phone', 'email']).exactOptional(),
  create: CustomerCreateSchema.exactOptional(),
  update: CustomerUpdateSchema.exactOptional(),
  changes: z.array(FieldChangeSchema),
  expectedUpdatedAt: z.string().exactOptional(),
  before: z
    .looseObject({ name: z.string(), phone: z.string(), email: z.string().nullable() })
    .exactOptional(),
});

const CustomerPlanSchema: z.ZodType<CustomerPlan> = z.looseObject({
  kind: z.literal('customers'),
  entries: z.array(CustomerPlanEntrySchema),
  issues: RowIssuesSchema,
  counts: z.looseObject({
    create: z.number(),
    update: z.number(),
    noop: z.number(),
    skip: z.number(),
    invalid: z.number(),
  }),
});

/** plan.json of a customers run: what applying, drift and the report read. Plain JSON. */
export const CustomerPlanFileSchema = planFileSchema('customers', {
  store: storeSchema({ country: z.string() }),
  input: RunInputSchema,
  blank: z.enum(['keep', 'clear']),
  /** The keys rows were matched on, in order (absent in plans made before `--match`: id, phone, email). */
  match: z.array(z.enum(['id', 'phone', 'email'])).optional(),
  /** Data rows read. */
  rows: z.number(),
  liveCustomers: z.number(),
  /** Row issues of the mapping and the plan (header issues first), in row order. */
  plan: CustomerPlanSchema,
  /** Set when the sheet was read as another platform's export: its name and each column's use. */
  source: z
    .looseObject({
      label: z.string(),
      columns: z.array(ColumnUseSchema),
      /** Per address column: customers without their own phone that it gives one (`--phone-from`). */
      phones: z
        .array(
          z.object({
            header: z.string(),
            letter: z.string(),
            customers: z.number(),
            from: z.enum(['own', 'address']),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type CustomerPlanFile = z.infer<typeof CustomerPlanFileSchema>;
