import type { LiveInventoryItem } from '../../../src/plan/live-inventory-index.js';
import type { Product, Variant } from '../../../src/schema/product.js';

const T = '2026-11-01T10:00:00.000Z';

function inventory(productId: string, variantId: string | null, quantity: number, price: number) {
  return {
    item_id: `inv_${variantId ?? productId}`,
    object: 'inventory_item' as const,
    item_type: variantId === null ? ('product' as const) : ('variant' as const),
    item_name: null,
    product_id: productId,
    variant_id: variantId,
    sku: null,
    quantity,
    price,
    original_price: null,
    cost: null,
    cost_enabled: false,
    updated_at: T,
  };
}

export function variant(
  productId: string,
  id: string,
  over: Partial<Variant> & { qty?: number } = {},
): Variant {
  const { qty, ...rest } = over;
  return {
    id,
    object: 'variant',
    product_id: productId,
    name: `Variant ${id}`,
    sku: `SKU-${id}`,
    description: null,
    price: 1000,
    original_price: null,
    cost: null,
    weight: 100,
    inventory: inventory(productId, id, qty ?? 5, rest.price ?? 1000),
    ...rest,
  };
}

/** A live product as GET /products returns it. */
export function liveProduct(id: string, over: Partial<Product> = {}): Product {
  return {
    id,
    object: 'product',
    reference_id: `REF-${id}`,
    name: `Product ${id}`,
    description: 'A **fine** product',
    sku: `P-${id}`,
    status: 'VISIBLE',
    type: 'PHYSICAL',
    price: 1990,
    original_price: 0,
    cost_enabled: false,
    cost: null,
    unit_enabled: false,
    unit: 'PCS',
    unit_value: 1,
    weight: 250,
    tax_override: false,
    tax_rate: 0,
    tags: ['a', 'b'],
    links: [],
    category_ids: ['cat1'],
    daily_limit: 0,
    cart_limit: 0,
    cart_minimum: 1,
    inventory_enabled: true,
    soldout: false,
    inventory: inventory(id, null, 7, 1990),
    variants: [],
    options: [],
    images: [`https://cdn.store.test/${id}/1.jpg`],
    created_at: T,
    updated_at: T,
    ...over,
  };
}

/** A live inventory item as the stock plan sees it, of product `p_<itemId>`. */
export function liveItem(
  itemId: string,
  sku: string | null,
  quantity: number,
  enabled = true,
): LiveInventoryItem {
  return {
    itemId,
    sku,
    quantity,
    productId: `p_${itemId}`,
    variantId: null,
    name: `Item ${itemId}`,
    enabled,
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
}
