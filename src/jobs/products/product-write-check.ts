import type { MerchantClient } from '../../api/merchant-client.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import {
  handOverListing,
  readForReplay,
  refuseChanged,
  WriteCheckFailedError,
  WriteDriftError,
  type CheckedEntities,
  type WriteCheck,
} from '../../apply/write-check.js';
import type { LiveCatalog } from '../../plan/live-catalog.js';
import type { PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import type { Product } from '../../schema/index.js';
import { HeapPacer } from './heap-pacer.js';
import { reconcileProductPatch } from './product-reconcile.js';

/** The write-time check's listing of the catalog (WriteCheck.snapshot's name). */
export const PRODUCTS = 'products';

/** A listed product as a create's reference_id or sku finds it: its id and updated_at. */
export interface ListedProduct {
  id: string;
  updated_at: string;
}

/** The catalog as the write-time check knows it: `updated_at` by id, products by reference_id and sku. */
export interface ProductKeys {
  /**
   * `updated_at` by id: of every product listed, or (a read the run made itself) of those the plan
   * writes; by reference_id and sku: every product, or (the plan's read) those its creates name.
   */
  updatedAt: Map<string, string>;
  byRef: Map<string, ListedProduct>;
  bySku: Map<string, ListedProduct>;
}

export const emptyProductKeys = (): ProductKeys => ({
  updatedAt: new Map(),
  byRef: new Map(),
  bySku: new Map(),
});

/** Indexes one listed product: by reference_id and sku, and its `updated_at` by id when `withUpdatedAt`. */
export function addProductKeys(
  keys: ProductKeys,
  p: { id: string; updated_at: string; reference_id: string | null; sku: string },
  withUpdatedAt = true,
): void {
  if (withUpdatedAt) keys.updatedAt.set(p.id, p.updated_at);
  const seen: ListedProduct = { id: p.id, updated_at: p.updated_at };
  if (p.reference_id) keys.byRef.set(p.reference_id, seen);
  const sku = p.sku.trim();
  if (sku !== '') keys.bySku.set(sku, seen);
}

/** The ids of the products a plan updates, hides or deletes. */
export function writtenProductIds(entries: readonly PlanEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const e of entries)
    if ((e.action === 'update' || e.action === 'hide' || e.action === 'delete') && e.productId !== null)
      ids.add(e.productId);
  return ids;
}

/**
 * Hands the plan's own live read of the catalog to the run's apply in this process (`import
 * products --apply`): the write-time check's first listing (WriteCheck.seed), aged from when the
 * read started. Keeps only the answers the plan's writes will ask of it, looked up in the plan's
 * index now: the `updated_at` of each product it updates, hides or deletes, and what holds each
 * create's reference_id and sku (a few entries, not an index of the whole catalog).
 */
export function handOverPlanRead(
  run: RunDirectory,
  read: { startedAt: number; seconds: number; catalog: LiveCatalog },
  plan: ProductPlan,
): void {
  const { catalog } = read;
  const keys = emptyProductKeys();
  const listed = (p: { id: string; updated_at: string }): ListedProduct => ({
    id: p.id,
    updated_at: p.updated_at,
  });
  for (const e of plan.entries) {
    if (e.action === 'create') {
      const ref = e.body.reference_id;
      const byRef = ref ? catalog.byReferenceId.get(ref) : undefined;
      if (ref && byRef !== undefined) keys.byRef.set(ref, listed(byRef));
      const sku = e.body.sku?.trim();
      const bySku = sku ? catalog.bySku.get(sku) : undefined;
      if (sku && bySku !== undefined) keys.bySku.set(sku, listed(bySku));
    } else if (e.action === 'update' || e.action === 'hide' || e.action === 'delete') {
      const live = catalog.byId.get(e.productId);
      if (live !== undefined) keys.updatedAt.set(e.productId, live.updated_at);
    }
  }
  handOverListing(run, {
    name: PRODUCTS,
    startedAt: read.startedAt,
    readMs: read.seconds * 1000,
    value: keys,
  });
}

/**
 * The shared catalog listing (both statuses read in parallel, `listEvery`: a product whose status
 * changes while it is read is not missed, so neither taken as deleted nor its key as free), fresh
 * per WriteCheck.snapshot.
 */
function catalog(client: MerchantClient, check: WriteCheck): Promise<ProductKeys> {
  return check.listing(PRODUCTS, 'the catalog', async () => {
    const k = emptyProductKeys();
    const pacer = new HeapPacer();
    for await (const p of client.products.listEvery()) {
      if (k.updatedAt.size % 100 === 99) pacer.check();
      addProductKeys(k, p);
    }
    return k;
  });
}

