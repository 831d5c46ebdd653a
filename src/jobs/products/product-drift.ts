import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf, unwritten } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { handOverListing } from '../../apply/write-check.js';
import type { DriftedField } from '../../plan/drifted-entity.js';
import { driftedFields, liveValueAt } from '../../plan/field-drift.js';
import { toLiveProduct, type LiveProduct } from '../../plan/live-catalog.js';
import { HeapPacer } from './heap-pacer.js';
import { readProductPlan } from './product-plan-file.js';
import { addProductKeys, emptyProductKeys, PRODUCTS, writtenProductIds } from './product-write-check.js';

/** A product whose live state moved since the plan was made: applying the plan would overwrite it. */
export interface DriftedProduct {
  type: 'product';
  /** The live product id (the plan entry's key for a create whose product does not exist). */
  id: string;
  /** The plan entry's key (`update:<id>`, `create:ref:<ref>`…). */
  key: string;
  action: string;
  productId: string | null;
  label: string;
  /** `changed`: updated_at moved; `deleted`: gone from the store; `exists`: a product to create now exists. */
  change: 'changed' | 'deleted' | 'exists';
  /** For people: what moved. */
  reason: string;
  expectedUpdatedAt: string | null;
  liveUpdatedAt: string | null;
  /** `changed`: the planned fields whose live value moved (planned, live, seen when planning). */
  fields?: DriftedField[] | undefined;
}

/**
 * Compares every product the plan writes with the live store (one paginated read of the catalog,
 * limit 100): an update/hide/delete whose product's `updated_at` is not the one seen when planning,
 * or that is gone; a create whose reference_id or sku now belongs to a live product. Operations the
 * run's journal shows done or of unknown outcome are not checked (the run itself may have changed
 * those); definite failures are. A changed product lists the planned fields whose live value moved
 * (the planned value, the live one, the one seen when planning). Returns the drifted products
 * (empty: safe to apply); then the read is handed to the run's apply as its write-time check's
 * first listing (handOverListing), so the apply does not read the catalog again.
 */
export async function checkProductDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedProduct[]> {
  const file = readProductPlan(run);
  const journal = readJournal(run.file('journal'));
  const pending = file.plan.entries.filter(
    (e) =>
      (e.action === 'create' || e.action === 'update' || e.action === 'hide' || e.action === 'delete') &&
      unwritten(stateOf(journal, e.key).status),
  );
  if (pending.length === 0) return [];
  // Only the products the plan writes are kept whole (their fields are compared); of the others,
  // the id and updated_at a create's reference_id or sku would find (a million-variant catalog
  // held every product read, twice over).
  const writes = new Set<string>();
  for (const e of pending) if (e.productId !== null) writes.add(e.productId);
  const live = new Map<string, LiveProduct>();
  // What the apply's write-time check needs of this read (handed over when nothing drifted): the
  // updated_at of every product the plan writes, and every product by reference_id and sku.
  const written = writtenProductIds(file.plan.entries);
  const keys = emptyProductKeys();
  const { byRef, bySku } = keys;
  // One plain read: a product changing status mid-read could be missed by both status partitions.
  const pacer = new HeapPacer();
  const startedAt = Date.now();
  const started = performance.now();
  let read = 0;
  for await (const p of client.products.list({}, options)) {
    if (++read % 100 === 0) pacer.check();
    if (writes.has(p.id)) live.set(p.id, toLiveProduct(p));
    addProductKeys(keys, p, written.has(p.id));
  }
  const readMs = performance.now() - started;
  const drifted: DriftedProduct[] = [];
  for (const e of pending) {
    const base = {
      type: 'product' as const,
      id: e.productId ?? e.key,
      key: e.key,
      action: e.action,
      productId: e.productId,
      label: e.label,
      expectedUpdatedAt: e.expectedUpdatedAt,
    };
    if (e.action === 'create') {
      const { body } = e;
      const hit =
        (body.reference_id ? byRef.get(body.reference_id) : undefined) ??
        (body.sku ? bySku.get(body.sku.trim()) : undefined);
      if (hit) {
        drifted.push({
          ...base,
          id: hit.id,
          productId: hit.id,
          change: 'exists',
          reason: `planned as a new product, but the store now has it (id ${hit.id})`,
          liveUpdatedAt: hit.updated_at,
        });
      }
      continue;
    }
    if (e.productId === null) continue;
    const product = live.get(e.productId);
    const now = product?.updated_at;
    if (product === undefined || now === undefined) {
      drifted.push({
        ...base,
        change: 'deleted',
        reason: `the product was deleted from the store after planning (planned: ${e.action})`,
        liveUpdatedAt: null,
      });
    } else if (now !== e.expectedUpdatedAt) {
      const fields = driftedFields(e.changes, product, file.plan.decimals);
      // Every planned field compared and none moved: the product changed elsewhere.
      const elsewhere =
        fields.length === 0 &&
        e.changes.every((c) => c.note === undefined && liveValueAt(product, c.path) !== undefined);
      drifted.push({
        ...base,
        change: 'changed',
        reason: `changed in the store after planning (updated_at ${e.expectedUpdatedAt ?? '?'} → ${now})${
          fields.length > 0
            ? `: ${fields.length} planned field${fields.length === 1 ? '' : 's'} moved`
            : elsewhere && e.changes.length > 0
              ? '; the fields the plan writes did not move (others did)'
              : ''
        }`,
        liveUpdatedAt: now,
        ...(fields.length > 0 ? { fields } : {}),
      });
    }
  }
  // The store is as planned: this read is the apply's first listing (`mbulk apply RUN`, a resume).
  if (drifted.length === 0) handOverListing(run, { name: PRODUCTS, startedAt, readMs, value: keys });
  return drifted;
}
