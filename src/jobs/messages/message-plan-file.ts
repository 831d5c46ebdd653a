import { z } from 'zod';
import type { AlreadySent, DuplicateSend, MessagePlan, MessageSendEntry } from '../../plan/message-plan.js';
import { MessageTemplate } from '../../schema/index.js';
import { RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

const MessageSendSchema: z.ZodType<MessageSendEntry> = z.looseObject({
  sheet: z.string(),
  rowNumber: z.number(),
  to: z.string(),
  customerId: z.string().exactOptional(),
  parameters: z.record(z.string(), z.string()),
  key: z.string(),
});

const DuplicateSendSchema: z.ZodType<DuplicateSend> = z.looseObject({
  sheet: z.string(),
  rowNumber: z.number(),
  firstRow: z.number(),
  to: z.string().exactOptional(),
  sameParameters: z.literal(true).exactOptional(),
});

const AlreadySentSchema: z.ZodType<AlreadySent> = z.looseObject({
  runId: z.string(),
  status: z.enum(['sent', 'unknown']),
  sheet: z.string(),
  rowNumber: z.number(),
  to: z.string().exactOptional(),
});

const MessagePlanSchema: z.ZodType<MessagePlan> = z.looseObject({
  kind: z.literal('messages'),
  template: z.looseObject({
    name: z.string(),
    status: z.string(),
    language: z.string(),
    parameters: z.array(z.string()),
  }),
  sends: z.array(MessageSendSchema),
  duplicates: z.array(DuplicateSendSchema),
  alreadySent: z.array(AlreadySentSchema).exactOptional(),
  issues: RowIssuesSchema,
});

/** One rendered message of the preview. */
const MessagePreviewSchema = z.looseObject({ rowNumber: z.number(), to: z.string(), text: z.string() });
export type MessagePreview = z.infer<typeof MessagePreviewSchema>;

/** plan.json of a messages run: what applying, drift and the report read. Plain JSON. */
export const MessagePlanFileSchema = planFileSchema('messages', {
  store: storeSchema({ country: z.string() }),
  input: RunInputSchema,
  /** The template as it was when planned (APPROVED). */
  template: MessageTemplate,
  allowDuplicates: z.boolean(),
  /** Send again what earlier runs already sent (default false: such rows are skipped). */
  resend: z.boolean().optional(),
  /** Send the valid rows even when others are invalid (default: nothing is sent then). */
  skipInvalid: z.boolean(),
  /** `--max N`: the largest send allowed. */
  max: z.number().optional(),
  /** Rows of the sheet (data rows). */
  rows: z.number(),
  preview: z.array(MessagePreviewSchema),
  plan: MessagePlanSchema,
});
export type MessagePlanFile = z.infer<typeof MessagePlanFileSchema>;

/** Why the send may not go out (over `--max`), or undefined. */
export function sendRefusal(file: Pick<MessagePlanFile, 'max' | 'plan'>): string | undefined {
  if (file.max !== undefined && file.plan.sends.length > file.max) {
    return `${file.plan.sends.length} messages to send is more than --max ${file.max}; nothing was sent`;
  }
  return undefined;
}
