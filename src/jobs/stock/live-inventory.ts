import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { Product } from '../../schema/product.js';
import { LiveInventoryIndex } from '../../plan/live-inventory-index.js';
import type { JobCallbacks } from '../job-events.js';

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

/**
 * The current quantity of one inventory item (used to settle a delta whose outcome is unknown):
 * one GET of its product where the service has it, else a read of the whole product list (a
 * service without get-one, or the sandbox in strict mode). Undefined when the item is gone.
 */
export async function readItemQuantity(
  client: MerchantClient,
  item: { itemId: string; productId: string },
  /** Where to read the whole inventory when get-one cannot tell (default: a fresh read). */
  readAll: () => Promise<LiveInventoryIndex> = () => readLiveInventory(client),
): Promise<number | undefined> {
  let product: Product | undefined;
  try {
    product = await client.products.get(item.productId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  if (product) {
    const single = new LiveInventoryIndex();
    single.addProduct(product);
    const found = single.byId.get(item.itemId);
    if (found) return found.quantity;
  }
  return (await readAll()).byId.get(item.itemId)?.quantity;
}

/**
 * One whole-inventory read shared by every caller that asks within `windowMs` (and before the
 * read starts): settling a batch of unknown outcomes costs one catalog read, not one per item. A
 * caller arriving once the read has started waits for the next one (its own write may be newer).
 */
export function sharedInventoryReader(
  read: () => Promise<LiveInventoryIndex>,
  windowMs = 50,
): () => Promise<LiveInventoryIndex> {
  let next: Promise<LiveInventoryIndex> | undefined;
  return () =>
    (next ??= new Promise<void>((resolve) => setTimeout(resolve, windowMs)).then(() => {
      next = undefined;
      return read();
    }));
}
