import { z } from 'zod';
import { DateTime } from './common.js';

export const InventoryItem = z.object({
  item_id: z.string(),
  object: z.literal('inventory_item'),
  item_type: z.enum(['product', 'variant']),
  item_name: z.string().nullable(),
  product_id: z.string(),
  variant_id: z.string().nullable(),
  sku: z.string().nullable(),
  quantity: z.int(),
  price: z.int(),
  original_price: z.int().nullable(),
  cost: z.int().nullable(),
  cost_enabled: z.boolean(),
  updated_at: DateTime,
});
export type InventoryItem = z.infer<typeof InventoryItem>;

function exactlyOne(
  value: { quantity?: number | undefined; delta_quantity?: number | undefined },
  ctx: z.RefinementCtx,
) {
  const n = Number(value.quantity !== undefined) + Number(value.delta_quantity !== undefined);
  if (n !== 1) {
    ctx.addIssue({
      code: 'custom',
      message: 'exactly one of quantity or delta_quantity is required',
      path: n === 0 ? ['quantity'] : ['delta_quantity'],
    });
  }
}

/** PATCH /inventory_items/{id}: exactly one of `quantity` (>= 0) or `delta_quantity`; nothing else. */
export const InventoryUpdate = z
  .strictObject({
    quantity: z.int().min(0).optional(),
    delta_quantity: z.int().optional(),
  })
  .superRefine(exactlyOne);
export type InventoryUpdate = { quantity: number } | { delta_quantity: number };

export const InventoryBatchEntry = z
  .strictObject({
    item_id: z.string().min(1),
    quantity: z.int().min(0).optional(),
    delta_quantity: z.int().optional(),
  })
  .superRefine(exactlyOne);
export type InventoryBatchEntry = { item_id: string } & InventoryUpdate;

/** Body of the batch update: a bare JSON array of entries. */
export const InventoryBatch = z.array(InventoryBatchEntry);
