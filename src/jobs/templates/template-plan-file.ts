import { z } from 'zod';
import type { TemplatePlan, TemplatePlanEntry } from '../../plan/template-plan.js';
import { TemplateCreate } from '../../schema/index.js';
import { RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

const TemplatePlanEntrySchema: z.ZodType<TemplatePlanEntry> = z.looseObject({
  action: z.enum(['create', 'unchanged']),
  sheet: z.string(),
  rowNumber: z.number(),
  name: z.string(),
  key: z.string(),
  /** The template as it is sent, checked by the schema the planner checked it with. */
  body: TemplateCreate,
  existing: z.looseObject({ id: z.string(), status: z.string(), category: z.string() }).exactOptional(),
});

const TemplatePlanSchema: z.ZodType<TemplatePlan> = z.looseObject({
  kind: z.literal('templates'),
  entries: z.array(TemplatePlanEntrySchema),
  issues: RowIssuesSchema,
  counts: z.looseObject({ create: z.number(), unchanged: z.number(), invalid: z.number() }),
});

/** plan.json of a templates run: what applying and the report read. Plain JSON. */
export const TemplatePlanFileSchema = planFileSchema('templates', {
  store: storeSchema({}),
  input: RunInputSchema,
  /** Where the submitted categories are remembered (`<stateDir>/stores/<store>/templates.json`). */
  stateDir: z.string(),
  /** Create the valid rows even when others are invalid (default: nothing is created then). */
  skipInvalid: z.boolean(),
  plan: TemplatePlanSchema,
});
export type TemplatePlanFile = z.infer<typeof TemplatePlanFileSchema>;
