import { z } from 'zod';

export const TEMPLATE_STATUSES = [
  'APPROVED',
  'IN_APPEAL',
  'PENDING',
  'REJECTED',
  'PENDING_DELETION',
  'DELETED',
  'DISABLED',
  'PAUSED',
  'LIMIT_EXCEEDED',
] as const;
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
/** Categories a merchant may submit (AUTHENTICATION is listed on templates but not creatable). */
export const TEMPLATE_CREATE_CATEGORIES = ['MARKETING', 'UTILITY'] as const;
export const TemplateStatus = z.enum(TEMPLATE_STATUSES);
export const TemplateCategory = z.enum(TEMPLATE_CATEGORIES);
export type TemplateStatus = z.infer<typeof TemplateStatus>;
export type TemplateCategory = z.infer<typeof TemplateCategory>;

export const TEMPLATE_LIMITS = {
  nameMax: 512,
  bodyMax: 1024,
  headerMax: 60,
  footerMax: 60,
  buttonsMax: 3,
  headerImageBytesMax: 5 * 1024 * 1024,
} as const;

/** `{{name}}` variables, as written in a template body. */
const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const ANY_VARIABLE = /\{\{.*?\}\}/;

/** Named variables in a template body, in first-seen order, without duplicates. */
export function templateVariables(body: string): string[] {
  const seen = new Set<string>();
  for (const m of body.matchAll(VARIABLE)) seen.add(m[1] as string);
  return [...seen];
}

export const TemplateButton = z.object({
  type: z.string().optional(),
  text: z.string().optional(),
  url: z.string().optional(),
  phone_number: z.string().optional(),
});
export type TemplateButton = z.infer<typeof TemplateButton>;

export const MessageTemplate = z.object({
  id: z.string(),
  object: z.literal('message_template'),
  name: z.string(),
  status: TemplateStatus,
  category: TemplateCategory,
  language: z.string(),
  header: z.string().nullable(),
  header_image_url: z.string().nullable(),
  body: z.string(),
  footer: z.string().nullable(),
  buttons: z.array(TemplateButton),
  parameters: z.array(z.string()),
  rejected_reason: z.string().nullable(),
});
export type MessageTemplate = z.infer<typeof MessageTemplate>;

export const TemplateCreate = z
  .object({
    name: z
      .string()
      .min(1)
      .max(TEMPLATE_LIMITS.nameMax)
      .regex(/^[a-z0-9_]+$/, 'only lowercase letters, digits and underscores'),
    body: z.string().min(1).max(TEMPLATE_LIMITS.bodyMax),
    category: z.enum(TEMPLATE_CREATE_CATEGORIES),
    language: z.string().min(1).optional(),
    header: z
      .string()
      .max(TEMPLATE_LIMITS.headerMax)
      .refine((s) => !ANY_VARIABLE.test(s), 'header cannot contain variables')
      .optional(),
    header_image_url: z
      .string()
      .regex(/^https:\/\/\S+\.(jpe?g|png)(\?\S*)?$/i, 'must be an https URL of a JPEG or PNG image')
      .optional(),
    footer: z
      .string()
      .max(TEMPLATE_LIMITS.footerMax)
      .refine((s) => !ANY_VARIABLE.test(s), 'footer cannot contain variables')
      .optional(),
    buttons: z.array(TemplateButton).max(TEMPLATE_LIMITS.buttonsMax).optional(),
    parameter_examples: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.header !== undefined && t.header_image_url !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'header and header_image_url cannot be combined',
        path: ['header_image_url'],
      });
    }
  });
export type TemplateCreate = z.infer<typeof TemplateCreate>;
