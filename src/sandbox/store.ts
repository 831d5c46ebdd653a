import type {
  Customer,
  DeletionResult,
  InventoryItem,
  Message,
  MessageTemplate,
  Order,
  Product,
  Store,
  StoreSnapshot,
} from '../schema/index.js';
import { invalidParam } from './sandbox-error.js';
import { IdempotencyTable, type IdempotencyRecord } from './idempotency.js';
import { CustomerTable } from './tables/customer-table.js';
import { entryJson, type Entry } from './tables/list-json.js';
import { InventoryTable } from './tables/inventory-table.js';
import { MessageLog, type SentMessage } from './tables/message-log.js';
import { OrderTable } from './tables/order-table.js';
import { ProductTable } from './tables/product-table.js';
import type { ProductLoad } from './tables/product-load.js';
import type { ListQuery } from './tables/request-parsing.js';
import { StoreContext } from './tables/store-context.js';
import { TemplateTable } from './tables/template-table.js';

export type { ListQuery } from './tables/request-parsing.js';
export type { SentMessage } from './tables/message-log.js';
export { DEFAULT_TEMPLATE_LANGUAGE } from './tables/template-table.js';

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

export interface SandboxStoreOptions {
  /** Loaded state or snapshot (default: an empty store). */
  state?: SandboxState;
  /** An empty store's currency and country (default USD, US); ignored with a `state`. */
  empty?: { currency?: string; country?: string };
  /** The sandbox's own URL, whose image URLs are kept (the server sets it once it listens). */
  baseUrl?: string;
  /**
   * The products, already in their compact form (a state file read as a stream, or the generator),
   * instead of `state.products` (then left empty): the whole catalog never exists as objects.
   */
  productLoad?: ProductLoad;
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

/** The start of each stock item in a product's JSON (renderItem's first member is item_id). */
const ITEM_START = /"inventory":\{"item_id":("(?:[^"\\]|\\.)*")/g;

/**
 * The ids of a product's stock items, in the order of its JSON (its own item, else each variant's).
 * Only before the top-level `"options":[` (options' free-form settings could hold anything; no
 * string value can hold that text unescaped, and variants have no `options` member).
 */
function itemIdsInJson(json: string): string[] {
  const end = json.indexOf('"options":[');
  const head = end < 0 ? json : json.slice(0, end);
  const ids: string[] = [];
  ITEM_START.lastIndex = 0;
  for (let m = ITEM_START.exec(head); m !== null; m = ITEM_START.exec(head))
    ids.push(JSON.parse(m[1] as string) as string);
  return ids;
}

/** Characters of state text per block of a state file's write(2) or of GET /__sandbox/state. */
const STATE_BLOCK_CHARS = 1 << 20;

/**
 * The sandbox's state and every rule of the Merchant API V2 spec plus the decisions where it is
 * silent (docs/architecture.md, "The API: gaps and rules"): a
 * thin facade over one table per resource (`./tables/`: products, inventory, customers, orders,
 * templates, messages) that share one clock and one id/sequence counter (`StoreContext`).
 * Methods validate everything before changing anything, so a rejected request leaves no trace.
 * Errors are thrown as SandboxError (see sandbox-error.ts).
 */
export class SandboxStore {
  /** Called after every change (the server debounces a save on it). */
  onChange: (() => void) | null = null;
  readonly idempotency: IdempotencyTable;

  private me: Store;
  private readonly ctx: StoreContext;
  private readonly inventory: InventoryTable;
  private readonly products: ProductTable;
  private readonly customers: CustomerTable;
  private readonly orders: OrderTable;
  private readonly templates: TemplateTable;
  private readonly sent: MessageLog;

  constructor(options: SandboxStoreOptions = {}) {
    const state = options.state;
    const extras = state?.sandbox;
    this.ctx = new StoreContext(
      extras?.counters ?? { id: 0, seq: 0, clock: 0 },
      (options.baseUrl ?? 'http://127.0.0.1').replace(/\/+$/, ''),
      () => this.changed(),
    );
    this.me = state?.me ?? { ...DEFAULT_STORE, ...options.empty };
    this.idempotency = new IdempotencyTable(extras?.idempotency ?? []);
    this.inventory = new InventoryTable(this.ctx);
    this.products = new ProductTable(this.ctx, this.inventory);
    this.customers = new CustomerTable(this.ctx);
    this.orders = new OrderTable(this.ctx);
    this.templates = new TemplateTable(this.ctx);
    this.sent = new MessageLog(this.ctx, this.templates);
    if (state !== undefined) {
      if (options.productLoad === undefined)
        this.products.load(state.products, extras?.seqs.products, extras?.item_seqs);
      else this.products.adopt(options.productLoad, extras?.seqs.products, extras?.item_seqs);
      this.customers.load(state.customers, extras?.seqs.customers);
      this.orders.load(state.orders, extras?.seqs.orders);
      this.templates.load(state.templates, extras?.seqs.templates);
      if (extras !== undefined) this.sent.load(extras.messages);
    }
  }

