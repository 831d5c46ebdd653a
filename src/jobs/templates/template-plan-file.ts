import { z } from 'zod';
import type { TemplatePlan } from '../../plan/template-plan.js';
import type { RunInput } from '../run-input.js';
import { listOf, RowIssuesSchema, RunInputSchema, StoreSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

/** plan.json of a templates run. Plain JSON. */
export interface TemplatePlanFile {
  kind: 'templates';
  version: 1;
  store: { id: string; name: string };
  input: RunInput;
  /** Where the submitted categories are remembered (`<stateDir>/stores/<store>/templates.json`). */
  stateDir: string;
  /** Create the valid rows even when others are invalid (default: nothing is created then). */
  skipInvalid: boolean;
  plan: TemplatePlan;
}

/** What applying reads of a templates plan.json. */
export const TemplatePlanFileSchema = planFileSchema('templates', {
  store: StoreSchema,
  input: RunInputSchema,
  stateDir: z.string(),
  skipInvalid: z.boolean(),
  plan: z.looseObject({
    entries: listOf({
      action: z.enum(['create', 'unchanged']),
      sheet: z.string(),
      rowNumber: z.number(),
      key: z.string(),
      name: z.string(),
      body: z.looseObject({ category: z.string() }),
    }),
    issues: RowIssuesSchema,
    counts: z.record(z.string(), z.number()),
  }),
});
