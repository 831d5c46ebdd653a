import type { InventoryItem, Product } from '../../schema/index.js';
import { pickVariantFields } from '../../schema/product.js';
import type { ItemRec, ProductRec, VariantRec } from './product-records.js';

/** The API's InventoryItem for a stored item. */
export function renderItem(item: ItemRec, product: ProductRec, variant: VariantRec | null): InventoryItem {
  const f = product.fields;
  return {
    item_id: item.item_id,
    object: 'inventory_item',
    item_type: variant === null ? 'product' : 'variant',
    // Same convention as the generator: "Product - Variant".
    item_name: variant === null ? f.name : `${f.name} - ${variant.name}`,
    product_id: product.id,
    variant_id: variant === null ? null : variant.id,
    sku: variant === null ? (f.sku === '' ? null : f.sku) : variant.sku,
    quantity: item.quantity,
    price: variant === null ? f.price : variant.price,
    original_price: variant === null ? f.original_price : variant.original_price,
    cost: variant === null ? f.cost : variant.cost,
    cost_enabled: f.cost_enabled,
    updated_at: item.updated_at,
  };
}

/** Sold out: inventory is tracked and every stock item of the product is at 0. */
function soldout(p: ProductRec): boolean {
  if (!p.fields.inventory_enabled) return false;
  if (p.variants.length > 0) return p.variants.every((v) => v.item.quantity <= 0);
  return p.item !== null && p.item.quantity <= 0;
}

/** The API's Product for a stored product (field order is the API's). */
export function renderProduct(p: ProductRec): Product {
  const f = p.fields;
  return {
    id: p.id,
    object: 'product',
    reference_id: f.reference_id,
    name: f.name,
    description: f.description,
    sku: f.sku,
    status: f.status,
    type: f.type,
    price: f.price,
    original_price: f.original_price,
    cost_enabled: f.cost_enabled,
    cost: f.cost,
    unit_enabled: f.unit_enabled,
    unit: f.unit,
    unit_value: f.unit_value,
    weight: f.weight,
    tax_override: f.tax_override,
    tax_rate: f.tax_rate,
    tags: f.tags,
    links: f.links,
    category_ids: f.category_ids,
    daily_limit: f.daily_limit,
    cart_limit: f.cart_limit,
    cart_minimum: f.cart_minimum,
    inventory_enabled: f.inventory_enabled,
    soldout: soldout(p),
    inventory: p.variants.length === 0 && p.item !== null ? renderItem(p.item, p, null) : null,
    // `id` first, then `object` and `product_id`, then the variant's own fields: the API's order.
    variants: p.variants.map((v) =>
      Object.assign({ id: v.id, object: 'variant' as const, product_id: p.id }, pickVariantFields(v), {
        inventory: renderItem(v.item, p, v),
      }),
    ),
    options: p.options,
    images: p.images,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/**
 * The product's API JSON (what the store keeps: see ProductSlot), as one flat string: JSON.stringify
 * may answer a rope of its pieces, ~10% bigger; reading a character in the middle makes V8 flatten
 * it before it is kept for good.
 */
export function productJson(p: ProductRec): string {
  const json = JSON.stringify(renderProduct(p));
  json.charCodeAt(json.length >> 1);
  return json;
}
