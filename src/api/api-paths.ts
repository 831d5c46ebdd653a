/**
 * Paths of the endpoints the spec leaves open (docs/architecture.md, "The API: gaps and rules").
 * `{id}` is replaced by the URL-encoded id. Override any of them with `new MerchantClient({ paths: { ... } })`.
 */
export interface ApiPaths {
  /** Create product (POST). Default `/api/v2/products`. */
  productCreate: string;
  /** Get one product (GET). Default `/api/v2/products/{id}`. */
  productGet: string;
  /** Get one customer (GET). Default `/api/v2/customers/{id}`. */
  customerGet: string;
  /** Batch inventory update (POST, bare array in and out). Default `/api/v2/inventory_items/batch_update`. */
  batchUpdate: string;
  /** List inventory items (GET). Default `/api/v2/inventory_items`. */
  inventoryList: string;
}

export const DEFAULT_API_PATHS: ApiPaths = {
  productCreate: '/api/v2/products',
  productGet: '/api/v2/products/{id}',
  customerGet: '/api/v2/customers/{id}',
  batchUpdate: '/api/v2/inventory_items/batch_update',
  inventoryList: '/api/v2/inventory_items',
};

/** Fills `{id}` in a path template with the URL-encoded id. */
export function fillPath(template: string, id: string): string {
  return template.replace('{id}', encodeURIComponent(id));
}
