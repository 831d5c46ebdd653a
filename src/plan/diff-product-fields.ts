import type { DesiredProductFields } from '../mapping/product-desired.js';
import type { LiveProduct } from './live-catalog.js';
import { planValue, sameValue } from './plan-value.js';
import type { FieldChange } from './product-plan.js';

type ScalarField = Exclude<keyof DesiredProductFields, 'id' | 'images'> & keyof LiveProduct;

interface FieldSpec {
  field: ScalarField;
  money?: true;
  nullIsZero?: true;
}

/** Writable product fields compared one by one (images, variants and options have their own diff). */
export const PRODUCT_DIFF_FIELDS: readonly FieldSpec[] = [
  { field: 'name' },
  { field: 'reference_id' },
  { field: 'sku' },
  { field: 'description' },
  { field: 'status' },
  { field: 'type' },
  { field: 'price', money: true },
  { field: 'original_price', money: true, nullIsZero: true },
  { field: 'cost_enabled' },
  { field: 'cost', money: true },
  { field: 'unit_enabled' },
  { field: 'unit' },
  { field: 'unit_value' },
  { field: 'weight' },
  { field: 'tax_override' },
  { field: 'tax_rate' },
  { field: 'tags' },
  { field: 'links' },
  { field: 'category_ids' },
  { field: 'daily_limit' },
  { field: 'cart_limit' },
  { field: 'cart_minimum' },
  { field: 'inventory_enabled' },
  { field: 'inventory_quantity' },
];

function change(spec: FieldSpec, before: unknown, after: unknown): FieldChange {
  const c: FieldChange = { path: spec.field, before: planValue(before), after: planValue(after) };
  if (spec.money) c.money = true;
  return c;
}

/**
 * Puts every mentioned field that differs from the live value into `body` and `changes`. Fields the
 * sheet does not mention (undefined) are never compared. `inventory_quantity` compares with the
 * live inventory item's quantity.
 */
export function diffProductFields(
  fields: DesiredProductFields,
  live: LiveProduct,
  body: Record<string, unknown>,
  changes: FieldChange[],
): void {
  for (const spec of PRODUCT_DIFF_FIELDS) {
    const desired = fields[spec.field];
    if (desired === undefined) continue;
    const current = spec.field === 'sku' ? live.sku.trim() : live[spec.field];
    if (sameValue(desired, current, spec.nullIsZero === true)) continue;
    body[spec.field] = desired;
    changes.push(change(spec, current, desired));
  }
}

/** Every mentioned field of a new product, into the create body and the change list. */
export function createProductFields(
  fields: DesiredProductFields,
  body: Record<string, unknown>,
  changes: FieldChange[],
): void {
  for (const spec of PRODUCT_DIFF_FIELDS) {
    const desired = fields[spec.field];
    if (desired === undefined) continue;
    body[spec.field] = desired;
    changes.push(change(spec, null, desired));
  }
}