  /** The sandbox's own URL: image URLs under it are kept as they are (see rehostImages). */
  get baseUrl(): string {
    return this.ctx.baseUrl;
  }

  set baseUrl(url: string) {
    this.ctx.baseUrl = url;
  }

  // ---------------------------------------------------------------- state

  /** The whole state as JSON text pieces (see writeState): joined, they form a SandboxState. */
  stateChunks(exportedAt = new Date().toISOString()): string[] {
    const chunks: string[] = [];
    this.writeState((piece) => chunks.push(piece), exportedAt);
    return chunks;
  }

  /**
   * The whole state as JSON text in blocks of about a million characters (see writeState): what
   * a state file is written in, and the bytes of `GET /__sandbox/state`. Never one string: a store
   * of 330,000 products is 861 MiB, past the ~512 MiB a V8 string can hold.
   */
  writeStateInBlocks(write: (block: string) => void): void {
    let pending: string[] = [];
    let size = 0;
    this.writeState((piece) => {
      pending.push(piece);
      size += piece.length;
      if (size < STATE_BLOCK_CHARS) return;
      write(pending.join(''));
      pending = [];
      size = 0;
    });
    if (size > 0) write(pending.join(''));
  }

  /** The whole state as UTF-8 bytes (one Buffer: it may be longer than a string can be). */
  stateBytes(): Buffer {
    const blocks: Buffer[] = [];
    this.writeStateInBlocks((block) => blocks.push(Buffer.from(block, 'utf8')));
    return Buffer.concat(blocks);
  }

  /**
   * The whole state as JSON text, handed to `write` piece by piece, synchronously (so it is one
   * consistent moment). Each product is its stored JSON; the item sequence numbers are written
   * one by one from the inventory index (never one object of a million keys).
   */
  writeState(write: (piece: string) => void, exportedAt = new Date().toISOString()): void {
    write(
      `{"format":"merchant-bulk/snapshot","version":1,"exported_at":${JSON.stringify(exportedAt)},"me":${JSON.stringify(this.me)},"products":[`,
    );
    const seqs: SandboxExtras['seqs'] = { products: [], customers: [], orders: [], templates: [] };
    let first = true;
    for (const p of this.products.records()) {
      write(first ? p.json : `,${p.json}`);
      first = false;
      seqs.products.push(p.seq);
    }
    const section = <T>(name: string, entries: readonly Entry<T>[], into: number[]): void => {
      write(`],"${name}":[`);
      let f = true;
      for (const e of entries) {
        write(f ? entryJson(e) : `,${entryJson(e)}`);
        f = false;
        into.push(e.seq);
      }
    };
    section('customers', this.customers.table.entries(), seqs.customers);
    section('orders', this.orders.table.entries(), seqs.orders);
    section('templates', this.templates.table.entries(), seqs.templates);
    const head: Pick<SandboxExtras, 'version' | 'counters' | 'seqs'> = {
      version: 1,
      counters: { id: this.ctx.idCounter, seq: this.ctx.seqCounter, clock: this.ctx.clock.lastMs },
      seqs,
    };
    write(`],"sandbox":${JSON.stringify(head).slice(0, -1)},"item_seqs":{`);
    // Each item's number, in the order a load walks them (each product, then its items in its
    // JSON), except where it is the number before it + 1 (ProductTable.adopt gives it back).
    let pieces: string[] = [];
    let firstItems = true;
    const flush = (): void => {
      write(`${firstItems ? '' : ','}${pieces.join(',')}`);
      firstItems = false;
      pieces = [];
    };
    for (const p of this.products.records()) {
      let prev = p.seq;
      for (const itemId of itemIdsInJson(p.json)) {
        const seq = this.inventory.slot(itemId)?.seq ?? 0;
        if (seq !== prev + 1) pieces.push(`${JSON.stringify(itemId)}:${seq}`);
        prev = seq;
      }
      if (pieces.length >= 4096) flush();
    }
    if (pieces.length > 0) flush();
    write(
      `},"messages":${JSON.stringify(this.sent.all())},"idempotency":${JSON.stringify(this.idempotency.toJSON())}}}`,
    );
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
      variants: this.products.variantCount,
      customers: this.customers.table.size,
      orders: this.orders.table.size,
      templates: this.templates.table.size,
      messages: this.sent.all().length,
    };
  }

  /** Tells the persistence layer that something changed (also used for the idempotency table). */
  changed(): void {
    this.onChange?.();
  }

  // ---------------------------------------------------------------- store profile

  getMe(): Store {
    return this.me;
  }

  // ---------------------------------------------------------------- products

