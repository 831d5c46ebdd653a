import { z } from 'zod';
import { Address, DateTime, PhoneDigits } from './common.js';

export const Customer = z.object({
  id: z.string(),
  object: z.literal('customer'),
  name: z.string(),
  email: z.email().nullable(),
  phone: z.string(),
  address: Address.nullable(),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Customer = z.infer<typeof Customer>;

export const CustomerCreate = z.object({
  name: z.string().min(1),
  phone: PhoneDigits.min(1),
  email: z.email().optional(),
});
export type CustomerCreate = z.infer<typeof CustomerCreate>;

export const CustomerUpdate = z.object({
  name: z.string().min(1).optional(),
  phone: PhoneDigits.min(1).optional(),
  email: z.email().nullable().optional(),
});
export type CustomerUpdate = z.infer<typeof CustomerUpdate>;
