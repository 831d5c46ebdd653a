import { setImmediate as loopTurn } from 'node:timers/promises';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { PAGE_LIMIT } from '../../api/paginate.js';
import type { DesiredProduct } from '../../mapping/product-desired.js';
import {
  addLiveProduct,
  emptyLiveCatalog,
  type LiveCatalog,
  type LiveProduct,
} from '../../plan/live-catalog.js';
import { planProducts, type PlanProductsOptions } from '../../plan/plan-products.js';
import { medianPrice, sellablePrices } from '../../plan/price-jumps.js';
import type { Product } from '../../schema/index.js';
import type { JobCallbacks } from '../job-events.js';
import { HeapPacer } from './heap-pacer.js';

/**
 * What becomes of a live product as it is read: `write` the plan may write it (its body is kept,
 * the backup's before-state); `full` kept whole for the plan; `compact` kept without its lists
 * (LiveProduct.compact), `noopFor` the one sheet product that leaves it unchanged.
 */
export type LiveVerdict =
  | { kind: 'write' }
  | { kind: 'full' }
  | { kind: 'compact'; noopFor?: DesiredProduct | undefined; body: boolean };

/** Sorts each live product as it is read (see LiveVerdict). */
export type SortLive = (live: LiveProduct) => LiveVerdict;

const NONE: never[] = [];

/** VISIBLE pages read ahead of the indexing: the next one is on its way while a page is indexed. */
const PAGES_AHEAD = 2;

/**
 * A live product without its description, lists, variants and options (LiveProduct.compact). Built
 * as one literal of every field, in one order: a spread (`{ ...live, … }`) gave each compact
 * product a hidden class of its own (~1 KB of descriptors a product at 10,000 products).
 */
function compactOf(live: LiveProduct, noopFor: DesiredProduct | undefined): LiveProduct {
  return {
    id: live.id,
    updated_at: live.updated_at,
    reference_id: live.reference_id,
    name: live.name,
    description: '',
    sku: live.sku,
    status: live.status,
    type: live.type,
    price: live.price,
    original_price: live.original_price,
    cost_enabled: live.cost_enabled,
    cost: live.cost,
    unit_enabled: live.unit_enabled,
    unit: live.unit,
    unit_value: live.unit_value,
    weight: live.weight,
    tax_override: live.tax_override,
    tax_rate: live.tax_rate,
    tags: NONE,
    links: NONE,
    category_ids: live.category_ids,
    daily_limit: live.daily_limit,
    cart_limit: live.cart_limit,
    cart_minimum: live.cart_minimum,
    inventory_enabled: live.inventory_enabled,
    inventory_quantity: live.inventory_quantity,
    inventory_updated_at: live.inventory_updated_at ?? null,
    images: NONE,
    variants: NONE,
    options: NONE,
    compact: noopFor === undefined ? {} : { noopFor },
  };
}

/**
 * The live catalog read page by page (limit 100) in one unfiltered listing, started as soon as the
 * sheet's header is known so that the read overlaps the sheet's own reading. Until the sheet is
 * read, each page waits as deflated JSON; from then on (`sortBy`) each product is indexed for the
 * plan (LiveCatalog) and sorted against the sheet: only the bodies of products the plan may write
 * are kept (the backup's before-states), and products the sheet leaves unchanged or does not name
 * are kept compact. So a million-variant catalog holds neither a million bodies nor a million
 * variants.
 *
 * The catalog is read as its status partitions in parallel (`client.products.listEvery`): the
 * VISIBLE chain of pages leads and sets the pace, read ahead of the indexing; HIDDEN goes in the
 * background on the rate it leaves. A product whose status changes mid-read could be missed by a
 * plain pass of each partition (and then be planned as a duplicate create, or its row as not
 * found): listEvery reads HIDDEN once ahead of the VISIBLE chain and once behind it, and reads
 * again any VISIBLE page the first HIDDEN chain had not passed, so every product is read once as
 * by one plain read (see listEveryProduct; a listing out of creation order is read plainly).
 */
