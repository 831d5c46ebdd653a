import {
  ProductCreate,
  ProductStatus,
  ProductUpdate,
  type DeletionResult,
  type InventoryItem,
  type Product,
  type ProductOption,
  type VariantCreate,
  type VariantUpdateEntry,
} from '../../schema/index.js';
import { parseLimit, SeqList } from '../pagination.js';
import { invalidParam, notFound } from '../sandbox-error.js';
import type { InventoryTable, ProductAccess } from './inventory-table.js';
import { IdSet } from './id-set.js';
import { listJson } from './list-json.js';
import { itemsOf, ProductLoad, recFromProduct } from './product-load.js';
import {
  PRODUCT_FIELD_KEYS,
  type ItemRec,
  type ItemSlot,
  type ProductFields,
  ProductSlot,
  type ProductRec,
  type VariantRec,
} from './product-records.js';
import { Utf8Blocks } from './utf8-blocks.js';
import { rehostImages } from './rehost-images.js';
import { productJson, renderItem } from './render-product.js';
import { enumFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/**
 * Products with their variants and options (ids unique store-wide), and their stock items in the
 * inventory table: list, get, create, update with every rule of the spec, delete. Each product is
 * kept as its API JSON (ProductSlot); a write makes its working form from that JSON
 * (materialise), applies the rules, and stores the JSON again (commit).
 */
export class ProductTable implements ProductAccess {
  private readonly byId = new Map<string, ProductSlot>();
  private readonly list = new SeqList<ProductSlot>();
  private readonly variantIds = new IdSet('var');
  private readonly optionIds = new IdSet('opt');
  /** Where created products' JSON is kept (loaded ones stay in their load's). */
  private readonly arena = new Utf8Blocks();

  constructor(
    private readonly ctx: StoreContext,
    private readonly inventory: InventoryTable,
  ) {
    inventory.products = this;
  }

  get size(): number {
    return this.byId.size;
  }

  get variantCount(): number {
    return this.variantIds.size;
  }

  /** Every product in creation order. */
  records(): readonly ProductSlot[] {
    return this.list.values();
  }

  /** Loads saved products, with their saved sequence numbers (products, then per inventory item). */
  load(
    products: readonly Product[],
    seqs: readonly number[] | undefined,
    itemSeqs: Readonly<Record<string, number>> | undefined,
  ): void {
    const load = new ProductLoad();
    for (const p of products) load.add(p);
    this.adopt(load, seqs, itemSeqs);
  }

  /**
   * Takes in a load (ProductLoad) with its saved sequence numbers: each product's, then each of
   * its items' (a new number where none was saved, in that order, as if loaded one by one). A
   * state file (`itemSeqs` given) leaves out an item's number when it is the number before it in
   * that order + 1 (SandboxStore.writeState): a generated store's million items need none.
   */
  adopt(
    load: ProductLoad,
    seqs: readonly number[] | undefined,
    itemSeqs: Readonly<Record<string, number>> | undefined,
  ): void {
    this.ctx.clock.observe(load.latestMs);
    const items: ItemSlot[] = [];
    let next = 0;
    let prev = 0;
    const savedSeq = (itemId: string): number | undefined =>
      itemSeqs !== undefined && Object.hasOwn(itemSeqs, itemId) ? itemSeqs[itemId] : undefined;
    load.slots.forEach((slot, i) => {
      slot.seq = this.ctx.loadedSeq(seqs?.[i]);
      prev = slot.seq;
      const product = load.unnamed.get(i);
      if (product !== undefined) {
        // A stock item without an id (a snapshot may leave `inventory` null): name it now.
        const rec = recFromProduct(product, slot.seq, (inventory, variantId) => {
          const itemId = inventory?.item_id ?? this.ctx.newId('inv', (id) => this.inventory.has(id));
          return {
            seq: this.ctx.loadedSeq(savedSeq(itemId)),
            item_id: itemId,
            product_id: product.id,
            variant_id: variantId,
            quantity: inventory?.quantity ?? 0,
            updated_at: inventory?.updated_at ?? product.updated_at,
          };
        });
        slot.json = productJson(rec);
        for (const item of itemsOf(rec)) {
          const s = {
            seq: item.seq,
            item_id: item.item_id,
            product: slot,
            updatedMs: Date.parse(item.updated_at),
          };
          this.inventory.index(s);
          items.push(s);
        }
      }
      const end = next + (load.itemCounts[i] as number);
      for (; next < end; next++) {
        const item = load.items[next] as ItemSlot;
        item.seq = this.ctx.loadedSeq(
          savedSeq(item.item_id) ?? (itemSeqs === undefined ? undefined : prev + 1),
        );
        prev = item.seq;
        this.inventory.index(item);
        items.push(item);
      }
      this.byId.set(slot.id, slot);
    });
    this.variantIds.absorb(load.variantIds);
    this.optionIds.absorb(load.optionIds);
    this.list.pushAll(load.slots);
    this.inventory.order(items);
  }

  /** The working form of a stored product (its items' sequence numbers from the inventory index). */
  materialise(slot: ProductSlot): ProductRec {
    const p = JSON.parse(slot.json) as Product;
    return recFromProduct(p, slot.seq, (inventory, variantId) => {
      const item = inventory as InventoryItem;
      return {
        seq: this.inventory.slot(item.item_id)?.seq ?? 0,
        item_id: item.item_id,
        product_id: p.id,
        variant_id: variantId,
        quantity: item.quantity,
        updated_at: item.updated_at,
      };
    });
  }

  /** Stores a product's working form back: its JSON, its status, its items' times. */
  commit(slot: ProductSlot, rec: ProductRec): void {
    slot.json = productJson(rec);
    slot.status = rec.fields.status;
    for (const item of itemsOf(rec)) {
      const s = this.inventory.slot(item.item_id);
      if (s !== undefined) s.updatedMs = Date.parse(item.updated_at);
    }
  }

  private addRec(rec: ProductRec): void {
    const slot = new ProductSlot(this.arena, rec.id, rec.fields.status);
    slot.seq = rec.seq;
    slot.json = productJson(rec);
    this.byId.set(rec.id, slot);
    this.list.push(slot);
    for (const item of itemsOf(rec)) this.inventory.add(item, slot);
    for (const v of rec.variants) this.variantIds.add(v.id);
    for (const o of rec.options) this.optionIds.add(o.id);
  }

  private slot(id: string): ProductSlot {
    const p = this.byId.get(id);
    if (p === undefined) throw notFound(`no product with id ${id}`);
    return p;
  }

  private newVariant(productId: string, v: VariantCreate | VariantUpdateEntry, now: string): VariantRec {
    const id = this.ctx.newId('var', (x) => this.variantIds.has(x));
    return {
      id,
      name: v.name,
      sku: v.sku ?? null,
      description: v.description ?? null,
      price: v.price,
      original_price: v.original_price ?? 0,
      cost: v.cost ?? null,
      weight: v.weight ?? 0,
      item: this.inventory.newItem(productId, id, v.inventory_quantity ?? 0, now),
    };
  }

  private newOption(o: {
    type?: ProductOption['type'] | undefined;
    text: string;
    required?: boolean | undefined;
    settings?: unknown;
  }): ProductOption {
    const option: ProductOption = {
      id: this.ctx.newId('opt', (x) => this.optionIds.has(x)),
      object: 'product_option',
      type: o.type ?? 'OPTION_TEXT',
      text: o.text,
      required: o.required ?? false,
    };
    if (o.settings !== undefined) option.settings = o.settings;
    return option;
  }

  /** GET /api/v2/products: `limit`, `cursor`, `status` (VISIBLE | HIDDEN). Returns the JSON body. */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const status = enumFilter(query, 'status', ProductStatus);
    const page = this.list.page(
      query.get('cursor'),
      limit,
      status === undefined ? undefined : (p) => p.status === status,
    );
    return listJson(
      page.items.map((p) => p.json),
      page,
    );
  }

  get(id: string): Product {
    return JSON.parse(this.slot(id).json) as Product;
  }

  /** The stored JSON of one product (what GET answers). */
  getJson(id: string): string {
    return this.slot(id).json;
  }

  /** POST /api/v2/products (a decision of docs/architecture.md, "The API: gaps and rules"). */
  create(body: unknown): Product {
    const b = parseBody(ProductCreate, body);
    const images = rehostImages(b.images ?? [], this.ctx.baseUrl);
    const now = this.ctx.clock.tick();
    const id = this.ctx.newId('prod', (x) => this.byId.has(x));
    const tracked =
      b.inventory_quantity !== undefined ||
      (b.variants ?? []).some((v) => v.inventory_quantity !== undefined);
    const fields: ProductFields = {
      reference_id: b.reference_id ?? null,
      name: b.name,
      description: b.description ?? '',
      sku: b.sku ?? '',
      status: b.status ?? 'VISIBLE',
      type: b.type ?? 'PHYSICAL',
      price: b.price,
      original_price: b.original_price ?? 0,
      cost_enabled: b.cost_enabled ?? false,
      cost: b.cost ?? null,
      unit_enabled: b.unit_enabled ?? false,
      unit: b.unit ?? 'QTY',
      unit_value: b.unit_value ?? 1,
      weight: b.weight ?? 0,
      tax_override: b.tax_override ?? false,
      tax_rate: b.tax_rate ?? 0,
      tags: b.tags ?? [],
      links: b.links ?? [],
      category_ids: b.category_ids ?? [],
      daily_limit: b.daily_limit ?? 0,
      cart_limit: b.cart_limit ?? 0,
      cart_minimum: b.cart_minimum ?? 0,
      inventory_enabled: b.inventory_enabled ?? tracked,
    };
    const variants = (b.variants ?? []).map((v) => this.newVariant(id, v, now));
    const rec: ProductRec = {
      seq: this.ctx.nextSeq(),
      id,
      fields,
      item: variants.length === 0 ? this.inventory.newItem(id, null, b.inventory_quantity ?? 0, now) : null,
      variants,
      options: (b.options ?? []).map((o) => this.newOption(o)),
      images,
      created_at: now,
      updated_at: now,
    };
    this.addRec(rec);
    this.ctx.changed();
    return this.get(id);
  }

  /** PATCH /api/v2/products/{id}: every rule of the spec (replace lists, images, stock). */
  update(id: string, body: unknown): Product {
    const slot = this.slot(id);
    const b = parseBody(ProductUpdate, body);
    const p = this.materialise(slot);
    // Validate everything before touching anything.
    if (b.variants !== undefined) {
      const seen = new Set<string>();
      b.variants.forEach((v, i) => {
        if (v.id === undefined) return;
        if (!p.variants.some((x) => x.id === v.id)) {
          throw invalidParam(`variants.${i}.id`, `variant ${v.id} does not belong to product ${id}`);
        }
        if (seen.has(v.id)) throw invalidParam(`variants.${i}.id`, `variant ${v.id} is listed twice`);
        seen.add(v.id);
      });
    }
    if (b.options !== undefined) {
      const seen = new Set<string>();
      b.options.forEach((o, i) => {
        if (o.id === undefined) return;
        if (!p.options.some((x) => x.id === o.id)) {
          throw invalidParam(`options.${i}.id`, `option ${o.id} does not belong to product ${id}`);
        }
        if (seen.has(o.id)) throw invalidParam(`options.${i}.id`, `option ${o.id} is listed twice`);
        seen.add(o.id);
      });
    }
    const images = b.images === undefined ? undefined : rehostImages(b.images, this.ctx.baseUrl);

    // Apply.
    const now = this.ctx.clock.tick();
    const before = new Map<string, string>();
    const sig = (item: ItemRec, v: VariantRec | null): string => {
      const { updated_at: _u, ...rest } = renderItem(item, p, v);
      return JSON.stringify(rest);
    };
    if (p.item !== null) before.set(p.item.item_id, sig(p.item, null));
    for (const v of p.variants) before.set(v.item.item_id, sig(v.item, v));

    const fields = p.fields as Record<string, unknown>;
    for (const k of PRODUCT_FIELD_KEYS) {
      const value = (b as Record<string, unknown>)[k];
      if (value !== undefined) fields[k] = value;
    }
    if (b.variants !== undefined) {
      const old = new Map(p.variants.map((v) => [v.id, v]));
      const next: VariantRec[] = [];
      for (const e of b.variants) {
        const existing = e.id === undefined ? undefined : old.get(e.id);
        if (existing === undefined) {
          const v = this.newVariant(id, e, now);
          this.variantIds.add(v.id);
          this.inventory.add(v.item, slot);
          next.push(v);
          continue;
        }
        old.delete(existing.id);
        existing.name = e.name;
        existing.price = e.price;
        if (e.sku !== undefined) existing.sku = e.sku;
        if (e.description !== undefined) existing.description = e.description;
        if (e.original_price !== undefined) existing.original_price = e.original_price;
        if (e.cost !== undefined) existing.cost = e.cost;
        if (e.weight !== undefined) existing.weight = e.weight;
        if (e.inventory_quantity !== undefined) {
          existing.item.quantity = e.inventory_quantity;
          existing.item.updated_at = now;
        }
        next.push(existing);
      }
      // Variants left out are deleted with their stock.
      for (const gone of old.values()) {
        this.variantIds.delete(gone.id);
        this.inventory.remove(gone.item.item_id);
      }
      p.variants = next;
      if (next.length > 0 && p.item !== null) {
        this.inventory.remove(p.item.item_id);
        p.item = null;
      } else if (next.length === 0 && p.item === null) {
        p.item = this.inventory.newItem(id, null, b.inventory_quantity ?? 0, now);
        this.inventory.add(p.item, slot);
      }
    }
    if (b.inventory_quantity !== undefined && p.item !== null) {
      p.item.quantity = b.inventory_quantity;
      p.item.updated_at = now;
    }
    if (b.options !== undefined) {
      const old = new Map(p.options.map((o) => [o.id, o]));
      const next: ProductOption[] = [];
      for (const e of b.options) {
        const existing = e.id === undefined ? undefined : old.get(e.id);
        if (existing === undefined) {
          const o = this.newOption(e);
          this.optionIds.add(o.id);
          next.push(o);
          continue;
        }
        old.delete(existing.id);
        // `type` is fixed once created: ignored on entries with an id.
        const o: ProductOption = {
          ...existing,
          text: e.text,
          required: e.required ?? existing.required,
        };
        if (e.settings !== undefined) o.settings = e.settings;
        next.push(o);
      }
      for (const gone of old.values()) this.optionIds.delete(gone.id);
      p.options = next;
    }
    if (images !== undefined) p.images = images;
    // Item fields derived from the product (name, price, sku…) changed: the item changed too.
    if (p.item !== null && before.get(p.item.item_id) !== sig(p.item, null)) p.item.updated_at = now;
    for (const v of p.variants) {
      if (before.has(v.item.item_id) && before.get(v.item.item_id) !== sig(v.item, v))
        v.item.updated_at = now;
    }
    p.updated_at = now;
    this.commit(slot, p);
    this.ctx.changed();
    return this.get(id);
  }

  /** DELETE /api/v2/products/{id}: the product, its variants, options, images and stock. */
  delete(id: string): DeletionResult {
    const slot = this.slot(id);
    const p = this.materialise(slot);
    this.byId.delete(id);
    this.list.remove(slot);
    for (const item of itemsOf(p)) this.inventory.remove(item.item_id);
    for (const v of p.variants) this.variantIds.delete(v.id);
    for (const o of p.options) this.optionIds.delete(o.id);
    this.ctx.changed();
    return { id, object: 'product', deleted: true };
  }
}
