import { PRODUCT_FIELDS } from '../schema/product.js';
import { createHash } from 'node:crypto';
import {
  CustomerCreate,
  CustomerUpdate,
  FulfillmentStatus,
  InventoryBatch,
  InventoryUpdate,
  MessageSend,
  Order,
  OrderStatus,
  PaymentStatus,
  ProductCreate,
  ProductStatus,
  ProductUpdate,
  TemplateCategory,
  TemplateCreate,
  TemplateStatus,
  templateVariables,
  type Customer,
  type DeletionResult,
  type InventoryItem,
  type Message,
  type MessageTemplate,
  type Product,
  type ProductOption,
  type Store,
  type StoreSnapshot,
  type VariantCreate,
  type VariantUpdateEntry,
} from '../schema/index.js';
import { z } from 'zod';
import { Clock } from './clock.js';
import { IdempotencyTable, type IdempotencyRecord } from './idempotency.js';
import { parseLimit, SeqList, type Page, type Sequenced } from './pagination.js';
import { fromZodError, invalidParam, notFound } from './sandbox-error.js';

/** A message the sandbox "sent" (kept for tests; the API returns only the Message fields). */
export interface SentMessage extends Message {
  language: string;
  parameters: Record<string, string>;
  created_at: string;
}

/** What the sandbox keeps besides the store snapshot. */
export interface SandboxExtras {
  version: 1;
  counters: { id: number; seq: number; clock: number };
  /** Creation sequence numbers (pagination order), parallel to the snapshot arrays. */
  seqs: { products: number[]; customers: number[]; orders: number[]; templates: number[] };
  /** Sequence number per inventory item id. */
  item_seqs: Record<string, number>;
  messages: SentMessage[];
  idempotency: IdempotencyRecord[];
}

/**
 * The sandbox state file: a valid StoreSnapshot (so it can also be used as a `--seed`) plus the
 * sandbox's own extras (counters, pagination order, sent messages, idempotency table).
 */
export interface SandboxState extends StoreSnapshot {
  sandbox?: SandboxExtras;
}

/** Query of a list request (the URL's search params). */
export type ListQuery = URLSearchParams;

export interface SandboxStoreOptions {
  /** Loaded state or snapshot (default: an empty store). */
  state?: SandboxState;
  /** Base URL images are re-hosted under (the server sets it once it listens). */
  baseUrl?: string;
}

const PRODUCT_FIELD_KEYS = PRODUCT_FIELDS;
type ProductFieldKey = (typeof PRODUCT_FIELD_KEYS)[number];
type ProductFields = Pick<Product, ProductFieldKey>;

interface ItemRec extends Sequenced {
  item_id: string;
  product_id: string;
  variant_id: string | null;
  quantity: number;
  updated_at: string;
}

interface VariantRec {
  id: string;
  name: string;
  sku: string | null;
  description: string | null;
  price: number;
  original_price: number | null;
  cost: number | null;
  weight: number;
  item: ItemRec;
}

interface ProductRec extends Sequenced {
  id: string;
  fields: ProductFields;
  /**
   * The product-level inventory item. Decision: a product WITHOUT variants has exactly one item
   * (`product.inventory`); a product WITH variants has `inventory: null` and each variant carries
   * its own item. Adding the first variant removes the product item; removing all variants
   * (`variants: []`) creates a fresh one (quantity from `inventory_quantity`, else 0).
   */
  item: ItemRec | null;
  variants: VariantRec[];
  options: ProductOption[];
  images: string[];
  created_at: string;
  updated_at: string;
  json: string | null;
}

interface Entry<T> extends Sequenced {
  value: T;
  json: string | null;
}

interface ItemRef {
  item: ItemRec;
  product: ProductRec;
  variant: VariantRec | null;
}

const DEFAULT_STORE: Store = {
  id: 'store_sandbox',
  object: 'store',
  name: 'Sandbox Store',
  alias: 'sandbox',
  phone: '',
  email: null,
  country: 'US',
  currency: 'USD',
  timezone: 'UTC',
  address: null,
  tax: { inclusive: false, percent: 0 },
  service_charge: null,
};

/** Language of templates created without one. */
export const DEFAULT_TEMPLATE_LANGUAGE = 'en';

const TemplateReview = z.object({
  status: TemplateStatus,
  category: TemplateCategory.optional(),
  rejected_reason: z.string().nullable().optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) throw fromZodError(r.error, body);
  return r.data;
}

