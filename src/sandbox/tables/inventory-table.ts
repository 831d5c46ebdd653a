import { InventoryBatch, InventoryUpdate, type InventoryItem } from '../../schema/index.js';
import { parseLimit, SeqList } from '../pagination.js';
import { invalidParam, notFound } from '../sandbox-error.js';
import { listJson } from './list-json.js';
import type { ItemRec, ItemRef, ProductRec, VariantRec } from './product-records.js';
import { renderItem } from './render-product.js';
import { dateFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/**
 * Inventory items: every stock item of every product (the product table adds and removes them
 * with their products and variants), and the inventory endpoints.
 */
export class InventoryTable {
  private readonly items = new Map<string, ItemRef>();
  private readonly itemList = new SeqList<ItemRec>();

  constructor(private readonly ctx: StoreContext) {}

  has(itemId: string): boolean {
    return this.items.has(itemId);
  }

  add(item: ItemRec, product: ProductRec, variant: VariantRec | null): void {
    this.items.set(item.item_id, { item, product, variant });
    this.itemList.push(item);
  }

  remove(item: ItemRec): void {
    this.items.delete(item.item_id);
    this.itemList.remove(item);
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

  /** Items the API shows: the variants' items, or the product's own when it has no variants. */
  private exposed(ref: ItemRef): boolean {
    return ref.variant !== null || ref.product.variants.length === 0;
  }

  private itemRef(itemId: string): ItemRef {
    const ref = this.items.get(itemId);
    if (ref === undefined || !this.exposed(ref)) throw notFound(`no inventory item with id ${itemId}`);
    return ref;
  }

  private setQuantity(ref: ItemRef, quantity: number, now: string): void {
    ref.item.quantity = quantity;
    ref.item.updated_at = now;
    ref.product.updated_at = now;
    ref.product.json = null;
  }

  get(itemId: string): InventoryItem {
    const ref = this.itemRef(itemId);
    return renderItem(ref.item, ref.product, ref.variant);
  }

  /** PATCH /api/v2/inventory_items/{id}: exactly one of quantity / delta_quantity. */
  update(itemId: string, body: unknown): InventoryItem {
    const ref = this.itemRef(itemId);
    const b = parseBody(InventoryUpdate, body) as { quantity?: number; delta_quantity?: number };
    const quantity = b.quantity ?? ref.item.quantity + (b.delta_quantity ?? 0);
    if (quantity < 0) {
      throw invalidParam(
        'delta_quantity',
        `stock would go below 0 (${ref.item.quantity} + ${b.delta_quantity})`,
      );
    }
    this.setQuantity(ref, quantity, this.ctx.clock.tick());
    this.ctx.changed();
    return renderItem(ref.item, ref.product, ref.variant);
  }

  /**
   * POST /api/v2/inventory_items/batch_update: bare array in, bare array out, all or nothing.
   * Entries naming the same item apply in order.
   */
  batchUpdate(body: unknown): InventoryItem[] {
    const entries = parseBody(InventoryBatch, body) as {
      item_id: string;
      quantity?: number;
      delta_quantity?: number;
    }[];
    const next = new Map<string, number>();
    const refs: ItemRef[] = [];
    entries.forEach((e, i) => {
      const ref = this.items.get(e.item_id);
      if (ref === undefined || !this.exposed(ref)) {
        throw invalidParam(`${i}.item_id`, `no inventory item with id ${e.item_id}`, 'resource_missing');
      }
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
      this.setQuantity(ref, next.get(ref.item.item_id) as number, this.ctx.clock.tick());
    if (refs.length > 0) this.ctx.changed();
    return refs.map((ref) => renderItem(ref.item, ref.product, ref.variant));
  }

  /** GET /api/v2/inventory_items: `limit`, `cursor`, `updated_after`. */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const after = dateFilter(query, 'updated_after');
    const page = this.itemList.page(query.get('cursor'), limit, (item) => {
      const ref = this.items.get(item.item_id);
      if (ref === undefined || !this.exposed(ref)) return false;
      return after === undefined || Date.parse(item.updated_at) > after;
    });
    return listJson(
      page.items.map((item) => {
        const ref = this.items.get(item.item_id) as ItemRef;
        return JSON.stringify(renderItem(item, ref.product, ref.variant));
      }),
      page,
    );
  }
}
