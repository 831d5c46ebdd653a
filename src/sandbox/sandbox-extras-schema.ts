import * as z from 'zod';
import { Message } from '../schema/index.js';

const seq = z.number().int().nonnegative();

/**
 * The `sandbox` member of a state file (SandboxExtras in store.ts), checked before the store is
 * built from it: strict at every level, so a wrong or unknown member is an error naming it rather
 * than a JavaScript error (or a silently ignored field) while loading.
 */
export const SandboxExtrasSchema = z.strictObject({
  version: z.literal(1),
  counters: z.strictObject({ id: seq, seq, clock: z.number().nonnegative() }),
  seqs: z.strictObject({
    products: z.array(seq),
    customers: z.array(seq),
    orders: z.array(seq),
    templates: z.array(seq),
  }),
  item_seqs: z.record(z.string(), seq),
  messages: z.array(
    Message.extend({
      language: z.string(),
      parameters: z.record(z.string(), z.string()),
      created_at: z.string(),
    }).strict(),
  ),
  idempotency: z.array(
    z.strictObject({
      key: z.string(),
      fingerprint: z.string(),
      status: z.number().int(),
      body: z.string(),
      request_id: z.string(),
      at: z.number(),
    }),
  ),
});
