/**
 * merchant-bulk as a library: the curated public API. Everything the `mbulk` CLI does is one of
 * these calls; modules not listed here (planners' helpers, cell codecs, the journal, the executor,
 * the HTTP transport's pieces, …) are internals and may change in any release.
 *
 * Groups: {@link MerchantClient the API client} · the store's data model (schemas and types) ·
 * jobs (plan, then apply, a saved run) · exports · sheet readers and writers · migrations from other
 * platforms · the local sandbox · errors. The sandbox's msw handlers are in the
 * `merchant-bulk/msw` subpath, so nothing here needs msw (an optional peer dependency).
 *
 * The names exported here are pinned by `test/integration/package/public-api.txt`: a change to
 * the surface is a change to that file, reviewed like any other API change.
 *
 * @packageDocumentation
 */

// ---------------------------------------------------------------------------------------------
/**
 * The Merchant API V2 client: `new MerchantClient({ baseUrl, token })`, one resource per
 * endpoint family (`client.products`, `client.inventory`, …), list methods that page as async
 * iterators, idempotent retried writes and a shared rate limit. Its errors are in the Errors group.
 */
export {
  MerchantClient,
  type MerchantClientOptions,
  type RequestOptions,
  type WriteOptions,
  type HttpMethod,
  type QueryValue,
} from './api/merchant-client.js';
/** `client.products`: list, get, create, update, delete. */
export { Products, type ProductListParams } from './api/resources/products.js';
/** `client.customers`: list, get, create, update. */
export { Customers, type CustomerListParams } from './api/resources/customers.js';
/** `client.orders`: list (read-only in the API). */
export { Orders, type OrderListParams } from './api/resources/orders.js';
/** `client.inventory`: list, get, update one item, batch updates. */
export {
  Inventory,
  type InventoryListParams,
  type InventoryBatchResult,
  type InventoryEntryResult,
  type InventoryBatchOptions,
} from './api/resources/inventory.js';
/** `client.templates`: WhatsApp message templates. */
export { Templates, type TemplateListParams } from './api/resources/templates.js';
/** `client.messages`: sends one templated message. */
export { Messages } from './api/resources/messages.js';
/** What a list method returns: an async iterator over every item, one page request at a time. */
export { PageIterator } from './api/paginate.js';
/** One rate limit shared by several clients (`rateController` option); its progress events. */
export { RateController, type RateControllerOptions, type RateProgress } from './api/rate-controller.js';
/** Client options' types: the injected `fetch`, timeouts, retry delays, endpoint paths, clock. */
export type { FetchLike, FetchInit, FetchResponse, TransportTimeouts } from './api/transport.js';
export type { RetryDelayOptions } from './api/retry.js';
export { DEFAULT_API_PATHS, type ApiPaths } from './api/api-paths.js';
export type { Clock } from './api/clock.js';

// ---------------------------------------------------------------------------------------------
/**
 * The store's data model: a zod schema and its TypeScript type under one name (`Product` is both),
 * shared by the client, the sandbox and the sheet readers. Request bodies end in `Create` /
 * `Update`; the `*_STATUSES`-style arrays list each enum's values.
 */
export { Address, DeletionResult } from './schema/common.js';
export { Store } from './schema/store.js';
export { Customer, CustomerCreate, CustomerUpdate } from './schema/customer.js';
export { InventoryBatch, InventoryBatchEntry, InventoryItem, InventoryUpdate } from './schema/inventory.js';
export {
  MAX_IMAGES,
  OPTION_TYPES,
  OptionCreate,
  OptionType,
  OptionUpdateEntry,
  PRODUCT_STATUSES,
  PRODUCT_TYPES,
  PRODUCT_UNITS,
  Product,
  ProductCreate,
  ProductOption,
  ProductStatus,
  ProductType,
  ProductUnit,
  ProductUpdate,
  SelectionSettings,
  Variant,
  VariantCreate,
  VariantUpdateEntry,
} from './schema/product.js';
export {
  FULFILLMENT_STATUSES,
  FulfillmentStatus,
  LineItemOption,
  ORDER_STATUSES,
  Order,
  OrderAnswer,
  OrderAttribution,
  OrderDiscount,
  OrderLineItem,
  OrderSchedule,
  OrderService,
  OrderStatus,
  PAYMENT_STATUSES,
  PaymentStatus,
} from './schema/order.js';
export {
  MessageTemplate,
  TEMPLATE_CATEGORIES,
  TEMPLATE_CREATE_CATEGORIES,
  TEMPLATE_LIMITS,
  TEMPLATE_STATUSES,
  TemplateButton,
  TemplateCategory,
  TemplateCreate,
  TemplateStatus,
  templateVariables,
} from './schema/template.js';
export { Message, MessageSend } from './schema/message.js';
export { currencyDecimals } from './schema/currency.js';
export { StoreSnapshot } from './schema/snapshot.js';