  /** GET /api/v2/products: `limit`, `cursor`, `status` (VISIBLE | HIDDEN). Returns the JSON body. */
  listProductsJson(query: ListQuery): string {
    return this.products.listJson(query);
  }

  getProduct(id: string): Product {
    return this.products.get(id);
  }

  /** The cached JSON of one product (what GET answers). */
  getProductJson(id: string): string {
    return this.products.getJson(id);
  }

  /** POST /api/v2/products (a decision of docs/architecture.md, "The API: gaps and rules"). */
  createProduct(body: unknown): Product {
    return this.products.create(body);
  }

  /** PATCH /api/v2/products/{id}: every rule of the spec (replace lists, images, stock). */
  updateProduct(id: string, body: unknown): Product {
    return this.products.update(id, body);
  }

  /** DELETE /api/v2/products/{id}: the product, its variants, options, images and stock. */
  deleteProduct(id: string): DeletionResult {
    return this.products.delete(id);
  }

  // ---------------------------------------------------------------- inventory

  getInventoryItem(itemId: string): InventoryItem {
    return this.inventory.get(itemId);
  }

  /** PATCH /api/v2/inventory_items/{id}: exactly one of quantity / delta_quantity. */
  updateInventoryItem(itemId: string, body: unknown): InventoryItem {
    return this.inventory.update(itemId, body);
  }

  /**
   * POST /api/v2/inventory_items/batch_update: bare array in, bare array out, all or nothing.
   * Entries naming the same item apply in order.
   */
  batchUpdateInventory(body: unknown): InventoryItem[] {
    return this.inventory.batchUpdate(body);
  }

  /** GET /api/v2/inventory_items: `limit`, `cursor`, `updated_after`. */
  listInventoryItemsJson(query: ListQuery): string {
    return this.inventory.listJson(query);
  }

  // ---------------------------------------------------------------- customers

  /** GET /api/v2/customers: `limit`, `cursor`, `updated_after`. */
  listCustomersJson(query: ListQuery): string {
    return this.customers.listJson(query);
  }

  getCustomer(id: string): Customer {
    return this.customers.get(id);
  }

  createCustomer(body: unknown): Customer {
    return this.customers.create(body);
  }

  updateCustomer(id: string, body: unknown): Customer {
    return this.customers.update(id, body);
  }

  // ---------------------------------------------------------------- orders

  /** GET /api/v2/orders: `limit`, `cursor`, `order_status`, `payment_status`, `fulfillment_status`. */
  listOrdersJson(query: ListQuery): string {
    return this.orders.listJson(query);
  }

  /**
   * Admin: adds or updates orders (an Order or an array). An existing id is merged with the
   * given fields (so `{id, order_status}` is enough); a new one must be a whole Order.
   * `updated_at` always advances; `created_at` of an existing order never changes.
   */
  upsertOrders(body: unknown): Order[] {
    return this.orders.upsert(body);
  }

  /** Admin: refunds an order in whole (`{}`) or in part (`{line_items: [{id, quantity}]}`). */
  refundOrder(id: string, body: unknown): Order {
    return this.orders.refund(id, body, this.me);
  }

  /** Admin: cancels an order. */
  cancelOrder(id: string): Order {
    return this.orders.cancel(id);
  }

  /**
   * Admin: moves the sandbox clock forward to `now` (ISO 8601), so later changes are stamped from
   * that time on (a rehearsal of changes over several days). The clock never goes back: `updated_at`
   * always advances. Returns the clock's time.
   */
  setClock(body: unknown): { now: string } {
    const text = (body as { now?: unknown } | undefined)?.now;
    const ms = typeof text === 'string' ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(ms)) throw invalidParam('now', 'now must be an ISO 8601 date-time');
    this.ctx.clock.observe(ms);
    this.changed();
    return { now: new Date(this.ctx.clock.lastMs).toISOString() };
  }

  // ---------------------------------------------------------------- templates and messages

  /** GET /api/v2/message_templates: `limit`, `cursor`, `status`, `category`, `name` (contains). */
  listTemplatesJson(query: ListQuery): string {
    return this.templates.listJson(query);
  }

  /** POST /api/v2/message_templates: starts PENDING; names are unique. */
  createTemplate(body: unknown): MessageTemplate {
    return this.templates.create(body);
  }

  /** Admin: the external review (approve, reject, re-categorise…). */
  reviewTemplate(name: string, body: unknown): MessageTemplate {
    return this.templates.review(name, body);
  }

  getTemplate(name: string): MessageTemplate | undefined {
    return this.templates.named(name);
  }

  /** POST /api/v2/messages: APPROVED template only, every named parameter present. */
  sendMessage(body: unknown): Message {
    return this.sent.send(body);
  }

  /** Messages sent so far (admin / tests). */
  messages(): readonly SentMessage[] {
    return this.sent.all();
  }
}
