import * as z from 'zod';
import { Message } from '../schema/index.js';

const seq = z.number().int().nonnegative();

/**
 * `item_seqs`: a sequence number per inventory item id, checked where it is rather than copied
 * (z.record would build a second object of a million keys for a store of a million items).
 */
const ItemSeqs = z
  .custom<Record<string, number>>(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    'expected an object of item ids to sequence numbers',
  )
  .superRefine((v, ctx) => {
    for (const key in v) {
      const n = v[key];
      if (!Number.isSafeInteger(n) || (n as number) < 0) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'expected a non-negative integer' });
        return;
      }
    }
  });

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
  item_seqs: ItemSeqs,
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
