import type { InventoryItem, Product } from '../../schema/index.js';
import { pickVariantFields } from '../../schema/product.js';
import {
  PRODUCT_FIELD_KEYS,
  type ItemRec,
  type ItemSlot,
  type ProductFields,
  ProductSlot,
  type ProductRec,
} from './product-records.js';
import { Utf8Blocks } from './utf8-blocks.js';
import { IdSet } from './id-set.js';
import { productJson } from './render-product.js';

/** A product's stock items in the API's order: its own (without variants), else each variant's. */
export function itemsOf(p: ProductRec): ItemRec[] {
  const items = p.item === null ? [] : [p.item];
  for (const v of p.variants) items.push(v.item);
  return items;
}

/**
 * The working form of an API Product; `item` makes each stock item from the product's (or a
 * variant's) `inventory`, which a snapshot may leave null.
 */
export function recFromProduct(
  p: Product,
  seq: number,
  item: (inventory: InventoryItem | null, variantId: string | null) => ItemRec,
): ProductRec {
  const fields = {} as Record<string, unknown>;
  for (const k of PRODUCT_FIELD_KEYS) fields[k] = p[k];
  const rec: ProductRec = {
    seq,
    id: p.id,
    fields: fields as ProductFields,
    item: null,
    variants: [],
    options: p.options,
    images: p.images,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
  if (p.variants.length === 0) rec.item = item(p.inventory, null);
  for (const v of p.variants) rec.variants.push({ ...pickVariantFields(v), item: item(v.inventory, v.id) });
  return rec;
}

/**
 * Products being loaded (from a state file as it streams, or from the generator as it makes
 * them), each turned into its compact form at once so the whole catalog never exists as objects:
 * SandboxStore then adopts the load, giving the saved sequence numbers (ProductTable.adopt). What
 * is kept besides the products' final form is flat (one array of item counts, not an object and
 * three arrays per product): short-lived objects left among the kept ones fragment the heap.
 */
export class ProductLoad {
  /** Where the products' JSON is kept (see ProductSlot). */
  readonly arena = new Utf8Blocks();
  /** Each product's final form; its sequence number is given on adoption. */
  readonly slots: ProductSlot[] = [];
  /** How many of `items` belong to each product, in order. */
  readonly itemCounts: number[] = [];
  /** Every product's stock items, in order (sequence numbers given on adoption). */
  readonly items: ItemSlot[] = [];
  readonly variantIds = new IdSet('var');
  readonly optionIds = new IdSet('opt');
  /** Products with a stock item without an id, by index: the table names it, then renders the JSON. */
  readonly unnamed = new Map<number, Product>();
  /** The latest `updated_at` seen (epoch ms): the clock moves past it. */
  latestMs = Number.NEGATIVE_INFINITY;

  add(p: Product): void {
    let unnamed = false;
    const rec = recFromProduct(p, 0, (inventory, variantId) => {
      if (inventory === null) unnamed = true;
      return {
        seq: 0,
        item_id: inventory?.item_id ?? '',
        product_id: p.id,
        variant_id: variantId,
        quantity: inventory?.quantity ?? 0,
        updated_at: inventory?.updated_at ?? p.updated_at,
      };
    });
    const slot = new ProductSlot(this.arena, p.id, p.status);
    if (!unnamed) slot.json = productJson(rec);
    const updated = Date.parse(p.updated_at);
    if (updated > this.latestMs) this.latestMs = updated;
    if (unnamed) {
      this.unnamed.set(this.slots.length, p);
      this.itemCounts.push(0);
    } else {
      const items = itemsOf(rec);
      for (const i of items)
        this.items.push({ seq: 0, item_id: i.item_id, product: slot, updatedMs: Date.parse(i.updated_at) });
      this.itemCounts.push(items.length);
    }
    this.slots.push(slot);
    for (const v of p.variants) this.variantIds.add(v.id);
    for (const o of p.options) this.optionIds.add(o.id);
  }
}
