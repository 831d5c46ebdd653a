import { NotFoundError } from '../api/errors.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { WriteCheckFailedError, WriteDriftError, type WriteCheck } from '../apply/write-check.js';
import type { PlanEntry } from '../plan/product-plan.js';
import type { Product } from '../schema/index.js';
import { readLiveProduct, reconcileProductPatch } from './product-reconcile.js';

/**
 * Before an update/hide/delete: re-reads the product (`GET /products/{id}`) and throws
 * WriteDriftError (nothing sent) when its `updated_at` is not the one seen when planning. Returns
 * true when get-one answered 404: either the product is gone (the write then fails with its own
 * 404) or the service has no get-one route (the write succeeds; the caller turns re-reads off).
 */
export async function refuseChangedProduct(client: MerchantClient, entry: PlanEntry): Promise<boolean> {
  const id = entry.productId;
  if (id === null) return false;
  let live: Product;
  try {
    // No abort signal: a stop lets the operations in flight finish (and this read is short).
    live = await client.products.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return true;
    throw new WriteCheckFailedError(`product ${id}`, error);
  }
  if (entry.expectedUpdatedAt !== null && live.updated_at !== entry.expectedUpdatedAt) {
    throw new WriteDriftError(
      `drifted: ${entry.label} (product ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt} → ${live.updated_at}); not overwritten. Plan again to include the change`,
    );
  }
  return false;
}

interface ProductKeys {
  byRef: Map<string, string>;
  bySku: Map<string, string>;
}

/**
 * Before a create: throws WriteDriftError (nothing sent) when a product with its reference_id (or
 * sku) now exists, by a fresh catalog read shared by the run's creates (see WriteCheck.snapshot).
 */
export async function refuseExistingProduct(
  client: MerchantClient,
  check: WriteCheck,
  entry: PlanEntry,
): Promise<false> {
  let keys: ProductKeys;
  try {
    keys = await check.snapshot('products', async () => {
      const k: ProductKeys = { byRef: new Map(), bySku: new Map() };
      for await (const p of client.products.list({})) {
        if (p.reference_id) k.byRef.set(p.reference_id, p.id);
        if (p.sku.trim() !== '') k.bySku.set(p.sku.trim(), p.id);
      }
      return k;
    });
  } catch (error) {
    throw new WriteCheckFailedError('the catalog', error);
  }
  const body = (entry.body ?? {}) as { reference_id?: string | null; sku?: string };
  const ref = body.reference_id ? keys.byRef.get(body.reference_id) : undefined;
  const sku = body.sku && body.sku.trim() !== '' ? keys.bySku.get(body.sku.trim()) : undefined;
  const hit = ref ?? sku;
  if (hit !== undefined) {
    const key = ref !== undefined ? `reference_id ${body.reference_id ?? ''}` : `sku ${body.sku ?? ''}`;
    throw new WriteDriftError(
      `drifted: ${entry.label} was planned as a new product, but the store now has ${key} (product ${hit}); not created twice. Plan again to update it instead`,
    );
  }
  return false;
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
  entry: PlanEntry,
  kind: 'product-update' | 'product-hide' | 'product-delete',
): Promise<Product | 'deleted' | undefined> {
  const id = entry.productId;
  if (id === null) return undefined;
  let live: Product | undefined;
  try {
    live = await readLiveProduct(client, id);
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