function entryJson<T>(e: Entry<T>): string {
  if (e.json === null) e.json = JSON.stringify(e.value);
  return e.json;
}

function listJson(jsons: string[], page: Page<unknown>): string {
  return `{"object":"list","data":[${jsons.join(',')}],"has_more":${page.hasMore},"next_cursor":${
    page.nextCursor === null ? 'null' : JSON.stringify(page.nextCursor)
  }}`;
}

function enumFilter<T extends string>(query: ListQuery, name: string, schema: z.ZodType<T>): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const r = schema.safeParse(raw);
  if (!r.success) throw invalidParam(name, `${name}: unknown value ${JSON.stringify(raw)}`);
  return r.data;
}

function dateFilter(query: ListQuery, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const ms = Date.parse(raw);
  if (!z.iso.datetime({ offset: true }).safeParse(raw).success || Number.isNaN(ms)) {
    throw invalidParam(name, `${name} must be an ISO 8601 date-time`);
  }
  return ms;
}

/**
 * The sandbox's state and every rule of the Merchant API V2 spec plus the API-GAPS decisions.
 * Methods validate everything before changing anything, so a rejected request leaves no trace.
 * Errors are thrown as SandboxError (see sandbox-error.ts).
 */
export class SandboxStore {
  /** Images are re-hosted under `${baseUrl}/__sandbox/images/`. */
  baseUrl: string;
  /** Called after every change (the server debounces a save on it). */
  onChange: (() => void) | null = null;
  readonly idempotency: IdempotencyTable;

  private me: Store;
  private readonly clock: Clock;
  private idCounter: number;
  private seqCounter: number;
  private readonly products = new Map<string, ProductRec>();
  private readonly productList = new SeqList<ProductRec>();
  private readonly variantOwner = new Map<string, string>();
  private readonly optionOwner = new Map<string, string>();
  private readonly items = new Map<string, ItemRef>();
  private readonly itemList = new SeqList<ItemRec>();
  private readonly customers = new Map<string, Entry<Customer>>();
  private readonly customerList = new SeqList<Entry<Customer>>();
  private readonly orders = new Map<string, Entry<Order>>();
  private readonly orderList = new SeqList<Entry<Order>>();
  private readonly templates = new Map<string, Entry<MessageTemplate>>();
  private readonly templateByName = new Map<string, Entry<MessageTemplate>>();
  private readonly templateList = new SeqList<Entry<MessageTemplate>>();
  private readonly sent: SentMessage[] = [];

  constructor(options: SandboxStoreOptions = {}) {
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1').replace(/\/+$/, '');
    const state = options.state;
    const extras = state?.sandbox;
    this.me = state?.me ?? { ...DEFAULT_STORE };
    this.clock = new Clock(extras?.counters.clock ?? 0);
    this.idCounter = extras?.counters.id ?? 0;
    this.seqCounter = extras?.counters.seq ?? 0;
    this.idempotency = new IdempotencyTable(extras?.idempotency ?? []);
    if (state !== undefined) this.load(state, extras);
  }

  // ---------------------------------------------------------------- state

  private load(state: SandboxState, extras: SandboxExtras | undefined): void {
    const seqAt = (list: number[] | undefined, i: number): number => list?.[i] ?? ++this.seqCounter;
    state.products.forEach((p, i) => {
      const seq = seqAt(extras?.seqs.products, i);
      this.seqCounter = Math.max(this.seqCounter, seq);
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
      this.clock.observe(Date.parse(p.updated_at));
      const loadItem = (inv: InventoryItem | null, variantId: string | null): ItemRec => {
        const itemId = inv?.item_id ?? this.newId('inv', (id) => this.items.has(id));
        const itemSeq = extras?.item_seqs[itemId] ?? ++this.seqCounter;
        this.seqCounter = Math.max(this.seqCounter, itemSeq);
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
        rec.variants.push({
          id: v.id,
          name: v.name,
          sku: v.sku,
          description: v.description,
          price: v.price,
          original_price: v.original_price,
          cost: v.cost,
          weight: v.weight,
          item: loadItem(v.inventory, v.id),
        });
      }
      this.addProduct(rec);
    });
    state.customers.forEach((c, i) => {
      this.clock.observe(Date.parse(c.updated_at));
      const e: Entry<Customer> = { seq: seqAt(extras?.seqs.customers, i), value: c, json: null };
      this.seqCounter = Math.max(this.seqCounter, e.seq);
      this.customers.set(c.id, e);
      this.customerList.push(e);
    });
    state.orders.forEach((o, i) => {
      this.clock.observe(Date.parse(o.updated_at));
      const e: Entry<Order> = { seq: seqAt(extras?.seqs.orders, i), value: o, json: null };
      this.seqCounter = Math.max(this.seqCounter, e.seq);
      this.orders.set(o.id, e);
      this.orderList.push(e);
    });
    state.templates.forEach((t, i) => {
      const e: Entry<MessageTemplate> = { seq: seqAt(extras?.seqs.templates, i), value: t, json: null };
      this.seqCounter = Math.max(this.seqCounter, e.seq);
      this.templates.set(t.id, e);
      this.templateByName.set(t.name, e);
      this.templateList.push(e);
    });
    if (extras !== undefined) this.sent.push(...extras.messages);
  }

