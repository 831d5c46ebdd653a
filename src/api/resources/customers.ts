import type { Customer, CustomerCreate, CustomerUpdate } from '../../schema/customer.js';
import { fillPath } from '../api-paths.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';
import { PAGE_LIMIT, PageIterator } from '../paginate.js';
import { loadOnce } from './load-once.js';

const schemas = loadOnce(async () => {
  const [{ Customer }, { listOf }] = await Promise.all([
    import('../../schema/customer.js'),
    import('../../schema/common.js'),
  ]);
  return { Customer, CustomerList: listOf(Customer) };
});

export interface CustomerListParams {
  /** Only customers updated after this date-time (an optimisation; never needed for correctness). */
  updated_after?: string;
}

/** /api/v2/customers */
export class Customers {
  constructor(private readonly client: MerchantClient) {}

  /** Every customer, page by page (limit 100). */
  list(
    params: CustomerListParams = {},
    options: { signal?: AbortSignal | undefined } = {},
  ): PageIterator<Customer> {
    return new PageIterator(
      async (cursor) =>
        this.client.request({
          method: 'GET',
          path: '/api/v2/customers',
          query: { limit: PAGE_LIMIT, cursor, updated_after: params.updated_after },
          schema: (await schemas()).CustomerList,
          signal: options.signal,
        }),
      'GET /api/v2/customers',
    );
  }

  /** GET one customer (path configurable: `paths.customerGet`). 404 -> NotFoundError. */
  async get(id: string, options: { signal?: AbortSignal | undefined } = {}): Promise<Customer> {
    return this.client.request({
      method: 'GET',
      path: fillPath(this.client.paths.customerGet, id),
      schema: (await schemas()).Customer,
      signal: options.signal,
    });
  }

  /** POST /api/v2/customers, keyed (see WriteOptions). */
  async create(body: CustomerCreate, options: WriteOptions = {}): Promise<Customer> {
    return this.client.request({
      method: 'POST',
      path: '/api/v2/customers',
      body,
      schema: (await schemas()).Customer,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }

  /** PATCH /api/v2/customers/{id} (absolute values: safe to retry). */
  async update(
    id: string,
    body: CustomerUpdate,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<Customer> {
    return this.client.request({
      method: 'PATCH',
      path: `/api/v2/customers/${encodeURIComponent(id)}`,
      body,
      schema: (await schemas()).Customer,
      signal: options.signal,
    });
  }
}
