import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { DriftedEntity } from '../runner/job-definition.js';
import { readLiveInventory } from './live-inventory.js';
import { StockPlanFileSchema, type StockPlanFile } from './stock-plan-file.js';
import { readPlanFile } from '../runner/plan-file.js';

/**
 * Which planned stock changes no longer match the live store: the item is gone, or (for absolute
 * quantities) it changed since planning, so writing the planned quantity would overwrite that
 * change. Deltas are relative by design and never drift. Changes whose write the run's journal
 * already started (a resumed run) are not checked: the run itself changed those.
 */
export async function checkStockDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedEntity[]> {
  const file = readPlanFile(run, StockPlanFileSchema);
  const journal = readJournal(run.file('journal'));
  const perItem = run.meta.options['inventoryMode'] === 'per-item';
  const started = (c: StockPlanFile['plan']['changes'][number], index: number): boolean => {
    const key = perItem ? `stock-item:${c.itemId}` : `stock-batch:${Math.floor(index / file.batchSize)}`;
    const status = stateOf(journal, key).status;
    return status === 'done' || status === 'unknown';
  };
  const pending = file.plan.changes.filter((c, i) => !started(c, i));
  if (pending.length === 0) return [];
  const live = await readLiveInventory(client, options);
  const drifted: DriftedEntity[] = [];
  for (const c of pending) {
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