  /**
   * The whole state as JSON text pieces, produced synchronously (so it is one consistent
   * moment even if the file is written asynchronously). Joined, they form a SandboxState.
   */
  stateChunks(exportedAt = new Date().toISOString()): string[] {
    const chunks: string[] = [];
    chunks.push(
      `{"format":"merchant-bulk/snapshot","version":1,"exported_at":${JSON.stringify(exportedAt)},"me":${JSON.stringify(this.me)},"products":[`,
    );
    const seqs: SandboxExtras['seqs'] = { products: [], customers: [], orders: [], templates: [] };
    const itemSeqs: Record<string, number> = {};
    let first = true;
    for (const p of this.productList.values()) {
      chunks.push(first ? this.productJson(p) : `,${this.productJson(p)}`);
      first = false;
      seqs.products.push(p.seq);
      if (p.item !== null) itemSeqs[p.item.item_id] = p.item.seq;
      for (const v of p.variants) itemSeqs[v.item.item_id] = v.item.seq;
    }
    const section = <T>(name: string, list: SeqList<Entry<T>>, into: number[]): void => {
      chunks.push(`],"${name}":[`);
      let f = true;
      for (const e of list.values()) {
        chunks.push(f ? entryJson(e) : `,${entryJson(e)}`);
        f = false;
        into.push(e.seq);
      }
    };
    section('customers', this.customerList, seqs.customers);
    section('orders', this.orderList, seqs.orders);
    section('templates', this.templateList, seqs.templates);
    const extras: SandboxExtras = {
      version: 1,
      counters: { id: this.idCounter, seq: this.seqCounter, clock: this.clock.lastMs },
      seqs,
      item_seqs: itemSeqs,
      messages: this.sent,
      idempotency: this.idempotency.toJSON(),
    };
    chunks.push(`],"sandbox":${JSON.stringify(extras)}}`);
    return chunks;
  }

  /** The whole state as one object (convenient for small stores and tests). */
  toState(): SandboxState {
    return JSON.parse(this.stateChunks().join('')) as SandboxState;
  }

  /** The store as a plain snapshot (without the sandbox extras). */
  toSnapshot(): StoreSnapshot {
    const { sandbox: _sandbox, ...snapshot } = this.toState();
    return snapshot;
  }

  /** Entity counts (for logs and benchmarks). */
  counts(): {
    products: number;
    variants: number;
    customers: number;
    orders: number;
    templates: number;
    messages: number;
  } {
    return {
      products: this.products.size,
      variants: this.variantOwner.size,
      customers: this.customers.size,
      orders: this.orders.size,
      templates: this.templates.size,
      messages: this.sent.length,
    };
  }

  /** Tells the persistence layer that something changed (also used for the idempotency table). */
  changed(): void {
    this.onChange?.();
  }

  // ---------------------------------------------------------------- helpers

  private newId(prefix: string, taken: (id: string) => boolean): string {
    for (;;) {
      const id = `${prefix}_${(++this.idCounter).toString(36).padStart(6, '0')}`;
      if (!taken(id)) return id;
    }
  }

  private nextSeq(): number {
    return ++this.seqCounter;
  }

  private addProduct(rec: ProductRec): void {
    this.products.set(rec.id, rec);
    this.productList.push(rec);
    if (rec.item !== null) this.addItem(rec.item, rec, null);
    for (const v of rec.variants) {
      this.variantOwner.set(v.id, rec.id);
      this.addItem(v.item, rec, v);
    }
    for (const o of rec.options) this.optionOwner.set(o.id, rec.id);
  }

