import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf, unwritten } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { readProductPlan } from './product-plan-file.js';

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
}

/**
 * Compares every product the plan writes with the live store (one paginated read of the catalog,
 * limit 100): an update/hide/delete whose product's `updated_at` is not the one seen when planning,
 * or that is gone; a create whose reference_id or sku now belongs to a live product. Operations the
 * run's journal shows done or of unknown outcome are not checked (the run itself may have changed
 * those); definite failures are. Returns the drifted
 * products (empty: safe to apply).
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
  const live = new Map<string, string>();
  const byRef = new Map<string, { id: string; updated_at: string }>();
  const bySku = new Map<string, { id: string; updated_at: string }>();
  // One plain read: a product changing status mid-read could be missed by both status partitions.
  for await (const p of client.products.list({}, options)) {
    live.set(p.id, p.updated_at);
    if (p.reference_id) byRef.set(p.reference_id, p);
    if (p.sku.trim() !== '') bySku.set(p.sku.trim(), p);
  }
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
    const now = live.get(e.productId);
    if (now === undefined) {
      drifted.push({
        ...base,
        change: 'deleted',
        reason: `the product was deleted from the store after planning (planned: ${e.action})`,
        liveUpdatedAt: null,
      });
    } else if (now !== e.expectedUpdatedAt) {
      drifted.push({
        ...base,
        change: 'changed',
        reason: `changed in the store after planning (updated_at ${e.expectedUpdatedAt ?? '?'} → ${now})`,
        liveUpdatedAt: now,
      });
    }
  }
  return drifted;
}
