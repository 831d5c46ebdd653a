import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { WriteCheckFailedError, WriteDriftError, type WriteCheck } from '../../apply/write-check.js';
import type { PlanEntry } from '../../plan/product-plan.js';
import type { Product } from '../../schema/index.js';
import { reconcileProductPatch } from './product-reconcile.js';

/** The catalog as the write-time check knows it: `updated_at` by id, ids by reference_id and sku. */
interface ProductKeys {
  updatedAt: Map<string, string>;
  byRef: Map<string, string>;
  bySku: Map<string, string>;
}

/** The shared catalog listing (both statuses read in parallel), fresh per WriteCheck.snapshot. */
async function catalog(client: MerchantClient, check: WriteCheck): Promise<ProductKeys> {
  try {
    return await check.snapshot('products', async () => {
      const k: ProductKeys = { updatedAt: new Map(), byRef: new Map(), bySku: new Map() };
      for await (const p of client.products.listPartitioned()) {
        k.updatedAt.set(p.id, p.updated_at);
        if (p.reference_id) k.byRef.set(p.reference_id, p.id);
        if (p.sku.trim() !== '') k.bySku.set(p.sku.trim(), p.id);
      }
      return k;
    });
  } catch (error) {
    throw new WriteCheckFailedError('the catalog', error);
  }
}

const drifted = (entry: PlanEntry, id: string, now: string) =>
  new WriteDriftError(
    `drifted: ${entry.label} (product ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt ?? '?'} → ${now}); not overwritten. Plan again to include the change`,
  );

/**
 * Before an update/hide/delete: throws WriteDriftError (nothing sent) when the product's
 * `updated_at` is not the one seen when planning, or it is gone. Checked against the shared catalog
 * listing (default), or by re-reading the product (`GET /products/{id}`: strict, or a catalog too
 * big to list often); a get-one 404 for a product the listing has means the service has no get-one
 * (see WriteCheck.getOneMissing).
 */
export async function refuseChangedProduct(
  client: MerchantClient,
  check: WriteCheck,
  entry: PlanEntry,
): Promise<void> {
  const id = entry.productId;
  if (id === null || entry.expectedUpdatedAt === null) return;
  if (!check.usesListing) {
    let live: Product;
    try {
      // No abort signal: a stop lets the operations in flight finish (and this read is short).
      live = await client.products.get(id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw new WriteCheckFailedError(`product ${id}`, error);
      // Gone, or no get-one route: the listing tells.
      const listed = (await catalog(client, check)).updatedAt.get(id);
      if (listed === undefined) return; // gone: the write fails with its own 404
      check.getOneMissing(`GET ${client.paths.productGet}`);
      if (listed !== entry.expectedUpdatedAt) throw drifted(entry, id, listed);
      return;
    }
    if (live.updated_at !== entry.expectedUpdatedAt) throw drifted(entry, id, live.updated_at);
    return;
  }
  const listed = (await catalog(client, check)).updatedAt.get(id);
  if (listed === undefined) {
    throw new WriteDriftError(
      `drifted: ${entry.label} (product ${id}) is no longer in the store (deleted after planning); not written`,
    );
  }
  if (listed !== entry.expectedUpdatedAt) throw drifted(entry, id, listed);
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
  const ref = body.reference_id ? keys.byRef.get(body.reference_id) : undefined;
  const sku = body.sku && body.sku.trim() !== '' ? keys.bySku.get(body.sku.trim()) : undefined;
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
    live = await readForReplay(client, check, id);
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

/**
 * The product as it is now, for settling a replay: get-one; without it (404 for a product the
 * catalog has), one full catalog listing shared by every replay of the run (not one scan each).
 */
async function readForReplay(
  client: MerchantClient,
  check: WriteCheck,
  id: string,
): Promise<Product | undefined> {
  if (!check.getOneIsMissing) {
    try {
      return await client.products.get(id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  const all = await check.snapshot('products-full', async () => {
    const m = new Map<string, Product>();
    for await (const p of client.products.listPartitioned()) m.set(p.id, p);
    return m;
  });
  const live = all.get(id);
  if (live !== undefined) check.getOneMissing(`GET ${client.paths.productGet}`);
  return live;
}
