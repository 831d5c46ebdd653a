import { z } from 'zod';
import type { RunDirectory } from '../../apply/run-directory.js';
import { MbulkError } from '../../errors/mbulk-error.js';
import type { DriftedEntity } from '../../plan/drifted-entity.js';
import type { LeftAlone, NotReversible, RestoreEntry } from '../../plan/rollback-plan.js';
import type { RestoreChange } from '../../plan/rollback-product.js';
import { Customer, CustomerUpdate, Product, ProductUpdate } from '../../schema/index.js';
import { storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema, readPlanFile } from '../runner/plan-file.js';

/** A refusal or usage problem (category `usage` or `refused`). */
export class RollbackError extends MbulkError {
  static override readonly errorName: string = 'RollbackError';
  constructor(message: string, category: 'usage' | 'refused') {
    super(category, message);
  }
}

const RestoreChangeSchema: z.ZodType<RestoreChange> = z.looseObject({
  field: z.string(),
  now: z.unknown(),
  restore: z.unknown(),
});

const RestoreEntrySchema: z.ZodType<RestoreEntry> = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('stock'),
    key: z.string(),
    items: z.array(
      z.looseObject({
        itemId: z.string(),
        sku: z.string().nullable(),
        restore: z.number(),
        current: z.number(),
      }),
    ),
  }),
  z.looseObject({
    type: z.literal('customer'),
    key: z.string(),
    customerId: z.string(),
    label: z.string(),
    body: z.compile(CustomerUpdate.loose()),
    changes: z.array(RestoreChangeSchema),
    current: Customer,
  }),
  z.looseObject({
    type: z.literal('product'),
    key: z.string(),
    productId: z.string(),
    label: z.string(),
    body: z.compile(ProductUpdate.loose()),
    changes: z.array(RestoreChangeSchema),
    notes: z.array(z.string()),
    current: Product,
  }),
  z.looseObject({
    type: z.literal('product-delete'),
    key: z.string(),
    productId: z.string(),
    label: z.string(),
    current: Product,
  }),
]);

/** An entity, and why the rollback reports it (not reversible, drifted, left alone). */
const EntityReasonSchema: z.ZodType<NotReversible & LeftAlone & DriftedEntity> = z.looseObject({
  type: z.string(),
  id: z.string(),
  label: z.string(),
  reason: z.string(),
});

/** plan.json of a rollback run: what applying, drift and the report read. Plain JSON. */
export const RollbackPlanFileSchema = planFileSchema('rollback', {
  source: z.looseObject({ id: z.string(), kind: z.string(), status: z.string(), dir: z.string() }),
  /** `decimals`: of the store currency, for showing money. */
  store: storeSchema({ currency: z.string(), decimals: z.number() }),
  options: z.looseObject({ deleteCreated: z.boolean(), force: z.boolean() }),
  restores: z.array(RestoreEntrySchema),
  notReversible: z.array(EntityReasonSchema),
  drifted: z.array(EntityReasonSchema),
  leftAlone: z.array(EntityReasonSchema),
  counts: z.record(z.string(), z.number()),
  /** Set when the plan is refused (drift without force): nothing may be applied. */
  refusal: z.string().optional(),
});
export type RollbackPlanFile = z.infer<typeof RollbackPlanFileSchema>;

/** Reads a run's plan.json as a rollback plan, validated (a damaged or foreign plan: DamagedPlanError). */
export function readRollbackPlan(run: RunDirectory): RollbackPlanFile {
  return readPlanFile(run, RollbackPlanFileSchema);
}
