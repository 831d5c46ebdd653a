import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf, unwritten } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { DriftedEntity } from '../runner/job-definition.js';
import { readLiveInventory } from './live-inventory.js';
import { StockPlanFileSchema } from './stock-plan-file.js';
import { readPlanFile } from '../runner/plan-file.js';

/**
 * Which planned stock changes no longer match the live store: the item is gone, or (for absolute
 * quantities) it changed since planning, so writing the planned quantity would overwrite that
 * change. Deltas are relative by design and never drift. Changes whose write the run's journal
 * shows done or of unknown outcome (a resumed run) are not checked: the run itself may have
 * changed those; definite failures are.
 */
export async function checkStockDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedEntity[]> {
  const file = readPlanFile(run, StockPlanFileSchema);
  const journal = readJournal(run.file('journal'));
  const perItem = run.meta.options['inventoryMode'] === 'per-item';
  const pending = file.plan.changes.filter((c, i) =>
    unwritten(
      stateOf(journal, perItem ? `stock-item:${c.itemId}` : `stock-batch:${Math.floor(i / file.batchSize)}`)
        .status,
    ),
  );
  if (pending.length === 0) return [];
  const live = await readLiveInventory(client, options);
  const drifted: DriftedEntity[] = [];
  for (const c of pending) {
    const item = live.get(c.itemId);
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
        fields: [
          {
            field: 'quantity',
            planned: String(c.after),
            live: String(item.quantity),
            atPlanning: String(c.before),
          },
        ],
      });
    }
  }
  return drifted;
}