  private addItem(item: ItemRec, product: ProductRec, variant: VariantRec | null): void {
    this.items.set(item.item_id, { item, product, variant });
    this.itemList.push(item);
  }

  private removeItem(item: ItemRec): void {
    this.items.delete(item.item_id);
    this.itemList.remove(item);
  }

  private newItem(productId: string, variantId: string | null, quantity: number, now: string): ItemRec {
    return {
      seq: this.nextSeq(),
      item_id: this.newId('inv', (id) => this.items.has(id)),
      product_id: productId,
      variant_id: variantId,
      quantity,
      updated_at: now,
    };
  }

  private renderItem(item: ItemRec, product: ProductRec, variant: VariantRec | null): InventoryItem {
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
  private soldout(p: ProductRec): boolean {
    if (!p.fields.inventory_enabled) return false;
    if (p.variants.length > 0) return p.variants.every((v) => v.item.quantity <= 0);
    return p.item !== null && p.item.quantity <= 0;
  }

  private renderProduct(p: ProductRec): Product {
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
      soldout: this.soldout(p),
      inventory: p.variants.length === 0 && p.item !== null ? this.renderItem(p.item, p, null) : null,
      variants: p.variants.map((v) => ({
        id: v.id,
        object: 'variant' as const,
        product_id: p.id,
        name: v.name,
        sku: v.sku,
        description: v.description,
        price: v.price,
        original_price: v.original_price,
        cost: v.cost,
        weight: v.weight,
        inventory: this.renderItem(v.item, p, v),
      })),
      options: p.options,
      images: p.images,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  private productJson(p: ProductRec): string {
    if (p.json === null) p.json = JSON.stringify(this.renderProduct(p));
    return p.json;
  }

  /** Items the API shows: the variants' items, or the product's own when it has no variants. */
  private exposed(ref: ItemRef): boolean {
    return ref.variant !== null || ref.product.variants.length === 0;
  }

  /**
   * Whether `url` is already on the sandbox's storage (kept as is): anything under the base URL,
   * and any `/__sandbox/images/` URL (generated stores and stores saved under another port).
   */
  private isHosted(url: string): boolean {
    if (url.startsWith(`${this.baseUrl}/`)) return true;
    return /^https?:\/\/[^/]+\/__sandbox\/images\//i.test(url);
  }

  /**
   * Re-hosts images: URLs under the sandbox base URL are kept; any other URL is "fetched" and
   * answered with a stable sandbox URL (hash of the source URL). A host ending in `.invalid`
   * stands for an unfetchable URL and fails the whole request (400, param `images`).
   */
  private rehostImages(urls: readonly string[]): string[] {
    return urls.map((url) => {
      if (this.isHosted(url)) return url;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw invalidParam('images', `image could not be fetched: ${url}`);
      }
      const host = parsed.hostname.toLowerCase();
      if (host === 'invalid' || host.endsWith('.invalid')) {
        throw invalidParam('images', `image could not be fetched: ${url}`);
      }
      let ext = /\.(jpe?g|png|gif|webp)$/i.exec(parsed.pathname)?.[1]?.toLowerCase() ?? 'png';
      if (ext === 'jpeg') ext = 'jpg';
      const hash = createHash('sha256').update(url).digest('hex').slice(0, 20);
      return `${this.baseUrl}/__sandbox/images/${hash}.${ext}`;
    });
  }

  private product(id: string): ProductRec {
    const p = this.products.get(id);
    if (p === undefined) throw notFound(`no product with id ${id}`);
    return p;
  }

  private newVariant(productId: string, v: VariantCreate | VariantUpdateEntry, now: string): VariantRec {
    const id = this.newId('var', (x) => this.variantOwner.has(x));
    return {
      id,
      name: v.name,
      sku: v.sku ?? null,
      description: v.description ?? null,
      price: v.price,
      original_price: v.original_price ?? 0,
      cost: v.cost ?? null,
      weight: v.weight ?? 0,
      item: this.newItem(productId, id, v.inventory_quantity ?? 0, now),
    };
  }

  private newOption(o: {
    type?: ProductOption['type'] | undefined;
    text: string;
    required?: boolean | undefined;
    settings?: unknown;
  }): ProductOption {
    const option: ProductOption = {
      id: this.newId('opt', (x) => this.optionOwner.has(x)),
      object: 'product_option',
      type: o.type ?? 'OPTION_TEXT',
      text: o.text,
      required: o.required ?? false,
    };
    if (o.settings !== undefined) option.settings = o.settings;
    return option;
  }

  // ---------------------------------------------------------------- store profile

  getMe(): Store {
    return this.me;
  }

  // ---------------------------------------------------------------- products

  /** GET /api/v2/products: `limit`, `cursor`, `status` (VISIBLE | HIDDEN). Returns the JSON body. */
  listProductsJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const status = enumFilter(query, 'status', ProductStatus);
    const page = this.productList.page(
      query.get('cursor'),
      limit,
      status === undefined ? undefined : (p) => p.fields.status === status,
    );
    return listJson(
      page.items.map((p) => this.productJson(p)),
      page,
    );
  }