export class LiveCatalogRead {
  readonly catalog: LiveCatalog = emptyLiveCatalog();
  private readonly bodies = new Map<string, string>();
  private sort: SortLive | undefined;
  /** One price per sellable item of the whole catalog (compact products included). */
  private readonly prices: number[] = [];
  /** Pages read before `sortBy`, or before its replay indexed those, in order. */
  private pending: Buffer[] = [];
  /** `sortBy`'s indexing of the pending pages, while it goes. */
  private replaying: Promise<void> | undefined;
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;
  private readonly started = performance.now();
  private readonly pacer = new HeapPacer();
  /**
   * When the read started (ms since the epoch): what it shows of the store is at least this fresh.
   * With `seconds`, it ages the read as the write-time check's first listing (`import … --apply`).
   */
  readonly startedAt = Date.now();
  /** Seconds the read took (set once it is complete). */
  seconds = 0;
  /** The read is over (complete, failed or stopped). */
  private over = false;

  constructor(
    private readonly client: MerchantClient,
    callbacks: JobCallbacks,
  ) {
    const parent = callbacks.signal;
    const onAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted === true) onAbort();
    else parent?.addEventListener('abort', onAbort, { once: true });
    this.done = this.read(callbacks).finally(() => {
      this.over = true;
      parent?.removeEventListener('abort', onAbort);
    });
    // Raised to whoever awaits `complete()`; not unhandled when nobody does (a refused sheet).
    this.done.catch(() => undefined);
  }

  private async read(callbacks: JobCallbacks): Promise<void> {
    let n = 0;
    let waiting: Product[] = [];
    const products = this.client.products.listEvery({
      signal: this.controller.signal,
      readAhead: PAGES_AHEAD,
    });
    for await (const p of products) {
      // Until the sheet is read, products wait in deflated pages of JSON (about a tenth of the text),
      // and until those pages are indexed (`sortBy`'s replay), the products read meanwhile too.
      if (this.sort !== undefined && this.replaying === undefined) {
        // Those waiting since before `sortBy` come first (pending pages are indexed by it).
        for (const w of waiting) this.take(w);
        waiting = [];
        this.take(p);
      } else if (waiting.push(p) === PAGE_LIMIT) {
        this.pending.push(deflateRawSync(JSON.stringify(waiting), { level: 1 }));
        waiting = [];
      }
      if (++n % PAGE_LIMIT === 0) this.pacer.check();
      if (n % 500 === 0) callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
    }
    if (waiting.length > 0) {
      if (this.sort !== undefined && this.replaying === undefined) for (const p of waiting) this.take(p);
      else this.pending.push(deflateRawSync(JSON.stringify(waiting), { level: 1 }));
    }
    callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
    this.pacer.check(true);
    this.seconds = (performance.now() - this.started) / 1000;
  }

  /** Indexes one product read, sorted; its body is kept when the plan may write it. */
  private take(p: Product): void {
    // A paged listing can return a product twice (the catalog moved under its pages): indexed once.
    if (this.catalog.byId.has(p.id)) return;
    const live = addLiveProduct(this.catalog, p);
    sellablePrices(live, this.prices);
    if (this.settle(live)) this.bodies.set(p.id, JSON.stringify(p));
  }

  /**
   * From now on each product read is sorted (see LiveVerdict) as it is indexed: only the bodies of
   * those the plan may write are kept, and products the sheet leaves unchanged are kept compact.
   * The pages read so far are indexed and sorted from this call on, in the order they were read,
   * a page at a time with two turns of the event loop between pages while the read goes (a
   * million-variant catalog can have thousands waiting: indexed at once, they held the read's
   * chain of pages for seconds). `complete()` waits for them.
   */
  sortBy(sort: SortLive): void {
    this.sort = sort;
    if (this.pending.length === 0 || this.replaying !== undefined) return;
    // Cleared when done (later than this assignment, even when the replay never waits).
    const replaying: Promise<void> = this.replay().finally(() => {
      if (this.replaying !== replaying) return;
      this.replaying = undefined;
      // Pages the read left waiting between the replay's end and now: indexed too.
      if (this.pending.length > 0) this.sortBy(sort);
    });
    this.replaying = replaying;
    // Raised to whoever awaits `complete()`.
    replaying.catch(() => undefined);
  }

  /** Indexes the pages waiting, in order, then the products read meanwhile go straight in. */
  private async replay(): Promise<void> {
    for (let page = this.pending.shift(); page !== undefined; page = this.pending.shift()) {
      for (const p of JSON.parse(inflateRawSync(page).toString('utf8')) as Product[]) this.take(p);
      if (!this.over) {
        await loopTurn();
        await loopTurn();
      }
    }
  }

  /** Sorts the product just indexed; true when its body is to be kept. */
  private settle(live: LiveProduct): boolean {
    const index = this.catalog.products.length - 1;
    const verdict = (this.sort as SortLive)(live);
    if (verdict.kind !== 'compact') return verdict.kind === 'write';
    const compact = compactOf(live, verdict.noopFor);
    const { catalog } = this;
    catalog.products[index] = compact;
    catalog.byId.set(live.id, compact);
    if (catalog.byReferenceId.get(live.reference_id ?? '') === live)
      catalog.byReferenceId.set(live.reference_id ?? '', compact);
    const sku = live.sku.trim();
    if (sku !== '' && catalog.bySku.get(sku) === live) catalog.bySku.set(sku, compact);
    for (const v of live.variants) {
      const vs = v.sku?.trim();
      if (vs !== undefined && vs !== '' && catalog.byVariantSku.get(vs) === live)
        catalog.byVariantSku.set(vs, compact);
    }
    return verdict.body;
  }

  /**
   * While the read goes, two turns of the event loop for whoever holds the thread (the sheet's
   * rows being mapped): the pages that arrived meanwhile are taken and the next one is asked for
   * (undici writes it in the loop's check phase, hence two turns). Undefined once the read is over.
   */
  letReadGo(): Promise<void> | undefined {
    if (this.over || this.controller.signal.aborted) return undefined;
    return loopTurn().then(() => loopTurn());
  }

  /** The median price of the catalog's sellable items (medianCatalogPrice, compact products included). */
  medianPrice(): number | undefined {
    return medianPrice(this.prices);
  }

  /** The whole catalog, once read. */
  async complete(): Promise<LiveCatalog> {
    await this.done;
    // Pages left waiting when the read ended are indexed by the replay (when sorted).
    while (this.replaying !== undefined) await this.replaying;
    return this.catalog;
  }

  /** Stops the read (the sheet was refused): nothing more is requested. */
  stop(): void {
    this.controller.abort();
  }

  /**
   * The bodies of these products as read (the backup's before-states), then every body is let go.
   * A product the filter let go (it should not happen) is read again on its own, so that no written
   * product lacks its before-state.
   */
  async takeBodies(ids: Iterable<string>): Promise<Record<string, Product>> {
    const out: Record<string, Product> = {};
    for (const id of ids) {
      const text = this.bodies.get(id);
      if (text !== undefined) {
        out[id] = JSON.parse(text) as Product;
        continue;
      }
      if (!this.catalog.byId.has(id)) continue;
      try {
        out[id] = await this.client.products.get(id, { signal: this.controller.signal });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    this.bodies.clear();
    // The sheet's index the sorting held is let go with them.
    this.sort = undefined;
    return out;
  }
}

/**
 * Sorts each live product against the sheet (LiveVerdict). A product no sheet product names (by
 * id, reference_id or sku) is compact, its body kept only when the plan hides or deletes products
 * missing from the sheet. A named one is planned alone against each sheet product naming it:
 * planned so, the plan finds every write the whole plan makes (and a few more), since the whole
 * catalog only adds issues that turn a write into an invalid entry and matches no product a lone
 * one would not. A product only one sheet product names, by id or reference_id, and that one plans
 * unchanged with no issue of its own, no stock unknown and none spared, is compact too: the plan
 * derives its entry (planUnchanged), and that sheet product keeps only what the entry needs.
 */
export function sortAgainstSheet(desired: readonly DesiredProduct[], options: PlanProductsOptions): SortLive {
  const named = new Map<string, DesiredProduct[]>();
  const add = (key: string, dp: DesiredProduct) => {
    const list = named.get(key);
    if (list === undefined) named.set(key, [dp]);
    else list.push(dp);
  };
  for (const dp of desired) {
    const f = dp.fields;
    if (f.id !== undefined) add(`i:${f.id}`, dp);
    if (f.reference_id !== undefined && f.reference_id !== '') add(`r:${f.reference_id}`, dp);
    if (f.sku !== undefined && f.sku.trim() !== '') add(`s:${f.sku.trim()}`, dp);
  }
  const missing = (options.missing ?? 'ignore') !== 'ignore';
  const alone = { ...options, missing: 'ignore' as const };
  const write: LiveVerdict = { kind: 'write' };
  const full: LiveVerdict = { kind: 'full' };
  return (live) => {
    const candidates = new Set<DesiredProduct>();
    for (const key of [
      `i:${live.id}`,
      live.reference_id !== null && live.reference_id !== '' ? `r:${live.reference_id}` : '',
      live.sku.trim() !== '' ? `s:${live.sku.trim()}` : '',
    ]) {
      if (key !== '') for (const dp of named.get(key) ?? []) candidates.add(dp);
    }
    if (candidates.size === 0) return { kind: 'compact', body: missing };
    const catalog = emptyLiveCatalog();
    catalog.products.push(live);
    catalog.byId.set(live.id, live);
    if (live.reference_id !== null && live.reference_id !== '')
      catalog.byReferenceId.set(live.reference_id, live);
    if (live.sku.trim() !== '') catalog.bySku.set(live.sku.trim(), live);
    for (const v of live.variants) {
      const vs = v.sku?.trim();
      if (vs !== undefined && vs !== '') catalog.byVariantSku.set(vs, live);
    }
    let matched = false;
    let unchanged: DesiredProduct | undefined;
    for (const dp of candidates) {
      // Left with its identifiers for another product: it is planned against that one.
      if (dp.identityOnly === true) continue;
      const plan = planProducts([dp], catalog, alone);
      for (const e of plan.entries) {
        if (e.productId !== live.id) continue;
        matched = true;
        if (e.action === 'update' || e.action === 'hide' || e.action === 'delete') return write;
        if (
          candidates.size === 1 &&
          e.action === 'noop' &&
          (dp.command === 'update' || dp.command === 'upsert') &&
          e.issues.length === dp.issues.length &&
          plan.stockUnknown === undefined &&
          plan.stockSpared === undefined &&
          namesById(dp, live)
        )
          unchanged = dp;
      }
    }
    if (unchanged !== undefined) {
      keepIdentity(unchanged);
      return { kind: 'compact', noopFor: unchanged, body: false };
    }
    return missing && !matched ? write : full;
  };
}

/** Whether the sheet product finds this live product by its id or reference_id (never another). */
function namesById(dp: DesiredProduct, live: LiveProduct): boolean {
  const f = dp.fields;
  if (f.id !== undefined) return f.id === live.id;
  return f.reference_id !== undefined && f.reference_id !== '' && f.reference_id === live.reference_id;
}

/**
 * Lets go of what a sheet product planned unchanged no longer needs: its entry needs its key,
 * command, rows and issues, and the identifiers it is matched, checked and labelled by.
 */
function keepIdentity(dp: DesiredProduct): void {
  const f = dp.fields;
  dp.fields = {
    ...(f.id !== undefined ? { id: f.id } : {}),
    ...(f.reference_id !== undefined ? { reference_id: f.reference_id } : {}),
    ...(f.sku !== undefined ? { sku: f.sku } : {}),
    ...(f.name !== undefined ? { name: f.name } : {}),
  };
  dp.variants = [];
  delete dp.options;
  delete dp.sourceCategories;
  dp.identityOnly = true;
}