// ---------------------------------------------------------------------------------------------
/**
 * Jobs: whole imports as library calls, each in two steps like the CLI. `plan*` reads the sheet
 * and the live store and writes a run directory (plan.json, report, nothing written to the
 * store); `apply*Run` applies a planned run (resumable: a run applied again skips what is done)
 * and returns a summary. `check*Drift` reports entities changed in the store since the plan.
 * A saved run is opened with `openRun` / `listRuns`; `runKind` says which apply function it needs.
 */
/** Products (and variants, options, images) from a products sheet, with an optional options sheet. */
export {
  planProductImport,
  applyProductRun,
  checkProductDrift,
  replanProductRun,
  type PlanProductsImportOptions,
  type PlannedProductRun,
  type ApplyProductsOptions,
  type ProductApplySummary,
  type ReplanProductsOptions,
} from './jobs/product-import.js';
export type { DriftedProduct } from './jobs/product-drift.js';
export type { OptionsSource } from './jobs/product-sheets.js';
/** Stock levels (set or adjust) from a stock sheet. */
export {
  planStockImport,
  applyStockRun,
  type PlanStockOptions,
  type PlannedStockRun,
  type ApplyStockOptions,
  type StockApplySummary,
} from './jobs/stock-import.js';
export { checkStockDrift } from './jobs/stock-drift.js';
/** Customers (create, update) from a customers sheet. */
export {
  planCustomerImport,
  applyCustomerRun,
  checkCustomerDrift,
  type BlankMode,
  type PlanCustomersOptions,
  type PlannedCustomerRun,
  type ApplyCustomersOptions,
  type CustomerApplySummary,
} from './jobs/customer-import.js';
/** Message templates submitted for review from a templates sheet; their review status. */
export {
  planTemplateImport,
  applyTemplateRun,
  readTemplateStatus,
  watchTemplateStatus,
  type PlanTemplateOptions,
  type PlannedTemplateRun,
  type ApplyTemplateOptions,
  type TemplateApplySummary,
  type TemplateRowOutcome,
  type TemplateStatusRow,
  type TemplateStatusOptions,
  type WatchTemplateOptions,
} from './jobs/template-import.js';
/** Templated WhatsApp messages to a recipients sheet. */
export {
  planMessageSend,
  applyMessageRun,
  checkMessageDrift,
  type PlanMessageOptions,
  type PlannedMessageRun,
  type MessagePreview,
  type ApplyMessageOptions,
  type MessageApplySummary,
} from './jobs/message-send.js';
/** Rollback: undoes an applied run from its backup, in one call or as plan + apply. */
export {
  rollbackRun,
  planRollback,
  applyRollbackRun,
  type RollbackRunOptions,
  type PlanRollbackOptions,
  type PlannedRollback,
  type ApplyRollbackOptions,
  type RollbackApplySummary,
  type RollbackFailure,
} from './jobs/rollback-run.js';
export { checkRollbackDrift } from './jobs/rollback-drift.js';
/** Saved runs: open one by id or path, list a runs root, tell its kind. */
export { RunDirectory, listRuns, openRun, type RunMeta, type RunStatus } from './apply/run-directory.js';
export { runKind, type RunKind, type DriftedEntity } from './jobs/run-kind.js';
/** Progress and warning callbacks every job takes. */
export type { JobProgress, JobCallbacks } from './jobs/job-events.js';
/** A problem found in an input row, pointing at its sheet, row and column. */
export { formatRowIssue, type RowIssue } from './mapping/row-issue.js';
/** The write check (`--strict-check`): writes read back and compared after a delay. */
export { DEFAULT_WRITE_CHECK_AFTER_MS, type WriteCheckOptions } from './apply/write-check.js';

// ---------------------------------------------------------------------------------------------
/**
 * Exports: the store into sheets. Orders (accounting-grade: totals that add up, Xero and
 * QuickBooks profiles, incremental feeds), and round-trip sheets of the catalog, stock,
 * customers and templates that the jobs read back; a whole-store JSON snapshot.
 */
export {
  exportOrders,
  type ExportOrdersOptions,
  type ExportOrdersResult,
  type ExportOrdersProgress,
  type OrderExportFormat,
  type OrderExportFilter,
} from './export/export-orders.js';
export {
  exportOrdersIncremental,
  type ExportOrdersIncrementalOptions,
  type ExportOrdersIncrementalResult,
} from './export/export-orders-incremental.js';
/** Which orders count, by status (revenue is `REVENUE_SELECTION`, described by `REVENUE_DEFINITION`). */
export {
  REVENUE_DEFINITION,
  REVENUE_SELECTION,
  isRevenue,
  type OrderSelection,
} from './export/order-selection.js';
export type { AccountingOptions, AccountingProfile, InvoiceDateFormat } from './export/accounting-profile.js';
export {
  exportProducts,
  type ExportProductsOptions,
  type ExportProductsResult,
  type ExportProductsProgress,
} from './export/export-products.js';
export {
  exportStock,
  type ExportStockOptions,
  type ExportStockResult,
  type ExportStockProgress,
} from './export/export-stock.js';
export {
  exportCustomers,
  type ExportCustomersOptions,
  type ExportCustomersResult,
  type ExportCustomersProgress,
} from './export/export-customers.js';
export {
  exportTemplates,
  type ExportTemplatesOptions,
  type ExportTemplatesResult,
} from './export/export-templates.js';
export {
  exportSnapshot,
  type ExportSnapshotOptions,
  type ExportSnapshotResult,
  type ExportSnapshotProgress,
  type SnapshotSection,
} from './export/export-snapshot.js';

