import { z } from 'zod';
import { Address, PhoneDigits } from './common.js';

export const Store = z.object({
  id: z.string(),
  object: z.literal('store'),
  name: z.string(),
  alias: z.string(),
  phone: PhoneDigits.or(z.literal('')),
  email: z.email().nullable(),
  country: z.string(),
  currency: z.string(),
  timezone: z.string(),
  address: Address.nullable(),
  tax: z.object({ inclusive: z.boolean(), percent: z.number() }),
  service_charge: z.object({ name: z.string().nullable(), rate: z.int(), amount: z.int() }).nullable(),
});
export type Store = z.infer<typeof Store>;
