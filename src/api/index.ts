// The API client's public surface: named re-exports only.
export { MerchantClient, normalizeBaseUrl } from './merchant-client.js';
export type {
  MerchantClientOptions,
  RequestOptions,
  WriteOptions,
  HttpMethod,
  QueryValue,
} from './merchant-client.js';
export {
  ApiError,
  InvalidRequestError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  OutcomeUnknownError,
  ApiContractError,
} from './errors.js';
export type { ApiErrorFields } from './errors.js';
export {
  shouldRetry,
  retryDelay,
  parseRetryAfter,
  isIdempotentRequest,
  DEFAULT_RETRY_AFTER_CAP_MS,
} from './retry.js';
export type { AttemptFailure, RetryAction, RetryContext, RetryDelayOptions } from './retry.js';
export { RateController } from './rate-controller.js';
export type { RateControllerOptions, RateProgress, SendTicket } from './rate-controller.js';
export { idempotencyKey, stableStringify } from './idempotency-key.js';
export { PageIterator, listAll, mergePartitions, ListCapExceededError, PAGE_LIMIT } from './paginate.js';
export type { PageFetcher } from './paginate.js';
export { DEFAULT_API_PATHS, fillPath } from './api-paths.js';
export type { ApiPaths } from './api-paths.js';
export { createAgent, classifyTransportError, undiciRequestLike, globalFetchLike } from './transport.js';
export type { FetchLike, FetchInit, FetchResponse, TransportTimeouts } from './transport.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export type {
  InventoryBatchResult,
  InventoryEntryResult,
  InventoryBatchOptions,
} from './resources/inventory.js';
export { Customers } from './resources/customers.js';
export type { CustomerListParams } from './resources/customers.js';
export { Products } from './resources/products.js';
export type { ProductListParams } from './resources/products.js';
export { Orders } from './resources/orders.js';
export type { OrderListParams } from './resources/orders.js';
export { Inventory } from './resources/inventory.js';
export type { InventoryListParams } from './resources/inventory.js';
export { Templates } from './resources/templates.js';
export type { TemplateListParams } from './resources/templates.js';
export { Messages } from './resources/messages.js';