// ---------------------------------------------------------------------------------------------
/**
 * Sheet readers and writers: CSV and XLSX read as typed rows (`readSheet`, or in batches for
 * large files), with the cell's column letter and row number kept for error messages; CSV and
 * XLSX written through one writer interface, atomically and with formula injection neutralised.
 */
export {
  readSheet,
  readSheetBatches,
  listSheets,
  type ReadSheetOptions,
  type SheetInfo,
  type SheetReader,
  type SheetFormat,
  type SheetListing,
  type SheetEncoding,
  type SheetLimits,
  type WorkbookSheet,
} from './sheets/read-sheet.js';
export {
  columnLetter,
  type CellValue,
  type SheetRow,
  type SheetColumn,
  type SheetWarning,
} from './sheets/sheet-row.js';
export { createSheetWriter } from './sheets/create-sheet-writer.js';
export type {
  ColumnSpec,
  ColumnType,
  SheetSpec,
  SheetWriter,
  SheetWriterOptions,
  SheetHandle,
} from './sheets/sheet-writer.js';

// ---------------------------------------------------------------------------------------------
/**
 * Migrations from other platforms: which platform a products sheet comes from (Shopify,
 * WooCommerce, merchant-bulk's own), and column maps renaming a sheet's columns to ours. The
 * product import takes the format and the map as options.
 */
export { detectProductFormat, type DetectedFormat } from './formats/detect-format.js';
export { PRODUCT_SOURCE_FORMATS, type ProductSourceFormat } from './formats/source-format.js';
export { parseColumnMap, readColumnMapFile, type ColumnMap } from './formats/column-map.js';

// ---------------------------------------------------------------------------------------------
/**
 * The local sandbox: the Merchant API V2 on loopback with the spec's rules, persistent state,
 * deterministic generated stores and injectable faults, for trying the CLI and testing code
 * against. `startSandbox` listens; `SandboxStore` is the state and rules without HTTP (what the
 * `merchant-bulk/msw` handlers serve).
 */
export {
  startSandbox,
  createSandboxStore,
  type SandboxOptions,
  type RunningSandbox,
} from './sandbox/server.js';
export {
  SandboxStore,
  type SandboxState,
  type SandboxStoreOptions,
  type SentMessage,
} from './sandbox/store.js';
export { generateStore, type GenerateStoreOptions } from './sandbox/generator.js';
export type { FaultOptions } from './sandbox/faults.js';
export type { RequestLogEntry, RequestOutcome } from './sandbox/request-log.js';

// ---------------------------------------------------------------------------------------------
/**
 * Errors. API errors: `ApiError` (the API answered with an error; `InvalidRequestError` …
 * `InternalServerError` by status, `ApiError.from` picks the class), `ConnectionError` /
 * `TimeoutError` (no answer), `OutcomeUnknownError` (a write whose result could not be known),
 * `ApiContractError` (an answer that breaks the spec). Input: `SheetError` (an unreadable sheet),
 * `SheetHeaderError`, `EmptySheetError`, `ColumnMapError`. Runs and jobs: `RunNotFoundError`,
 * `RunFileError`, `LockHeldError`, `JournalDamagedError`, `JournalLockedError`,
 * `JournalWriteError`, `WriteDriftError`, `WriteCheckFailedError`, `RollbackError`,
 * `InvalidRowsError`, `TemplateNotSendableError`, `SendRefusedError`. The sandbox answers with
 * `SandboxError`.
 */
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
  type ApiErrorFields,
} from './api/errors.js';
export { ListCapExceededError } from './api/paginate.js';
export { SheetError, isSheetError, type SheetErrorCode } from './sheets/sheet-error.js';
export { SheetHeaderError } from './jobs/sheet-header-error.js';
export { EmptySheetError } from './jobs/empty-sheet.js';
export { ColumnMapError } from './formats/column-map.js';
export { RunNotFoundError, RunFileError } from './apply/run-directory.js';
export { LockHeldError } from './apply/lock-file.js';
export { JournalDamagedError } from './apply/apply-run.js';
export { JournalLockedError, JournalWriteError } from './apply/journal.js';
export { WriteDriftError, WriteCheckFailedError } from './apply/write-check.js';
export { RollbackError } from './jobs/rollback-run.js';
export { InvalidRowsError } from './jobs/template-import.js';
export { TemplateNotSendableError, SendRefusedError } from './jobs/message-send.js';
export { SandboxError } from './sandbox/sandbox-error.js';
