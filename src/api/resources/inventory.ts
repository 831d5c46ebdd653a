import type { InventoryBatchEntry, InventoryItem, InventoryUpdate } from '../../schema/inventory.js';
import { NotFoundError } from '../errors.js';
import type { MerchantClient } from '../merchant-client.js';
import { PAGE_LIMIT, PageIterator } from '../paginate.js';
import { loadOnce } from './load-once.js';

const schemas = loadOnce(async () => {
  const [{ InventoryItem }, { listOf }, { z }] = await Promise.all([
    import('../../schema/inventory.js'),
    import('../../schema/common.js'),
    import('zod'),
  ]);
  return { InventoryItem, InventoryList: listOf(InventoryItem), InventoryItems: z.array(InventoryItem) };
});

/** Outcome of one entry of a batch update. */
export type InventoryEntryResult =
  | { entry: InventoryBatchEntry; ok: true; item: InventoryItem }
  | { entry: InventoryBatchEntry; ok: false; error: Error };

export interface InventoryBatchResult {
  /** `batch`: the batch route was used; `per-item`: it answered 404 (now or earlier) and some or all entries went as one PATCH each. */
  mode: 'batch' | 'per-item';
  /** One result per entry, in input order. */
  results: InventoryEntryResult[];
}

export interface InventoryBatchOptions {
  /**
   * Idempotency-Key of the whole operation (one per chunk is derived: `<key>.<n>` when there is more
   * than one chunk). Default: a random key per call. A keyed batch is safe to retry even with
   * `delta_quantity` entries.
   */
  idempotencyKey?: string | undefined;
  /** Entries per request. Default 100 (the service's maximum is not documented). */
  chunkSize?: number;
  signal?: AbortSignal | undefined;
}

export interface InventoryListParams {
  updated_after?: string;
}

/** /api/v2/inventory_items */
export class Inventory {
  /** Set when the batch route answered 404: later calls go straight to per-item PATCHes. */
  private batchRouteMissing = false;

  constructor(private readonly client: MerchantClient) {}

  /**
   * PATCH one item: exactly one of `{quantity}` (absolute, retried safely) or `{delta_quantity}`
   * (relative: never retried after it may have reached the server; OutcomeUnknownError instead).
   */
  async update(
    itemId: string,
    body: InventoryUpdate,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<InventoryItem> {
    return this.client.request({
      method: 'PATCH',
      path: `/api/v2/inventory_items/${encodeURIComponent(itemId)}`,
      body,
      schema: (await schemas()).InventoryItem,
      signal: options.signal,
    });
  }

  /**
   * Inventory items page by page (path configurable: `paths.inventoryList`). Not in the spec: a
   * service may answer 404 (NotFoundError); the baseline is reading items from products.
   */
  list(
    params: InventoryListParams = {},
    options: { signal?: AbortSignal | undefined } = {},
  ): PageIterator<InventoryItem> {
    const path = this.client.paths.inventoryList;
    return new PageIterator(
      async (cursor) =>
        this.client.request({
          method: 'GET',
          path,
          query: { limit: PAGE_LIMIT, cursor, updated_after: params.updated_after },
          schema: (await schemas()).InventoryList,
          signal: options.signal,
        }),
      `GET ${path}`,
    );
  }

  /**
   * Updates many items through the batch route (bare array in, bare array out, all-or-nothing per
   * request), in chunks. When the route answers 404 (a service without it, or the sandbox in strict
   * mode) it falls back to one PATCH per entry, says so once through `onWarning`, and remembers.
   * Never throws for an entry's failure: every entry gets a result (a failed chunk fails all of its
   * entries; nothing of it was applied unless the error is OutcomeUnknownError).
   */
  async batchUpdate(
    entries: readonly InventoryBatchEntry[],
    options: InventoryBatchOptions = {},
  ): Promise<InventoryBatchResult> {
    const size = Math.max(1, options.chunkSize ?? 100);
    const chunks: InventoryBatchEntry[][] = [];
    for (let i = 0; i < entries.length; i += size) chunks.push(entries.slice(i, i + size));
    const baseKey = this.client.keyFor(options.idempotencyKey);
    const results = new Array<InventoryEntryResult>(entries.length);
    const place = (start: number, chunkResults: InventoryEntryResult[]) =>
      chunkResults.forEach((r, i) => (results[start + i] = r));
    // Start index of the chunks left for per-item PATCHes once the batch route turned out to be missing.
    const fallback: number[] = [];
    for (const [n, chunk] of chunks.entries()) {
      const start = n * size;
      if (this.batchRouteMissing) {
        fallback.push(start);
        continue;
      }
      const key = chunks.length === 1 ? baseKey : `${baseKey}.${n}`;
      try {
        const items = await this.client.request({
          method: 'POST',
          path: this.client.paths.batchUpdate,
          body: chunk,
          schema: (await schemas()).InventoryItems,
          idempotencyKey: key,
          signal: options.signal,
        });
        place(start, matchItems(chunk, items));
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        // A 404 naming no parameter is the route itself (an unknown item names `<n>.item_id`).
        if (error instanceof NotFoundError && error.param === undefined) {
          this.batchRouteMissing = true;
          this.client.warnOnce(
            'inventory-batch-404',
            `The batch inventory route (POST ${this.client.paths.batchUpdate}) answered 404; sending one PATCH per item instead.`,
          );
          fallback.push(start);
        } else {
          place(
            start,
            chunk.map((entry) => ({ entry, ok: false as const, error })),
          );
        }
      }
    }
    // All remaining chunks at once: the shared rate controller bounds the load.
    await Promise.all(
      fallback.map(async (start) =>
        place(start, await this.perItem(entries.slice(start, start + size), options.signal)),
      ),
    );
    return { mode: fallback.length > 0 ? 'per-item' : 'batch', results };
  }

  private perItem(
    chunk: readonly InventoryBatchEntry[],
    signal: AbortSignal | undefined,
  ): Promise<InventoryEntryResult[]> {
    return Promise.all(
      chunk.map(async (entry): Promise<InventoryEntryResult> => {
        const { item_id, ...body } = entry;
        try {
          const item = await this.update(item_id, body as InventoryUpdate, signal ? { signal } : {});
          return { entry, ok: true, item };
        } catch (error) {
          if (signal?.aborted || !(error instanceof Error)) throw error;
          return { entry, ok: false, error };
        }
      }),
    );
  }
}

/** Pairs the returned items with the entries: by position when the counts agree, else by item_id. */
function matchItems(chunk: readonly InventoryBatchEntry[], items: InventoryItem[]): InventoryEntryResult[] {
  if (items.length === chunk.length) {
    return chunk.map((entry, i) => ({ entry, ok: true, item: items[i] as InventoryItem }));
  }
  const byId = new Map(items.map((item) => [item.item_id, item]));
  return chunk.map((entry): InventoryEntryResult => {
    const item = byId.get(entry.item_id);
    return item
      ? { entry, ok: true, item }
      : { entry, ok: false, error: new Error(`batch response has no item ${entry.item_id}`) };
  });
}
