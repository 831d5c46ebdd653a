import { z } from 'zod';
import type { TemplatePlan, TemplatePlanEntry } from '../../plan/template-plan.js';
import { TEMPLATE_CREATE_CATEGORIES, type TemplateCreate } from '../../schema/index.js';
import { RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

const TemplateButtonSchema = z.looseObject({
  type: z.string().optional(),
  text: z.string().optional(),
  url: z.string().optional(),
  phone_number: z.string().optional(),
});

/** A template as it is sent (every field of the create body). */
const TemplateCreateSchema: z.ZodType<TemplateCreate> = z.looseObject({
  name: z.string(),
  body: z.string(),
  category: z.enum(TEMPLATE_CREATE_CATEGORIES),
  language: z.string().optional(),
  header: z.string().optional(),
  header_image_url: z.string().optional(),
  footer: z.string().optional(),
  buttons: z.array(TemplateButtonSchema).optional(),
  parameter_examples: z.record(z.string(), z.string()).optional(),
});

const TemplatePlanEntrySchema: z.ZodType<TemplatePlanEntry> = z.looseObject({
  action: z.enum(['create', 'unchanged']),
  sheet: z.string(),
  rowNumber: z.number(),
  name: z.string(),
  key: z.string(),
  body: TemplateCreateSchema,
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
