import { z } from 'zod';
import { PhoneDigits } from './common.js';

export const MessageSend = z.object({
  to: PhoneDigits.min(1),
  template: z.string().min(1),
  language: z.string().optional(),
  parameters: z.record(z.string(), z.string()).optional(),
});
export type MessageSend = z.infer<typeof MessageSend>;

export const Message = z.object({
  id: z.string(),
  object: z.literal('message'),
  to: z.string(),
  template: z.string(),
  status: z.string(),
});
export type Message = z.infer<typeof Message>;
