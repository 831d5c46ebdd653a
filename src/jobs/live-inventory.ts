import type { MerchantClient } from '../api/merchant-client.js';
import { LiveInventoryIndex } from '../plan/live-inventory-index.js';
import type { JobCallbacks } from './job-events.js';

/**
 * Reads every live inventory item into an index, from the product list (the baseline that always
 * works: product `inventory` and `variants[].inventory`), 100 products a page, both status
 * partitions in parallel.
 */
export async function readLiveInventory(
  client: MerchantClient,
  callbacks: JobCallbacks = {},
): Promise<LiveInventoryIndex> {
  const index = new LiveInventoryIndex();
  let products = 0;
  const signal = callbacks.signal ? { signal: callbacks.signal } : {};
  for await (const product of client.products.listPartitioned(signal)) {
    index.addProduct(product);
    if (++products % 100 === 0) {
      callbacks.onProgress?.({ phase: 'fetch', done: products, message: `${index.size} inventory items` });
    }
  }
  callbacks.onProgress?.({ phase: 'fetch', done: products, message: `${index.size} inventory items` });
  return index;
}

/** Current quantities of some items (used to settle deltas whose outcome is unknown). */
export async function readItemQuantities(
  client: MerchantClient,
  itemIds: ReadonlySet<string>,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const index = await readLiveInventory(client);
  for (const id of itemIds) {
    const item = index.byId.get(id);
    if (item) found.set(id, item.quantity);
  }
  return found;
}
