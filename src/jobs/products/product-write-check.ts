import type { MerchantClient } from '../../api/merchant-client.js';
import {
  readForReplay,
  refuseChanged,
  WriteCheckFailedError,
  WriteDriftError,
  type CheckedEntities,
  type WriteCheck,
} from '../../apply/write-check.js';
import type { PlanEntry } from '../../plan/product-plan.js';
import type { Product } from '../../schema/index.js';
import { HeapPacer } from './heap-pacer.js';
import { reconcileProductPatch } from './product-reconcile.js';

/** The catalog as the write-time check knows it: `updated_at` by id, ids by reference_id and sku. */
interface ProductKeys {
  updatedAt: Map<string, string>;
  byRef: Map<string, string>;
  bySku: Map<string, string>;
}

/** The shared catalog listing (both statuses read in parallel), fresh per WriteCheck.snapshot. */
function catalog(client: MerchantClient, check: WriteCheck): Promise<ProductKeys> {
  return check.listing('products', 'the catalog', async () => {
    const k: ProductKeys = { updatedAt: new Map(), byRef: new Map(), bySku: new Map() };
    const pacer = new HeapPacer();
    for await (const p of client.products.listPartitioned()) {
      if (k.updatedAt.size % 100 === 99) pacer.check();
      k.updatedAt.set(p.id, p.updated_at);
      if (p.reference_id) k.byRef.set(p.reference_id, p.id);
      if (p.sku.trim() !== '') k.bySku.set(p.sku.trim(), p.id);
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
    for await (const p of client.products.listPartitioned()) m.set(p.id, p);
    return m;
  });
}
