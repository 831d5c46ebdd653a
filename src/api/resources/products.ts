import type { DeletionResult, ListEnvelope } from '../../schema/common.js';
import type { Product, ProductCreate, ProductStatus, ProductUpdate } from '../../schema/product.js';
import { fillPath } from '../api-paths.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';
import type { SendPriority } from '../rate-controller.js';
import { PAGE_LIMIT, PageIterator, mergePartitions } from '../paginate.js';
import { listEveryProduct, type ListEveryProductOptions } from './list-every-product.js';
import { loadOnce } from './load-once.js';

const schemas = loadOnce(async () => {
  const [{ Product, PRODUCT_STATUSES }, { DeletionResult, listOf }, { z }] = await Promise.all([
    import('../../schema/product.js'),
    import('../../schema/common.js'),
    import('zod'),
  ]);
  // Pages compiled (z.compile, ~20 ms once), as orders' are: a stock import or a catalog read
  // validates every page of the store, 100 products with their variants (~270 KB) each, and the
  // compiled check takes ~0.1-0.5 ms a page against ~2.2 ms for zod's default parse (development
  // machine, issue 41); same output, and an invalid page fails naming the same field.
  return { Product, ProductList: z.compile(listOf(Product)), DeletionResult, PRODUCT_STATUSES };
});

export interface ProductListParams {
  status?: ProductStatus;
}

/** /api/v2/products */
export class Products {
  constructor(private readonly client: MerchantClient) {}

  /**
   * Every product (optionally of one status), page by page (limit 100). `priority: 'background'`
   * reads on the rate other requests leave (see RateController.run); `readAhead` pages are read
   * ahead of the consumer (PageIterator); `onRequest` is told each page's cursor as it is asked for.
   */
  list(
    params: ProductListParams = {},
    options: {
      signal?: AbortSignal | undefined;
      priority?: SendPriority | undefined;
      readAhead?: number | undefined;
      onRequest?: ((cursor: string | undefined) => void) | undefined;
    } = {},
  ): PageIterator<Product> {
    return new PageIterator(
      async (cursor, onText) => {
        options.onRequest?.(cursor);
        return this.page(params, cursor, { ...options, onText });
      },
      'GET /api/v2/products',
      options.readAhead ?? 0,
    );
  }

  /** One page of products (limit 100) after `cursor` (undefined: the first). */
  async page(
    params: ProductListParams,
    cursor: string | undefined,
    options: {
      signal?: AbortSignal | undefined;
      priority?: SendPriority | undefined;
      onText?: ((text: string) => boolean) | undefined;
    } = {},
  ): Promise<ListEnvelope<Product>> {
    return this.client.request({
      method: 'GET',
      path: '/api/v2/products',
      query: { limit: PAGE_LIMIT, cursor, status: params.status },
      schema: (await schemas()).ProductList,
      signal: options.signal,
      onText: options.onText,
      priority: options.priority,
    });
  }

  /**
   * Every product, each once, as complete as one plain read for a product that changes status
   * while it goes, read at the pace of the VISIBLE chain: both status partitions in parallel, the
   * HIDDEN one twice (see listEveryProduct). For a read whose result must hold every product (a
   * plan's live catalog); `listPartitioned` is one pass of each.
   */
  listEvery(options: ListEveryProductOptions = {}): AsyncIterable<Product> {
    return listEveryProduct(
      {
        pages: (status, o) => this.list({ status }, o).pages(),
        page: (status, cursor, o) => this.page({ status }, cursor, o),
        plain: (o) => this.list({}, o).pages(),
        leadEnded: () => this.client.rate.normalEnded(),
      },
      options,
    );
  }

  /**
   * Every product, reading one partition per status in parallel (VISIBLE and HIDDEN together cover
   * the store, so the set equals a plain `list()`). Shortens wall time when latency, not the rate
   * limit, is what bounds the read. `onPage` is called as each page arrives (progress).
   *
   * VISIBLE leads; HIDDEN is read in the background, on what VISIBLE leaves of the rate (the API
   * gives no counts, and stores hide far fewer products than they show). Read half and half, the
   * long partition, which bounds the read, went at two thirds of its pace while the short one
   * lasted (a million items: VISIBLE 30 pages a second against 43 alone).
   *
   * One pass of each partition: a product whose status changes while they are read can be missed
   * by both (hidden after the HIDDEN chain passed its place, before the VISIBLE chain reached it).
   * A read that must hold every product (a plan's catalog, a create's key check) uses `listEvery`.
   */
  listPartitioned(
    options: { signal?: AbortSignal | undefined; onPage?: (() => void) | undefined } = {},
  ): AsyncIterable<Product> {
    const list = (status: ProductStatus) =>
      this.list(
        { status },
        { signal: options.signal, priority: status === 'VISIBLE' ? 'normal' : 'background' },
      );
    return (async function* () {
      const { PRODUCT_STATUSES } = await schemas();
      yield* mergePartitions(PRODUCT_STATUSES.map(list), (p) => p.id, options.onPage);
    })();
  }

  /** GET one product (path configurable: `paths.productGet`). 404 -> NotFoundError. */
  async get(id: string, options: { signal?: AbortSignal | undefined } = {}): Promise<Product> {
    return this.client.request({
      method: 'GET',
      path: fillPath(this.client.paths.productGet, id),
      schema: (await schemas()).Product,
      signal: options.signal,
    });
  }

  /** Create (POST, path configurable: `paths.productCreate`), keyed (see WriteOptions). */
  async create(body: ProductCreate, options: WriteOptions = {}): Promise<Product> {
    return this.client.request({
      method: 'POST',
      path: this.client.paths.productCreate,
      body,
      schema: (await schemas()).Product,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }

  /**
   * PATCH /api/v2/products/{id}. Remember: `variants`, `options` and `images` REPLACE their lists
   * (an entry left out is deleted); omit a field to leave it untouched.
   */
  async update(
    id: string,
    body: ProductUpdate,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<Product> {
    return this.client.request({
      method: 'PATCH',
      path: `/api/v2/products/${encodeURIComponent(id)}`,
      body,
      schema: (await schemas()).Product,
      signal: options.signal,
    });
  }

  /**
   * DELETE /api/v2/products/{id}: permanent (HIDDEN is the reversible alternative). Retried like
   * any idempotent request; a 404 on a retry after an unanswered attempt means that attempt deleted it.
   */
  async delete(id: string, options: { signal?: AbortSignal | undefined } = {}): Promise<DeletionResult> {
    return this.client.request({
      method: 'DELETE',
      path: `/api/v2/products/${encodeURIComponent(id)}`,
      schema: (await schemas()).DeletionResult,
      signal: options.signal,
      goneAfterRetry: () => ({ id, object: 'product', deleted: true }),
    });
  }
}
