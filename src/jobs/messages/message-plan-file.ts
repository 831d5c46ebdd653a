import { z } from 'zod';
import type { MessagePlan } from '../../plan/message-plan.js';
import type { MessageTemplate } from '../../schema/index.js';
import type { RunInput } from '../run-input.js';
import { listOf, RowIssuesSchema, RunInputSchema, StoreSchema } from '../runner/plan-file-parts.js';
import { planFileSchema } from '../runner/plan-file.js';

/** One rendered message of the preview. */
export interface MessagePreview {
  rowNumber: number;
  to: string;
  text: string;
}

/** plan.json of a messages run. Plain JSON. */
export interface MessagePlanFile {
  kind: 'messages';
  version: 1;
  store: { id: string; name: string; country: string };
  input: RunInput;
  /** The template as it was when planned (APPROVED). */
  template: MessageTemplate;
  allowDuplicates: boolean;
  /** Send again what earlier runs already sent (default false: such rows are skipped). */
  resend?: boolean;
  /** Send the valid rows even when others are invalid (default: nothing is sent then). */
  skipInvalid: boolean;
  /** `--max N`: the largest send allowed. */
  max?: number | undefined;
  /** Rows of the sheet (data rows). */
  rows: number;
  preview: MessagePreview[];
  plan: MessagePlan;
}

/** What applying and drift read of a messages plan.json. */
export const MessagePlanFileSchema = planFileSchema('messages', {
  store: StoreSchema,
  input: RunInputSchema,
  template: z.looseObject({ id: z.string(), name: z.string(), parameters: z.array(z.string()) }),
  skipInvalid: z.boolean(),
  resend: z.boolean().optional(),
  max: z.number().optional(),
  rows: z.number(),
  preview: z.array(z.unknown()),
  plan: z.looseObject({
    sends: listOf({
      key: z.string(),
      sheet: z.string(),
      rowNumber: z.number(),
      to: z.string(),
      parameters: z.record(z.string(), z.string()),
    }),
    duplicates: listOf({ sheet: z.string(), rowNumber: z.number(), firstRow: z.number() }),
    alreadySent: listOf({ sheet: z.string(), rowNumber: z.number(), runId: z.string() }).optional(),
    issues: RowIssuesSchema,
  }),
});

/** Why the send may not go out (over `--max`), or undefined. */
export function sendRefusal(file: MessagePlanFile): string | undefined {
  if (file.max !== undefined && file.plan.sends.length > file.max) {
    return `${file.plan.sends.length} messages to send is more than --max ${file.max}; nothing was sent`;
  }
  return undefined;
}