/** Products as the write-time check reads them (one algorithm: apply/write-check.ts). */
const checkedProducts = (client: MerchantClient, check: WriteCheck): CheckedEntities => ({
  noun: 'product',
  getRoute: `GET ${client.paths.productGet}`,
  getUpdatedAt: async (id) => (await client.products.get(id)).updated_at,
  listedUpdatedAt: async (id) => (await catalog(client, check)).updatedAt.get(id),
  missingIsDrift: true,
});

/**
 * Before an update/hide/delete: throws WriteDriftError (nothing sent) when the product's
 * `updated_at` is not the one seen when planning, or it is gone. Checked against the shared catalog
 * listing (default), or by re-reading the product (`GET /products/{id}`); see refuseChanged.
 */
export async function refuseChangedProduct(
  client: MerchantClient,
  check: WriteCheck,
  entry: PlanEntry,
): Promise<void> {
  const id = entry.productId;
  if (id === null || entry.expectedUpdatedAt === null) return;
  await refuseChanged(check, checkedProducts(client, check), id, entry.expectedUpdatedAt, entry.label);
}

/**
 * Before a create: throws WriteDriftError (nothing sent) when a product with its reference_id (or
 * sku) now exists, by the shared fresh catalog listing (see WriteCheck.snapshot).
 */
export async function refuseExistingProduct(
  client: MerchantClient,
  check: WriteCheck,
  entry: Extract<PlanEntry, { action: 'create' }>,
): Promise<void> {
  const keys = await catalog(client, check);
  const { body } = entry;
  const ref = body.reference_id ? keys.byRef.get(body.reference_id)?.id : undefined;
  const sku = body.sku && body.sku.trim() !== '' ? keys.bySku.get(body.sku.trim())?.id : undefined;
  const hit = ref ?? sku;
  if (hit !== undefined) {
    const key = ref !== undefined ? `reference_id ${body.reference_id ?? ''}` : `sku ${body.sku ?? ''}`;
    throw new WriteDriftError(
      `drifted: ${entry.label} was planned as a new product, but the store now has ${key} (product ${hit}); not created twice. Plan again to update it instead`,
    );
  }
}

/**
 * Before re-sending an update/hide/delete whose earlier attempt has no known outcome (a resume, or
 * `runs resume --reconcile` for whatever a damaged journal cannot prove): an absolute write is
 * re-sent only when the product is still as planned. Re-reads it and returns:
 * - `undefined`: unchanged since planning, send the write;
 * - the live product (or `'deleted'` for a delete): the earlier attempt landed, nothing to send;
 * - throws WriteDriftError (nothing sent, the row reported as drifted) when someone else changed it.
 */
export async function settleProductReplay(
  client: MerchantClient,
  check: WriteCheck,
  entry: PlanEntry,
  kind: 'product-update' | 'product-hide' | 'product-delete',
): Promise<Product | 'deleted' | undefined> {
  const id = entry.productId;
  if (id === null) return undefined;
  let live: Product | undefined;
  try {
    // Without get-one: one full catalog listing shared by every replay of the run.
    live = await readForReplay(
      check,
      `GET ${client.paths.productGet}`,
      () => client.products.get(id),
      async () => (await fullCatalog(client, check)).get(id),
    );
  } catch (error) {
    throw new WriteCheckFailedError(`product ${id}`, error);
  }
  if (kind === 'product-delete') {
    if (live === undefined) return 'deleted';
    if (entry.expectedUpdatedAt === null || live.updated_at === entry.expectedUpdatedAt) return undefined;
    throw new WriteDriftError(
      `drifted: ${entry.label} (product ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt} → ${live.updated_at}), and whether the earlier delete reached the store is unknown; not deleted. Plan again`,
    );
  }
  if (live === undefined) {
    throw new WriteDriftError(
      `drifted: ${entry.label} (product ${id}) is no longer in the store; the change was not sent again`,
    );
  }
  let decision: Awaited<ReturnType<typeof reconcileProductPatch>>;
  try {
    decision = await reconcileProductPatch(client, entry, {}, live);
  } catch {
    throw new WriteDriftError(
      `drifted: ${entry.label} (product ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt ?? '?'} → ${live.updated_at}) and does not hold the planned change; whether the earlier attempt reached the store is unknown, so it was not sent again. Plan again to include the change`,
    );
  }
  return decision === 'not_applied' ? undefined : decision.applied;
}

/** Every product as listed, shared by the run's replays (WriteCheck.snapshot). */
function fullCatalog(client: MerchantClient, check: WriteCheck): Promise<Map<string, Product>> {
  return check.snapshot('products-full', async () => {
    const m = new Map<string, Product>();
    for await (const p of client.products.listEvery()) m.set(p.id, p);
    return m;
  });
}
