import { InventoryBatch, InventoryUpdate, type InventoryItem, type Product } from '../../schema/index.js';
import { parseLimit, SeqList } from '../pagination.js';
import { invalidParam, notFound } from '../sandbox-error.js';
import { listJson } from './list-json.js';
import type { ItemRec, ItemSlot, ProductRec, ProductSlot, VariantRec } from './product-records.js';
import { renderItem } from './render-product.js';
import { dateFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/** How the inventory table reads and changes the product an item belongs to (the product table). */
export interface ProductAccess {
  /** The product's working form, made from its stored JSON. */
  materialise(slot: ProductSlot): ProductRec;
  /** Stores a changed product back (its JSON, and its items' times in this index). */
  commit(slot: ProductSlot, rec: ProductRec): void;
}

/** An item found in its product's working form. */
interface ItemRef {
  item: ItemRec;
  product: ProductRec;
  variant: VariantRec | null;
}

function findItem(product: ProductRec, itemId: string): ItemRef {
  if (product.item?.item_id === itemId) return { item: product.item, product, variant: null };
  const variant = product.variants.find((v) => v.item.item_id === itemId);
  if (variant === undefined) throw new Error(`item ${itemId} is not in product ${product.id}`);
  return { item: variant.item, product, variant };
}

/** The API's InventoryItem of `itemId`, read from its product's stored JSON (as rendered there). */
function itemOfProduct(product: Product, itemId: string): InventoryItem {
  if (product.inventory?.item_id === itemId) return product.inventory;
  const variant = product.variants.find((v) => v.inventory?.item_id === itemId);
  if (variant?.inventory == null) throw new Error(`item ${itemId} is not in product ${product.id}`);
  return variant.inventory;
}

/**
 * Inventory items: an index of every stock item of every product (the product table adds and
 * removes them with their products and variants; the item itself lives in its product's JSON),
 * and the inventory endpoints. A product without variants shows its own item; a product with
 * variants shows its variants' items (the product table keeps only those).
 */
export class InventoryTable {
  private readonly items = new Map<string, ItemSlot>();
  private readonly itemList = new SeqList<ItemSlot>();
  /** Set by the product table, which owns the products. */
  products: ProductAccess | null = null;

  constructor(private readonly ctx: StoreContext) {}

  has(itemId: string): boolean {
    return this.items.has(itemId);
  }

  /** The index entry of an item (undefined when there is none). */
  slot(itemId: string): ItemSlot | undefined {
    return this.items.get(itemId);
  }

  /** Every item in creation order. */
  slots(): readonly ItemSlot[] {
    return this.itemList.values();
  }

  add(item: ItemRec, product: ProductSlot): void {
    const slot: ItemSlot = {
      seq: item.seq,
      item_id: item.item_id,
      product,
      updatedMs: Date.parse(item.updated_at),
    };
    this.items.set(item.item_id, slot);
    this.itemList.push(slot);
  }

  /** Indexes a loaded item by id (ordered later, with the rest of its load: see order). */
  index(slot: ItemSlot): void {
    this.items.set(slot.item_id, slot);
  }

  /** Puts a whole load's items (indexed already) in creation order, sorting once. */
  order(slots: readonly ItemSlot[]): void {
    this.itemList.pushAll(slots);
  }

  remove(itemId: string): void {
    const slot = this.items.get(itemId);
    if (slot === undefined) return;
    this.items.delete(itemId);
    this.itemList.remove(slot);
  }

  /** A new item (not yet added: the product adds it with itself). */
  newItem(productId: string, variantId: string | null, quantity: number, now: string): ItemRec {
    return {
      seq: this.ctx.nextSeq(),
      item_id: this.ctx.newId('inv', (id) => this.items.has(id)),
      product_id: productId,
      variant_id: variantId,
      quantity,
      updated_at: now,
    };
  }

  private access(): ProductAccess {
    if (this.products === null) throw new Error('the inventory table has no product table');
    return this.products;
  }

  private itemSlot(itemId: string): ItemSlot {
    const slot = this.items.get(itemId);
    if (slot === undefined) throw notFound(`no inventory item with id ${itemId}`);
    return slot;
  }

  private static setQuantity(ref: ItemRef, quantity: number, now: string): void {
    ref.item.quantity = quantity;
    ref.item.updated_at = now;
    ref.product.updated_at = now;
  }

  get(itemId: string): InventoryItem {
    const slot = this.itemSlot(itemId);
    return itemOfProduct(JSON.parse(slot.product.json) as Product, itemId);
  }

  /** PATCH /api/v2/inventory_items/{id}: exactly one of quantity / delta_quantity. */
  update(itemId: string, body: unknown): InventoryItem {
    const slot = this.itemSlot(itemId);
    const b = parseBody(InventoryUpdate, body) as { quantity?: number; delta_quantity?: number };
    const products = this.access();
    const ref = findItem(products.materialise(slot.product), itemId);
    const quantity = b.quantity ?? ref.item.quantity + (b.delta_quantity ?? 0);
    if (quantity < 0) {
      throw invalidParam(
        'delta_quantity',
        `stock would go below 0 (${ref.item.quantity} + ${b.delta_quantity})`,
      );
    }
    InventoryTable.setQuantity(ref, quantity, this.ctx.clock.tick());
    products.commit(slot.product, ref.product);
    this.ctx.changed();
    return renderItem(ref.item, ref.product, ref.variant);
  }

  /**
   * POST /api/v2/inventory_items/batch_update: bare array in, bare array out, all or nothing.
   * Entries naming the same item apply in order. Each product named is made from its JSON once.
   */
  batchUpdate(body: unknown): InventoryItem[] {
    const entries = parseBody(InventoryBatch, body) as {
      item_id: string;
      quantity?: number;
      delta_quantity?: number;
    }[];
    const products = this.access();
    const working = new Map<ProductSlot, ProductRec>();
    const next = new Map<string, number>();
    const refs: ItemRef[] = [];
    entries.forEach((e, i) => {
      const slot = this.items.get(e.item_id);
      if (slot === undefined) {
        throw invalidParam(`${i}.item_id`, `no inventory item with id ${e.item_id}`, 'resource_missing');
      }
      let rec = working.get(slot.product);
      if (rec === undefined) {
        rec = products.materialise(slot.product);
        working.set(slot.product, rec);
      }
      const ref = findItem(rec, e.item_id);
      const current = next.get(e.item_id) ?? ref.item.quantity;
      const quantity = e.quantity ?? current + (e.delta_quantity ?? 0);
      if (quantity < 0)
        throw invalidParam(
          `${i}.delta_quantity`,
          `stock would go below 0 (${current} + ${e.delta_quantity})`,
        );
      next.set(e.item_id, quantity);
      refs.push(ref);
    });
    for (const ref of refs)
      InventoryTable.setQuantity(ref, next.get(ref.item.item_id) as number, this.ctx.clock.tick());
    for (const [slot, rec] of working) products.commit(slot, rec);
    if (refs.length > 0) this.ctx.changed();
    return refs.map((ref) => renderItem(ref.item, ref.product, ref.variant));
  }

  /** GET /api/v2/inventory_items: `limit`, `cursor`, `updated_after`. */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const after = dateFilter(query, 'updated_after');
    const page = this.itemList.page(
      query.get('cursor'),
      limit,
      after === undefined ? undefined : (item) => item.updatedMs > after,
    );
    // A product's items are mostly next to each other: parse each product once for its run.
    let last: ProductSlot | null = null;
    let parsed: Product | null = null;
    return listJson(
      page.items.map((item) => {
        if (item.product !== last || parsed === null) {
          last = item.product;
          parsed = JSON.parse(item.product.json) as Product;
        }
        return JSON.stringify(itemOfProduct(parsed, item.item_id));
      }),
      page,
    );
  }
}