  getProduct(id: string): Product {
    return JSON.parse(this.productJson(this.product(id))) as Product;
  }

  /** The cached JSON of one product (what GET answers). */
  getProductJson(id: string): string {
    return this.productJson(this.product(id));
  }

  /** POST /api/v2/products (API-GAPS decision). */
  createProduct(body: unknown): Product {
    const b = parse(ProductCreate, body);
    const images = this.rehostImages(b.images ?? []);
    const now = this.clock.tick();
    const id = this.newId('prod', (x) => this.products.has(x));
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
      seq: this.nextSeq(),
      id,
      fields,
      item: variants.length === 0 ? this.newItem(id, null, b.inventory_quantity ?? 0, now) : null,
      variants,
      options: (b.options ?? []).map((o) => this.newOption(o)),
      images,
      created_at: now,
      updated_at: now,
      json: null,
    };
    this.addProduct(rec);
    this.changed();
    return this.getProduct(id);
  }

  /** PATCH /api/v2/products/{id}: every rule of the spec (replace lists, images, stock). */
  updateProduct(id: string, body: unknown): Product {
    const p = this.product(id);
    const b = parse(ProductUpdate, body);
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
    const images = b.images === undefined ? undefined : this.rehostImages(b.images);

    // Apply.
    const now = this.clock.tick();
    const before = new Map<string, string>();
    const sig = (item: ItemRec, v: VariantRec | null): string => {
      const { updated_at: _u, ...rest } = this.renderItem(item, p, v);
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
          this.addItem(v.item, p, v);
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
        this.removeItem(gone.item);
      }
      p.variants = next;
      if (next.length > 0 && p.item !== null) {
        this.removeItem(p.item);
        p.item = null;
      } else if (next.length === 0 && p.item === null) {
        p.item = this.newItem(id, null, b.inventory_quantity ?? 0, now);
        this.addItem(p.item, p, null);
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
    this.changed();
    return this.getProduct(id);
  }

  /** DELETE /api/v2/products/{id}: the product, its variants, options, images and stock. */
  deleteProduct(id: string): DeletionResult {
    const p = this.product(id);
    this.products.delete(id);
    this.productList.remove(p);
    if (p.item !== null) this.removeItem(p.item);
    for (const v of p.variants) {
      this.variantOwner.delete(v.id);
      this.removeItem(v.item);
    }
    for (const o of p.options) this.optionOwner.delete(o.id);
    this.changed();
    return { id, object: 'product', deleted: true };
  }

  // ---------------------------------------------------------------- inventory

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

  getInventoryItem(itemId: string): InventoryItem {
    const ref = this.itemRef(itemId);
    return this.renderItem(ref.item, ref.product, ref.variant);
  }

  /** PATCH /api/v2/inventory_items/{id}: exactly one of quantity / delta_quantity. */
  updateInventoryItem(itemId: string, body: unknown): InventoryItem {
    const ref = this.itemRef(itemId);
    const b = parse(InventoryUpdate, body) as { quantity?: number; delta_quantity?: number };
    const quantity = b.quantity ?? ref.item.quantity + (b.delta_quantity ?? 0);
    if (quantity < 0) {
      throw invalidParam(
        'delta_quantity',
        `stock would go below 0 (${ref.item.quantity} + ${b.delta_quantity})`,
      );
    }
    this.setQuantity(ref, quantity, this.clock.tick());
    this.changed();
    return this.renderItem(ref.item, ref.product, ref.variant);
  }

  /**
   * POST /api/v2/inventory_items/batch_update: bare array in, bare array out, all or nothing.
   * Entries naming the same item apply in order.
   */
  batchUpdateInventory(body: unknown): InventoryItem[] {
    const entries = parse(InventoryBatch, body) as {
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
    for (const ref of refs) this.setQuantity(ref, next.get(ref.item.item_id) as number, this.clock.tick());
    if (refs.length > 0) this.changed();
    return refs.map((ref) => this.renderItem(ref.item, ref.product, ref.variant));
  }

  /** GET /api/v2/inventory_items: `limit`, `cursor`, `updated_after`. */
  listInventoryItemsJson(query: ListQuery): string {
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
        return JSON.stringify(this.renderItem(item, ref.product, ref.variant));
      }),
      page,
    );
  }

  // ---------------------------------------------------------------- customers

  private customer(id: string): Entry<Customer> {
    const c = this.customers.get(id);
    if (c === undefined) throw notFound(`no customer with id ${id}`);
    return c;
  }

  /** GET /api/v2/customers: `limit`, `cursor`, `updated_after`. */
  listCustomersJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const after = dateFilter(query, 'updated_after');
    const page = this.customerList.page(
      query.get('cursor'),
      limit,
      after === undefined ? undefined : (e) => Date.parse(e.value.updated_at) > after,
    );
    return listJson(page.items.map(entryJson), page);
  }

  getCustomer(id: string): Customer {
    return this.customer(id).value;
  }

  createCustomer(body: unknown): Customer {
    const b = parse(CustomerCreate, body);
    const now = this.clock.tick();
    const value: Customer = {
      id: this.newId('cus', (x) => this.customers.has(x)),
      object: 'customer',
      name: b.name,
      email: b.email ?? null,
      phone: b.phone,
      address: null,
      created_at: now,
      updated_at: now,
    };
    const e: Entry<Customer> = { seq: this.nextSeq(), value, json: null };
    this.customers.set(value.id, e);
    this.customerList.push(e);
    this.changed();
    return value;
  }

  updateCustomer(id: string, body: unknown): Customer {
    const e = this.customer(id);
    const b = parse(CustomerUpdate, body);
    const value: Customer = { ...e.value, updated_at: this.clock.tick() };
    if (b.name !== undefined) value.name = b.name;
    if (b.phone !== undefined) value.phone = b.phone;
    if (b.email !== undefined) value.email = b.email;
    e.value = value;
    e.json = null;
    this.changed();
    return value;
  }

  // ---------------------------------------------------------------- orders

  /** GET /api/v2/orders: `limit`, `cursor`, `order_status`, `payment_status`, `fulfillment_status`. */
  listOrdersJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const os = enumFilter(query, 'order_status', OrderStatus);
    const ps = enumFilter(query, 'payment_status', PaymentStatus);
    const fs = enumFilter(query, 'fulfillment_status', FulfillmentStatus);
    const filter =
      os === undefined && ps === undefined && fs === undefined
        ? undefined
        : (e: Entry<Order>) =>
            (os === undefined || e.value.order_status === os) &&
            (ps === undefined || e.value.payment_status === ps) &&
            (fs === undefined || e.value.fulfillment_status === fs);
    const page = this.orderList.page(query.get('cursor'), limit, filter);
    return listJson(page.items.map(entryJson), page);
  }

  /**
   * Admin: adds or updates orders (an Order or an array). An existing id is merged with the
   * given fields (so `{id, order_status}` is enough); a new one must be a whole Order.
   * `updated_at` always advances; `created_at` of an existing order never changes.
   */
  upsertOrders(body: unknown): Order[] {
    const list = Array.isArray(body) ? (body as unknown[]) : [body];
    const parsed: Order[] = list.map((raw, i) => {
      const id = (raw as { id?: unknown } | null)?.id;
      const existing = typeof id === 'string' ? this.orders.get(id) : undefined;
      const merged: unknown = existing === undefined ? raw : { ...existing.value, ...(raw as object) };
      const r = Order.safeParse(merged);
      if (!r.success) {
        const err = fromZodError(r.error, merged);
        if (!Array.isArray(body)) throw err;
        throw invalidParam(err.param === undefined ? String(i) : `${i}.${err.param}`, err.message, err.code);
      }
      if (existing !== undefined) r.data.created_at = existing.value.created_at;
      return r.data;
    });
    const out: Order[] = [];
    for (const o of parsed) {
      const now = this.clock.tick();
      const existing = this.orders.get(o.id);
      o.updated_at = now;
      if (existing !== undefined) {
        existing.value = o;
        existing.json = null;
      } else {
        const e: Entry<Order> = { seq: this.nextSeq(), value: o, json: null };
        this.orders.set(o.id, e);
        this.orderList.push(e);
      }
      out.push(o);
    }
    this.changed();
    return out;
  }

  // ---------------------------------------------------------------- templates and messages

  /** GET /api/v2/message_templates: `limit`, `cursor`, `status`, `category`, `name` (contains). */
  listTemplatesJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const status = enumFilter(query, 'status', TemplateStatus);
    const category = enumFilter(query, 'category', TemplateCategory);
    const name = query.get('name');
    const page = this.templateList.page(
      query.get('cursor'),
      limit,
      (e) =>
        (status === undefined || e.value.status === status) &&
        (category === undefined || e.value.category === category) &&
        (name === null || e.value.name.includes(name)),
    );
    return listJson(page.items.map(entryJson), page);
  }

  /** POST /api/v2/message_templates: starts PENDING; names are unique. */
  createTemplate(body: unknown): MessageTemplate {
    const b = parse(TemplateCreate, body);
    if (this.templateByName.has(b.name)) {
      throw invalidParam('name', `a template named ${b.name} already exists`);
    }
    const value: MessageTemplate = {
      id: this.newId('tpl', (x) => this.templates.has(x)),
      object: 'message_template',
      name: b.name,
      status: 'PENDING',
      category: b.category,
      language: b.language ?? DEFAULT_TEMPLATE_LANGUAGE,
      header: b.header ?? null,
      header_image_url: b.header_image_url ?? null,
      body: b.body,
      footer: b.footer ?? null,
      buttons: b.buttons ?? [],
      parameters: templateVariables(b.body),
      rejected_reason: null,
    };
    const e: Entry<MessageTemplate> = { seq: this.nextSeq(), value, json: null };
    this.templates.set(value.id, e);
    this.templateByName.set(value.name, e);
    this.templateList.push(e);
    this.changed();
    return value;
  }

  /** Admin: the external review (approve, reject, re-categorise…). */
  reviewTemplate(name: string, body: unknown): MessageTemplate {
    const e = this.templateByName.get(name);
    if (e === undefined) throw notFound(`no template named ${name}`);
    const b = parse(TemplateReview, body);
    const value: MessageTemplate = { ...e.value, status: b.status };
    if (b.category !== undefined) value.category = b.category;
    if (b.rejected_reason !== undefined) value.rejected_reason = b.rejected_reason;
    else if (b.status === 'APPROVED') value.rejected_reason = null;
    e.value = value;
    e.json = null;
    this.changed();
    return value;
  }

  getTemplate(name: string): MessageTemplate | undefined {
    return this.templateByName.get(name)?.value;
  }

  /** POST /api/v2/messages: APPROVED template only, every named parameter present. */
  sendMessage(body: unknown): Message {
    const b = parse(MessageSend, body);
    const t = this.templateByName.get(b.template)?.value;
    if (t === undefined) throw invalidParam('template', `no template named ${b.template}`);
    if (t.status !== 'APPROVED') {
      throw invalidParam(
        'template',
        `template ${b.template} is ${t.status}; only APPROVED templates can be sent`,
      );
    }
    if (b.language !== undefined && b.language !== t.language) {
      throw invalidParam('language', `template ${b.template} exists in ${t.language}, not ${b.language}`);
    }
    const parameters = b.parameters ?? {};
    for (const name of t.parameters) {
      if (parameters[name] === undefined) {
        throw invalidParam(
          `parameters.${name}`,
          `parameter ${name} is required by template ${t.name}`,
          'missing_parameter',
        );
      }
    }
    const message: Message = {
      id: this.newId('msg', () => false),
      object: 'message',
      to: b.to,
      template: t.name,
      status: 'sent',
    };
    this.sent.push({ ...message, language: t.language, parameters, created_at: this.clock.tick() });
    this.changed();
    return message;
  }

  /** Messages sent so far (admin / tests). */
  messages(): readonly SentMessage[] {
    return this.sent;
  }
}
