import { z } from 'zod';
import { Customer } from './customer.js';
import { Order } from './order.js';
import { Product } from './product.js';
import { Store } from './store.js';
import { MessageTemplate } from './template.js';

/**
 * A whole store in one JSON document: what `mbulk export snapshot` writes, what `mbulk sandbox --seed`
 * loads, and the format of `samples/store.json`. `token` is optional and only meaningful to the sandbox.
 */
export const StoreSnapshot = z.object({
  format: z.literal('merchant-bulk/snapshot'),
  version: z.literal(1),
  exported_at: z.string().optional(),
  me: Store,
  products: z.array(Product),
  customers: z.array(Customer),
  orders: z.array(Order),
  templates: z.array(z.lazy(() => MessageTemplate)),
});
export type StoreSnapshot = z.infer<typeof StoreSnapshot>;
