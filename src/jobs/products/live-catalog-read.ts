import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { DesiredProduct } from '../../mapping/product-desired.js';
import {
  addLiveProduct,
  emptyLiveCatalog,
  type LiveCatalog,
  type LiveProduct,
} from '../../plan/live-catalog.js';
import { planProducts, type PlanProductsOptions } from '../../plan/plan-products.js';
import type { Product } from '../../schema/index.js';
import type { JobCallbacks } from '../job-events.js';

/** Which live products may be written by the plan: only those keep their full body (the backup's before-state). */
export type KeepBody = (live: LiveProduct) => boolean;

/**
 * The live catalog read page by page (limit 100) in one unfiltered listing, started as soon as the
 * sheet's header is known so that the read overlaps the sheet's own reading. Each product is
 * indexed for the plan (LiveCatalog); its full body, as read, is kept as JSON text only while it
 * may be written: until the sheet is read (`keepBodies`), every one; after that, only those the
 * filter keeps. So a million-variant catalog does not hold a million bodies.
 *
 * One plain read, not the status partitions: a product whose status changes mid-read could be
 * missed by both partitions and would then be planned as a duplicate create.
 */
export class LiveCatalogRead {
  readonly catalog: LiveCatalog = emptyLiveCatalog();
  private readonly bodies = new Map<string, string>();
  private keep: KeepBody | undefined;
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;
  private readonly started = performance.now();
  /** Seconds the read took (set once it is complete). */
  seconds = 0;

  constructor(
    private readonly client: MerchantClient,
    callbacks: JobCallbacks,
  ) {
    const parent = callbacks.signal;
    const onAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted === true) onAbort();
    else parent?.addEventListener('abort', onAbort, { once: true });
    this.done = this.read(callbacks).finally(() => parent?.removeEventListener('abort', onAbort));
    // Raised to whoever awaits `complete()`; not unhandled when nobody does (a refused sheet).
    this.done.catch(() => undefined);
  }

  private async read(callbacks: JobCallbacks): Promise<void> {
    let n = 0;
    for await (const p of this.client.products.list({}, { signal: this.controller.signal })) {
      const live = addLiveProduct(this.catalog, p);
      if (this.keep === undefined || this.keep(live)) this.bodies.set(p.id, JSON.stringify(p));
      if (++n % 500 === 0) callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
    }
    callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
    this.seconds = (performance.now() - this.started) / 1000;
  }

  /** From now on only the bodies of products `keep` says may be written are kept; those read so far are sorted too. */
  keepBodies(keep: KeepBody): void {
    this.keep = keep;
    for (const id of [...this.bodies.keys()]) {
      const live = this.catalog.byId.get(id);
      if (live === undefined || !keep(live)) this.bodies.delete(id);
    }
  }

  /** The whole catalog, once read. */
  async complete(): Promise<LiveCatalog> {
    await this.done;
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
    return out;
  }
}

/**
 * Whether a live product may be written by the plan of `desired`: some sheet product names it (by
 * id, reference_id or sku) and, planned against that product alone, writes it; or the plan hides or
 * deletes products missing from the sheet and no sheet product matched it. Planning against one
 * product finds every write the whole plan makes (and a few more): the whole catalog only adds
 * issues that turn a write into an invalid entry, and matches no product a lone one would not.
 */
export function mayBeWritten(desired: readonly DesiredProduct[], options: PlanProductsOptions): KeepBody {
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
  return (live) => {
    const candidates = new Set<DesiredProduct>();
    for (const key of [
      `i:${live.id}`,
      live.reference_id !== null && live.reference_id !== '' ? `r:${live.reference_id}` : '',
      live.sku.trim() !== '' ? `s:${live.sku.trim()}` : '',
    ]) {
      if (key !== '') for (const dp of named.get(key) ?? []) candidates.add(dp);
    }
    if (candidates.size === 0) return missing;
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
    for (const dp of candidates) {
      for (const e of planProducts([dp], catalog, alone).entries) {
        if (e.productId !== live.id) continue;
        matched = true;
        if (e.action === 'update' || e.action === 'hide' || e.action === 'delete') return true;
      }
    }
    return missing && !matched;
  };
}
