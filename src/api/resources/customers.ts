import { Customer, listOf } from '../../schema/index.js';
import type { CustomerCreate, CustomerUpdate } from '../../schema/index.js';
import { fillPath } from '../api-paths.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';
import { PAGE_LIMIT, PageIterator } from '../paginate.js';

const CustomerList = listOf(Customer);

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
      (cursor) =>
        this.client.request({
          method: 'GET',
          path: '/api/v2/customers',
          query: { limit: PAGE_LIMIT, cursor, updated_after: params.updated_after },
          schema: CustomerList,
          signal: options.signal,
        }),
      'GET /api/v2/customers',
    );
  }

  /** GET one customer (path configurable: `paths.customerGet`). 404 -> NotFoundError. */
  get(id: string, options: { signal?: AbortSignal | undefined } = {}): Promise<Customer> {
    return this.client.request({
      method: 'GET',
      path: fillPath(this.client.paths.customerGet, id),
      schema: Customer,
      signal: options.signal,
    });
  }

  /** POST /api/v2/customers, keyed (see WriteOptions). */
  create(body: CustomerCreate, options: WriteOptions = {}): Promise<Customer> {
    return this.client.request({
      method: 'POST',
      path: '/api/v2/customers',
      body,
      schema: Customer,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }

  /** PATCH /api/v2/customers/{id} (absolute values: safe to retry). */
  update(
    id: string,
    body: CustomerUpdate,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<Customer> {
    return this.client.request({
      method: 'PATCH',
      path: `/api/v2/customers/${encodeURIComponent(id)}`,
      body,
      schema: Customer,
      signal: options.signal,
    });
  }
}
