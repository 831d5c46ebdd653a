/** Real-shaped API bodies for client tests (the envelope and resources as the spec defines them). */

export const BASE = 'https://merchant.test';
export const TOKEN = 'mk_live_SECRET_token_0123456789';

export function errorBody(type: string, code: string, message: string, requestId: string, param?: string) {
  return { error: { type, code, message, ...(param !== undefined ? { param } : {}), request_id: requestId } };
}

export const store = {
  id: 'st_1',
  object: 'store',
  name: 'Kopi Corner',
  alias: 'kopi-corner',
  phone: '6591234567',
  email: 'owner@kopi.test',
  country: 'SG',
  currency: 'SGD',
  timezone: 'Asia/Singapore',
  address: null,
  tax: { inclusive: true, percent: 9 },
  service_charge: null,
  plan: 'extra fields are tolerated',
};

export function customer(n: number) {
  return {
    id: `cus_${n}`,
    object: 'customer',
    name: `Customer ${n}`,
    email: null,
    phone: `6580000${String(n).padStart(3, '0')}`,
    address: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

export function inventoryItem(itemId: string, quantity: number) {
  return {
    item_id: itemId,
    object: 'inventory_item',
    item_type: 'product',
    item_name: null,
    product_id: 'prod_1',
    variant_id: null,
    sku: null,
    quantity,
    price: 1290,
    original_price: null,
    cost: null,
    cost_enabled: false,
    updated_at: '2026-01-01T00:00:00Z',
  };
}

export function product(n: number, status: 'VISIBLE' | 'HIDDEN') {
  return {
    id: `prod_${n}`,
    object: 'product',
    reference_id: null,
    name: `Product ${n}`,
    description: '',
    sku: `SKU-${n}`,
    status,
    type: 'PHYSICAL',
    price: 1000 + n,
    original_price: 0,
    cost_enabled: false,
    cost: null,
    unit_enabled: false,
    unit: 'QTY',
    unit_value: 1,
    weight: 0,
    tax_override: false,
    tax_rate: 0,
    tags: [],
    links: [],
    category_ids: [],
    daily_limit: 0,
    cart_limit: 0,
    cart_minimum: 0,
    inventory_enabled: false,
    soldout: false,
    inventory: null,
    variants: [],
    options: [],
    images: [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}
