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
import { pickVariantFields } from '../../schema/product.js';
import { parseLimit, SeqList } from '../pagination.js';
import { invalidParam, notFound } from '../sandbox-error.js';
import type { InventoryTable } from './inventory-table.js';
import { listJson } from './list-json.js';
import {
  PRODUCT_FIELD_KEYS,
  type ItemRec,
  type ProductFields,
  type ProductRec,
  type VariantRec,
} from './product-records.js';
import { rehostImages } from './rehost-images.js';
import { productJson, renderItem } from './render-product.js';
import { enumFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/**
 * Products with their variants and options (ids owned per product), and their stock items in the
 * inventory table: list, get, create, update with every rule of the spec, delete.
 */
export class ProductTable {
  private readonly byId = new Map<string, ProductRec>();
  private readonly list = new SeqList<ProductRec>();
  private readonly variantOwner = new Map<string, string>();
  private readonly optionOwner = new Map<string, string>();

  constructor(
    private readonly ctx: StoreContext,
    private readonly inventory: InventoryTable,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  get variantCount(): number {
    return this.variantOwner.size;
  }

  /** Every product in creation order. */
  records(): readonly ProductRec[] {
    return this.list.values();
  }

  /** Loads saved products, with their saved sequence numbers (products, then per inventory item). */
  load(
    products: readonly Product[],
    seqs: readonly number[] | undefined,
    itemSeqs: Readonly<Record<string, number>> | undefined,
  ): void {
    products.forEach((p, i) => {
      const seq = this.ctx.loadedSeq(seqs?.[i]);
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
        json: null,
      };
      this.ctx.clock.observe(Date.parse(p.updated_at));
      const loadItem = (inv: InventoryItem | null, variantId: string | null): ItemRec => {
        const itemId = inv?.item_id ?? this.ctx.newId('inv', (id) => this.inventory.has(id));
        const itemSeq = this.ctx.loadedSeq(itemSeqs?.[itemId]);
        return {
          seq: itemSeq,
          item_id: itemId,
          product_id: p.id,
          variant_id: variantId,
          quantity: inv?.quantity ?? 0,
          updated_at: inv?.updated_at ?? p.updated_at,
        };
      };
      if (p.variants.length === 0) rec.item = loadItem(p.inventory, null);
      for (const v of p.variants) {
        rec.variants.push({ ...pickVariantFields(v), item: loadItem(v.inventory, v.id) });
      }
      this.addRec(rec);
    });
  }

  private addRec(rec: ProductRec): void {
    this.byId.set(rec.id, rec);
    this.list.push(rec);
    if (rec.item !== null) this.inventory.add(rec.item, rec, null);
    for (const v of rec.variants) {
      this.variantOwner.set(v.id, rec.id);
      this.inventory.add(v.item, rec, v);
    }
    for (const o of rec.options) this.optionOwner.set(o.id, rec.id);
  }

  private rec(id: string): ProductRec {
    const p = this.byId.get(id);
    if (p === undefined) throw notFound(`no product with id ${id}`);
    return p;
  }

  private newVariant(productId: string, v: VariantCreate | VariantUpdateEntry, now: string): VariantRec {
    const id = this.ctx.newId('var', (x) => this.variantOwner.has(x));
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
      id: this.ctx.newId('opt', (x) => this.optionOwner.has(x)),
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
      status === undefined ? undefined : (p) => p.fields.status === status,
    );
    return listJson(page.items.map(productJson), page);
  }

  get(id: string): Product {
    return JSON.parse(productJson(this.rec(id))) as Product;
  }

  /** The cached JSON of one product (what GET answers). */
  getJson(id: string): string {
    return productJson(this.rec(id));
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
      json: null,
    };
    this.addRec(rec);
    this.ctx.changed();
    return this.get(id);
  }

  /** PATCH /api/v2/products/{id}: every rule of the spec (replace lists, images, stock). */
  update(id: string, body: unknown): Product {
    const p = this.rec(id);
    const b = parseBody(ProductUpdate, body);
    // Validate everything before touching anything.
    if (b.variants !== undefined) {
      const seen = new Set<string>();
      b.variants.forEach((v, i) => {
        if (v.id === undefined) return;
        if (this.variantOwner.get(v.id) !== id) {
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
        if (this.optionOwner.get(o.id) !== id) {
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
          this.variantOwner.set(v.id, id);
          this.inventory.add(v.item, p, v);
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
        this.variantOwner.delete(gone.id);
        this.inventory.remove(gone.item);
      }
      p.variants = next;
      if (next.length > 0 && p.item !== null) {
        this.inventory.remove(p.item);
        p.item = null;
      } else if (next.length === 0 && p.item === null) {
        p.item = this.inventory.newItem(id, null, b.inventory_quantity ?? 0, now);
        this.inventory.add(p.item, p, null);
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
          this.optionOwner.set(o.id, id);
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
      for (const gone of old.values()) this.optionOwner.delete(gone.id);
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
    p.json = null;
    this.ctx.changed();
    return this.get(id);
  }

  /** DELETE /api/v2/products/{id}: the product, its variants, options, images and stock. */
  delete(id: string): DeletionResult {
    const p = this.rec(id);
    this.byId.delete(id);
    this.list.remove(p);
    if (p.item !== null) this.inventory.remove(p.item);
    for (const v of p.variants) {
      this.variantOwner.delete(v.id);
      this.inventory.remove(v.item);
    }
    for (const o of p.options) this.optionOwner.delete(o.id);
    this.ctx.changed();
    return { id, object: 'product', deleted: true };
  }
}
