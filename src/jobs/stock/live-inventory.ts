import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../../api/errors.js';
import { listRuns, RUN_FILES } from '../../apply/run-directory.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { Product } from '../../schema/product.js';
import { LiveInventoryIndex } from '../../plan/live-inventory-index.js';
import type { JobCallbacks } from '../job-events.js';

/**
 * Reads every live inventory item into an index, from the product list (the baseline that always
 * works: product `inventory` and `variants[].inventory`), 100 products a page, both status
 * partitions in parallel.
 *
 * Progress counts pages (`done`), with products and items in its message. The API gives no total:
 * with `expectedItems` (the store's size at the last run) it also estimates the pages left and an
 * ETA from the pace so far.
 */
export async function readLiveInventory(
  client: MerchantClient,
  callbacks: JobCallbacks = {},
  expectedItems?: number,
): Promise<LiveInventoryIndex> {
  // Sized for the store as the last run saw it, so that a million items do not grow it 15 times.
  const index = new LiveInventoryIndex(expectedItems);
  let products = 0;
  let pages = 0;
  const started = performance.now();
  const report = () => {
    const items = index.size;
    const seconds = (performance.now() - started) / 1000;
    const known = expectedItems !== undefined && items > 0 && expectedItems > items;
    callbacks.onProgress?.({
      phase: 'fetch',
      done: pages,
      ...(known ? { total: Math.ceil((pages * expectedItems) / items) } : {}),
      ...(seconds > 0 ? { rate: pages / seconds } : {}),
      ...(known ? { etaSeconds: ((expectedItems - items) * seconds) / items } : {}),
      message:
        `pages of products: ${products} products, ${items} inventory items` +
        (expectedItems !== undefined ? ` (${expectedItems} at the last run)` : ''),
    });
  };
  const options = { signal: callbacks.signal, onPage: () => (pages++, report()) };
  for await (const product of client.products.listPartitioned(options)) {
    index.addProduct(product);
    products++;
  }
  report();
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
    const found = single.get(item.itemId);
    if (found) return found.quantity;
  }
  return (await readAll()).get(item.itemId)?.quantity;
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

/** Bytes of a plan.json read to find its `liveItems` (it comes before the plan's big lists). */
const PLAN_HEAD_BYTES = 64 * 1024;

/**
 * The live inventory item count of the newest stock run planned for `target` under `runsRoot` (the
 * store's size at the last run: the read's ETA), or undefined when there is none to go by. Reads
 * only the head of that run's plan.json, where `liveItems` sits before the plan itself.
 */
export function lastLiveItems(runsRoot: string, target: string): number | undefined {
  const runs = listRuns(runsRoot).filter((r) => r.kind === 'stock' && r.target === target);
  for (const run of runs.reverse().slice(0, 5)) {
    let fd: number | undefined;
    try {
      fd = openSync(join(runsRoot, run.id, RUN_FILES.plan), 'r');
      const buf = Buffer.alloc(PLAN_HEAD_BYTES);
      const head = buf.subarray(0, readSync(fd, buf, 0, PLAN_HEAD_BYTES, 0)).toString('utf8');
      const found = /"liveItems":\s*(\d+)/.exec(head);
      if (found !== null) return Number(found[1]);
    } catch {
      // no readable plan: try an older run
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return undefined;
}
