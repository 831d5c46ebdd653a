import { z } from 'zod';
import type { RunDirectory } from '../../apply/run-directory.js';
import { MbulkError } from '../../errors/mbulk-error.js';
import type { LeftAlone, NotReversible, RestoreEntry } from '../../plan/rollback-plan.js';
import type { DriftedEntity } from '../runner/job-definition.js';
import { listOf } from '../runner/plan-file-parts.js';
import { planFileSchema, readPlanFile } from '../runner/plan-file.js';

/** plan.json of a rollback run. Plain JSON. */
export interface RollbackPlanFile {
  kind: 'rollback';
  version: 1;
  source: { id: string; kind: string; status: string; dir: string };
  /** `decimals`: of the store currency, for showing money. */
  store: { id: string; name: string; currency: string; decimals: number };
  options: { deleteCreated: boolean; force: boolean };
  restores: RestoreEntry[];
  notReversible: NotReversible[];
  drifted: DriftedEntity[];
  leftAlone: LeftAlone[];
  counts: Record<string, number>;
  /** Set when the plan is refused (drift without force): nothing may be applied. */
  refusal?: string;
}

/** A refusal or usage problem (category `usage` or `refused`). */
export class RollbackError extends MbulkError {
  static override readonly errorName: string = 'RollbackError';
  constructor(message: string, category: 'usage' | 'refused') {
    super(category, message);
  }
}

/** What applying and drift read of a rollback plan.json. */
export const RollbackPlanFileSchema = planFileSchema('rollback', {
  source: z.looseObject({ id: z.string(), kind: z.string(), status: z.string(), dir: z.string() }),
  store: z.looseObject({ id: z.string(), name: z.string(), decimals: z.number() }),
  options: z.looseObject({ deleteCreated: z.boolean(), force: z.boolean() }),
  restores: listOf({ type: z.enum(['stock', 'customer', 'product', 'product-delete']), key: z.string() }),
  notReversible: listOf({ type: z.string(), id: z.string(), label: z.string(), reason: z.string() }),
  drifted: listOf({ type: z.string(), id: z.string(), label: z.string(), reason: z.string() }),
  leftAlone: listOf({ type: z.string(), id: z.string(), label: z.string(), reason: z.string() }),
  counts: z.record(z.string(), z.number()),
  refusal: z.string().optional(),
});

/** Reads a run's plan.json as a rollback plan, validated (a damaged or foreign plan: DamagedPlanError). */
export function readRollbackPlan(run: RunDirectory): RollbackPlanFile {
  return readPlanFile<RollbackPlanFile>(run, RollbackPlanFileSchema);
}
