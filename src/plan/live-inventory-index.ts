import type { Product } from '../schema/product.js';
import { StringKeyTable } from './string-key-table.js';

/** What the stock plan needs of one live inventory item: kept compact (a store may hold millions). */
export interface LiveInventoryItem {
  itemId: string;
  sku: string | null;
  quantity: number;
  productId: string;
  variantId: string | null;
  /** Product name, plus " / variant name" for a variant. */
  name: string;
  /** False when the product does not track inventory: such rows are reported, not written. */
  enabled: boolean;
  updatedAt: string;
  /**
   * Row of the sheet that already named this item, 0 when none yet (duplicate detection without a
   * per-row Set). The index sets it to 0 when the item is added, so that marking an item as seen
   * while planning writes an existing field instead of growing a million objects.
   */
  seenAtRow?: number;
}

/**
 * sku → inventory item(s) and item_id → item, built from the product list (product `inventory` and
 * `variants[].inventory`) or from the inventory list endpoint. A SKU held by two live items is
 * ambiguous and kept as an array so the plan can say so.
 */
export class LiveInventoryIndex {
  readonly byId = new Map<string, LiveInventoryItem>();
  /** Looked up once per row of a stock sheet: a StringKeyTable, twice as fast as a Map there. */
  readonly bySku = new StringKeyTable<LiveInventoryItem | LiveInventoryItem[]>();
  /** SKUs of products/variants that have no inventory item (tracking off): sku → display name. */
  readonly untracked = new Map<string, string>();
  /** SKUs of products that have variants (their stock is kept per variant): sku → product name. */
  readonly parents = new Map<string, string>();

  static fromProducts(products: Iterable<Product>): LiveInventoryIndex {
    const index = new LiveInventoryIndex();
    for (const p of products) index.addProduct(p);
    return index;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Forgets which items a plan has seen, so that the index can plan another sheet. */
  resetSeen(): void {
    for (const item of this.byId.values()) item.seenAtRow = 0;
  }

  addProduct(product: Product): void {
    if (product.inventory) {
      this.add({
        itemId: product.inventory.item_id,
        sku: product.inventory.sku ?? (product.sku || null),
        quantity: product.inventory.quantity,
        productId: product.id,
        variantId: null,
        name: product.name,
        enabled: product.inventory_enabled,
        updatedAt: product.inventory.updated_at,
        seenAtRow: 0,
      });
    } else if (product.variants.length === 0 && product.sku) this.untracked.set(product.sku, product.name);
    else if (product.sku) this.parents.set(product.sku, product.name);
    for (const v of product.variants) {
      if (!v.inventory) {
        if (v.sku) this.untracked.set(v.sku, `${product.name} / ${v.name}`);
        continue;
      }
      this.add({
        itemId: v.inventory.item_id,
        sku: v.inventory.sku ?? v.sku,
        quantity: v.inventory.quantity,
        productId: product.id,
        variantId: v.id,
        name: `${product.name} / ${v.name}`,
        enabled: product.inventory_enabled,
        updatedAt: v.inventory.updated_at,
        seenAtRow: 0,
      });
    }
  }

  add(item: LiveInventoryItem): void {
    item.seenAtRow ??= 0;
    this.byId.set(item.itemId, item);
    if (item.sku === null || item.sku === '') return;
    const existing = this.bySku.get(item.sku);
    if (existing === undefined) this.bySku.set(item.sku, item);
    else if (Array.isArray(existing)) existing.push(item);
    else this.bySku.set(item.sku, [existing, item]);
  }
}
