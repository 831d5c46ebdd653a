import type { MerchantClient } from '../api/merchant-client.js';
import type { RunDirectory } from '../apply/run-directory.js';
import type { DriftedEntity } from './run-kind.js';
import { readLiveInventory } from './live-inventory.js';
import type { StockPlanFile } from './stock-import.js';

/**
 * Which planned stock changes no longer match the live store: the item is gone, or (for absolute
 * quantities) it changed since planning, so writing the planned quantity would overwrite that
 * change. Deltas are relative by design and never drift.
 */
export async function checkStockDrift(run: RunDirectory, client: MerchantClient): Promise<DriftedEntity[]> {
  const file = run.readPlan() as StockPlanFile;
  const live = await readLiveInventory(client);
  const drifted: DriftedEntity[] = [];
  for (const c of file.plan.changes) {
    const item = live.byId.get(c.itemId);
    if (!item) {
      drifted.push({
        type: 'inventory_item',
        id: c.itemId,
        label: c.sku ?? c.name,
        reason: 'no longer exists',
      });
    } else if (c.mode === 'quantity' && item.updatedAt !== c.expectedUpdatedAt) {
      drifted.push({
        type: 'inventory_item',
        id: c.itemId,
        label: c.sku ?? c.name,
        reason: `changed since planning (quantity ${c.before} → ${item.quantity} live)`,
      });
    }
  }
  return drifted;
}
