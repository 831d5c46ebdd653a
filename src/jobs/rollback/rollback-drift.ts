import { stableStringify } from '../../api/idempotency-key.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf, unwritten } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { LiveInventoryIndex } from '../../plan/live-inventory-index.js';
import type { Customer, Product } from '../../schema/index.js';
import { readRollbackPlan } from './rollback-plan-file.js';
import type { DriftedEntity } from '../runner/job-definition.js';

/**
 * For `mbulk apply RUN` on a rollback that was planned and not yet applied: the entities its
 * pending restores would write that changed since the rollback was planned (their live state is
 * no longer the `current` the plan saw). Restores done or of unknown outcome are the rollback's own
 * doing; definite failures are checked again.
 */
export async function checkRollbackDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedEntity[]> {
  const file = readRollbackPlan(run);
  const journal = readJournal(run.file('journal'));
  const pending = file.restores.filter((r) => unwritten(stateOf(journal, r.key).status));
  if (pending.length === 0) return [];
  const needProducts = pending.some((r) => r.type !== 'customer');
  const products = new Map<string, Product>();
  const items = new LiveInventoryIndex();
  if (needProducts) {
    for await (const p of client.products.list({}, options)) {
      products.set(p.id, p);
      items.addProduct(p);
    }
  }
  const customers = new Map<string, Customer>();
  if (pending.some((r) => r.type === 'customer')) {
    for await (const c of client.customers.list({}, options)) customers.set(c.id, c);
  }
  const drifted: DriftedEntity[] = [];
  for (const r of pending) {
    switch (r.type) {
      case 'stock':
        for (const i of r.items) {
          const now = items.get(i.itemId);
          if (now?.quantity !== i.current) {
            drifted.push({
              type: 'inventory_item',
              id: i.itemId,
              label: i.sku ?? i.itemId,
              reason: now ? `quantity ${i.current} → ${now.quantity} since planning` : 'no longer exists',
            });
          }
        }
        break;
      case 'customer': {
        const now = customers.get(r.customerId);
        if (now?.updated_at !== r.current.updated_at) {
          drifted.push({
            type: 'customer',
            id: r.customerId,
            label: r.label,
            reason: now
              ? `changed since planning (updated_at ${r.current.updated_at} → ${now.updated_at})`
              : 'no longer exists',
          });
        }
        break;
      }
      case 'product':
      case 'product-delete': {
        const now = products.get(r.productId);
        const fields = r.type === 'product' ? Object.keys(r.body) : ['name', 'price', 'status'];
        const changed = now
          ? fields.filter((f) => stableStringify(pick(now, f)) !== stableStringify(pick(r.current, f)))
          : [];
        if (!now || changed.length > 0) {
          drifted.push({
            type: 'product',
            id: r.productId,
            label: r.label,
            reason: now ? `changed since planning (${changed.join(', ')})` : 'no longer exists',
          });
        }
        break;
      }
    }
  }
  return drifted;
}

function pick(p: Product, field: string): unknown {
  if (field === 'inventory_quantity') return p.inventory?.quantity ?? null;
  if (field === 'variants')
    return p.variants.map(({ inventory, ...v }) => ({ ...v, stock: inventory?.quantity }));
  return (p as Record<string, unknown>)[field] ?? null;
}
