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
 * The names exported here are pinned by `test/e2e/package/public-api.txt`: a change to
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
  /** Client options: `baseUrl` and `token` (required), fetch, concurrency, rate, retries, timeouts, paths, callbacks. */
  type MerchantClientOptions,
  /** One raw request through `client.request()`: method, path, query, body, response schema. */
  type RequestOptions,
  type WriteOptions,
  /** The HTTP methods the API uses. */
  type HttpMethod,
  /** A query-string value (`undefined` leaves the parameter out). */
  type QueryValue,
} from './api/merchant-client.js';
/** `client.products`: list, get, create, update, delete. */
export {
  Products,
  /** Filters of `client.products.list()`. */
  type ProductListParams,
} from './api/resources/products.js';
/** `client.customers`: list, get, create, update. */
export {
  Customers,
  /** Filters of `client.customers.list()`. */
  type CustomerListParams,
} from './api/resources/customers.js';
/** `client.orders`: list (read-only in the API). */
export {
  Orders,
  /** Filters of `client.orders.list()` (statuses). */
  type OrderListParams,
} from './api/resources/orders.js';
/** `client.inventory`: list, get, update one item, batch updates. */
export {
  Inventory,
  /** Filters of `client.inventory.list()`. */
  type InventoryListParams,
  /** What a batch stock update returns: one result per entry. */
  type InventoryBatchResult,
  type InventoryEntryResult,
  /** Options of a batch stock update: idempotency key, chunk size, abort signal. */
  type InventoryBatchOptions,
} from './api/resources/inventory.js';
/** `client.templates`: WhatsApp message templates. */
export {
  Templates,
  /** Filters of `client.templates.list()`. */
  type TemplateListParams,
} from './api/resources/templates.js';
/** `client.messages`: sends one templated message. */
export { Messages } from './api/resources/messages.js';
/** What a list method returns: an async iterator over every item, one page request at a time. */
export type { PageIterator } from './api/paginate.js';
/** One rate limit shared by several clients (`rateController` option); its progress events. */
export {
  RateController,
  /** Concurrency and requests per second of a shared RateController, and how it adapts. */
  type RateControllerOptions,
  type RateProgress,
  /** `normal`, or `background`: a request that goes on the rate normal ones leave. */
  type SendPriority,
} from './api/rate-controller.js';
/** Client options' types: the injected `fetch`, timeouts, retry delays, endpoint paths, clock. */
export type {
  FetchLike,
  FetchInit,
  FetchResponse,
  /** Connect, headers and body timeouts of each request (ms). */
  TransportTimeouts,
} from './api/transport.js';
export type {
  /** Backoff of retried requests: initial and maximum delay (ms), jitter. */
  RetryDelayOptions,
} from './api/retry.js';
export {
  /** The API's endpoint paths (override some with the client's `paths` option). */
  DEFAULT_API_PATHS,
  type ApiPaths,
} from './api/api-paths.js';
export type { Clock } from './api/clock.js';

// ---------------------------------------------------------------------------------------------
/**
 * The store's data model: a zod schema and its TypeScript type under one name (`Product` is both),
 * shared by the client, the sandbox and the sheet readers. Request bodies end in `Create` /
 * `Update`; the `*_STATUSES`-style arrays list each enum's values.
 */
export {
  /** A postal address (store, customer, delivery). */
  Address,
  /** What a DELETE answers: `{ id, object, deleted: true }`. */
  DeletionResult,
} from './schema/common.js';
export {
  /** The store the token belongs to (`client.me()`): name, country, currency, timezone, tax. */
  Store,
} from './schema/store.js';
export {
  /** A customer. */
  Customer,
  /** Body of a customer creation. */
  CustomerCreate,
  /** Body of a customer update (only the fields to change). */
  CustomerUpdate,
} from './schema/customer.js';
export {
  InventoryBatch,
  /** One entry of a batch stock update: `item_id` and `quantity` or `delta_quantity`. */
  InventoryBatchEntry,
  /** The stock of a product without variants, or of one variant. */
  InventoryItem,
  InventoryUpdate,
} from './schema/inventory.js';
export {
  MAX_IMAGES,
  /** The product option types. */
  OPTION_TYPES,
  /** A product option type (`OPTION_TEXT`, `OPTION_SELECTION`, …). */
  OptionType,
  /** The product statuses. */
  PRODUCT_STATUSES,
  /** The product types. */
  PRODUCT_TYPES,
  /** The product units. */
  PRODUCT_UNITS,
  /** A product with its variants, options, images and stock. */
  Product,
  /** Body of a product creation. */
  ProductCreate,
  /** A product option (a question asked at checkout). */
  ProductOption,
  /** A product status (`VISIBLE`, `HIDDEN`). */
  ProductStatus,
  /** A product type. */
  ProductType,
  /** A product unit. */
  ProductUnit,
  /** Body of a product update (lists replace the existing ones). */
  ProductUpdate,
  /** A variant of a product. */
  Variant,
} from './schema/product.js';
/** Parts of the product bodies (the schemas above validate them). */
export type {
  /** An option in a product creation. */
  OptionCreate,
  /** An option in a product update: with `id` it is kept or changed, without it is created. */
  OptionUpdateEntry,
  /** The settings of an `OPTION_SELECTION` option. */
  SelectionSettings,
  /** A variant in a product creation. */
  VariantCreate,
  /** A variant in a product update: with `id` it is kept or changed, without it is created. */
  VariantUpdateEntry,
} from './schema/product.js';
export {
  /** The order fulfillment statuses. */
  FULFILLMENT_STATUSES,
  /** An order fulfillment status. */
  FulfillmentStatus,
  /** The order statuses. */
  ORDER_STATUSES,
  /** An order, with its lines, money totals, customer and service. */
  Order,
  /** An order status. */
  OrderStatus,
  /** The order payment statuses. */
  PAYMENT_STATUSES,
  /** An order payment status. */
  PaymentStatus,
} from './schema/order.js';
/** Parts of an order (the `Order` schema validates them). */
export type {
  /** An answered product option on an order line. */
  LineItemOption,
  /** An answer to an order-level question. */
  OrderAnswer,
  /** Where an order came from (channel, ad). */
  OrderAttribution,
  /** A discount applied to an order. */
  OrderDiscount,
  /** One line of an order. */
  OrderLineItem,
  /** When an order is to be delivered or picked up. */
  OrderSchedule,
  /** Delivery or pickup of an order. */
  OrderService,
} from './schema/order.js';
export {
  /** A WhatsApp message template and its review status. */
  MessageTemplate,
  /** The template categories. */
  TEMPLATE_CATEGORIES,
  TEMPLATE_CREATE_CATEGORIES,
  /** Length limits of template parts. */
  TEMPLATE_LIMITS,
  /** The template review statuses. */
  TEMPLATE_STATUSES,
  /** A button of a template. */
  TemplateButton,
  /** A template category. */
  TemplateCategory,
  /** Body of a template submission. */
  TemplateCreate,
  /** A template review status. */
  TemplateStatus,
  templateVariables,
} from './schema/template.js';
export {
  /** A sent message. */
  Message,
  /** Body of a message send: recipient, template, parameters. */
  MessageSend,
} from './schema/message.js';
export { StoreSnapshot } from './schema/snapshot.js';

// ---------------------------------------------------------------------------------------------
/**
 * Jobs: whole imports as library calls, each in two steps like the CLI. `plan*` reads the sheet
 * and the live store and writes a run directory (plan.json, report, nothing written to the
 * store); `applySavedRun` (below) applies a planned run with every check the CLI makes (another
 * process, another store, drift, a damaged journal…) and resumes an interrupted one. `rollbackRun`
 * undoes an applied run in one call. A saved run is opened with `openRun` / `listRuns`.
 */
/** Products (and variants, options, images) from a products sheet, with an optional options sheet. */
export {
  planProductImport,
  /** Options of `planProductImport`: client, sheet file(s), runs root, target, money format, blank cells, replace/missing/delete rules, source format, column map. */
  type PlanProductsImportOptions,
  /** A planned product import: its run directory and plan file, the store, or why it was refused. */
  type PlannedProductRun,
  /** What applying a product run did: counts per outcome, results and failed files. */
  type ProductApplySummary,
} from './jobs/products/product-import.js';
export type { OptionsSource } from './jobs/products/product-sheets.js';
/** Stock levels (set or adjust) from a stock sheet. */
export {
  planStockImport,
  /** Options of `planStockImport`: client, sheet file, runs root, target, sales preservation, change cap. */
  type PlanStockOptions,
  /** A planned stock import: its run directory and plan file, the store, or why it was refused. */
  type PlannedStockRun,
  /** What applying a stock run did: counts per outcome, results and failed files. */
  type StockApplySummary,
} from './jobs/stock/stock-import.js';
/** Customers (create, update) from a customers sheet. */
export {
  planCustomerImport,
  type BlankMode,
  /** Options of `planCustomerImport`: client, sheet file, runs root, target, blank cells, customer matching. */
  type PlanCustomersOptions,
  /** A planned customer import: its run directory, plan file and store. */
  type PlannedCustomerRun,
  /** What applying a customer run did. */
  type CustomerApplySummary,
} from './jobs/customers/customer-import.js';
/** Message templates submitted for review from a templates sheet; their review status. */
export {
  planTemplateImport,
  readTemplateStatus,
  watchTemplateStatus,
  /** Options of `planTemplateImport`. */
  type PlanTemplateOptions,
  /** A planned template submission. */
  type PlannedTemplateRun,
  /** What applying a template run did. */
  type TemplateApplySummary,
  /** The outcome of one templates-sheet row. */
  type TemplateRowOutcome,
  /** The review status of one submitted template. */
  type TemplateStatusRow,
  /** Options of `readTemplateStatus`. */
  type TemplateStatusOptions,
  /** Options of `watchTemplateStatus`: polling interval, a callback per poll. */
  type WatchTemplateOptions,
} from './jobs/templates/template-import.js';
/** Templated WhatsApp messages to a recipients sheet. */
export {
  planMessageSend,
  /** Options of `planMessageSend`: client, recipients sheet, template, runs root, target, duplicate and resend rules. */
  type PlanMessageOptions,
  /** A planned message send: its run directory and plan file, the store, or why it was refused. */
  type PlannedMessageRun,
  type MessagePreview,
  /** What applying a message run did. */
  type MessageApplySummary,
} from './jobs/messages/message-send.js';
/** Rollback: undoes an applied run from its backup, in one call or as plan + `applySavedRun`. */
export {
  rollbackRun,
  planRollback,
  /** Options of `rollbackRun` (plan and apply in one call). */
  type RollbackRunOptions,
  /** Options of `planRollback`: the applied run to undo, client, runs root. */
  type PlanRollbackOptions,
  /** A planned rollback: what is restored, what cannot be and what is left alone. */
  type PlannedRollback,
  /** What applying a rollback did. */
  type RollbackApplySummary,
  /** One entity a rollback could not restore, and why. */
  type RollbackFailure,
} from './jobs/rollback/rollback-run.js';
/** Saved runs: open one by id or path, list a runs root. */
export { RunDirectory, listRuns, openRun, type RunMeta, type RunStatus } from './apply/run-directory.js';
export type { RunKind, DriftedEntity } from './jobs/run-kind.js';
/** Progress and warning callbacks every job takes. */
export type {
  JobProgress,
  /** Callbacks every job takes: progress, warnings, and an abort signal. */
  JobCallbacks,
} from './jobs/job-events.js';
/** A problem found in an input row, pointing at its sheet, row and column. */
export { formatRowIssue, type RowIssue } from './mapping/row-issue.js';
/** The write check (`--strict-check`): writes read back and compared after a delay. */
export {
  /** How long after a write the write check reads it back, by default (ms). */
  DEFAULT_WRITE_CHECK_AFTER_MS,
  type WriteCheckOptions,
} from './apply/write-check.js';

// ---------------------------------------------------------------------------------------------
/**
 * Exports: the store into sheets. Orders (accounting-grade: totals that add up, Xero and
 * QuickBooks profiles, incremental feeds), and round-trip sheets of the catalog, stock,
 * customers and templates that the jobs read back; a whole-store JSON snapshot.
 */
export {
  exportOrders,
  /** Options of `exportOrders`: the orders, path, format, filter, accounting profile, progress. */
  type ExportOrdersOptions,
  /** What `exportOrders` wrote: counts, paths, total checks, invoices. */
  type ExportOrdersResult,
  /** Progress events of `exportOrders`. */
  type ExportOrdersProgress,
  /** Order export file format: `xlsx`, `csv` or `json`. */
  type OrderExportFormat,
  type OrderExportFilter,
} from './export/export-orders.js';
export {
  exportOrdersIncremental,
  /** Options of `exportOrdersIncremental` (a feed of orders changed since the last run). */
  type ExportOrdersIncrementalOptions,
  /** What `exportOrdersIncremental` wrote. */
  type ExportOrdersIncrementalResult,
} from './export/export-orders-incremental.js';
export {
  /**
   * The whole of `mbulk export KIND FILE` as one call: checks the request as the CLI does
   * (UsageError naming the option), reads the store through the client, writes the files (a feed's
   * published with its watermark) and returns the figures.
   */
  exportFromStore,
  /** What `exportFromStore` takes for orders or for the catalog kinds. */
  type StoreExportRequest,
  /** What `exportFromStore` did: the store, pages read and the kind's result. */
  type StoreExport,
} from './export/export-from-store.js';
/** An order export as the CLI's flags give it (text as typed, checked by `exportFromStore`). */
export { type OrderExportRequest } from './export/order-export-request.js';
/** Which orders count, by status (revenue is `REVENUE_SELECTION`, described by `REVENUE_DEFINITION`). */
export {
  REVENUE_DEFINITION,
  /** The statuses of orders that count as revenue. */
  REVENUE_SELECTION,
  isRevenue,
  type OrderSelection,
  /** `paid` (cash basis, the default) or `accrual`: what the summary and a profile count as revenue. */
  type RevenueBasis,
} from './export/order-selection.js';
export type {
  /** Accounting export options: profile (Xero, QuickBooks), accounts per kind of line, tax types, contacts, invoice dates, payments file, due days, numbering. */
  AccountingOptions,
  AccountingProfile,
  /** Date format of accounting invoices. */
  InvoiceDateFormat,
  /** Which day invoices are dated: `created`, `paid` or `exported`. */
  InvoiceDateRule,
} from './export/accounting-profile.js';
/** What a profile export wrote: documents, control totals per file, changes after invoicing, tax import setting. */
export type { AccountingResult } from './export/accounting-export.js';
export {
  exportProducts,
  /** Options of `exportProducts`. */
  type ExportProductsOptions,
  /** What `exportProducts` wrote. */
  type ExportProductsResult,
  /** Progress events of `exportProducts`. */
  type ExportProductsProgress,
} from './export/export-products.js';
export {
  exportStock,
  /** Options of `exportStock`. */
  type ExportStockOptions,
  /** What `exportStock` wrote. */
  type ExportStockResult,
  /** Progress events of `exportStock`. */
  type ExportStockProgress,
} from './export/export-stock.js';
export {
  exportCustomers,
  /** Options of `exportCustomers`. */
  type ExportCustomersOptions,
  /** What `exportCustomers` wrote. */
  type ExportCustomersResult,
  /** Progress events of `exportCustomers`. */
  type ExportCustomersProgress,
} from './export/export-customers.js';
export {
  exportTemplates,
  /** Options of `exportTemplates`. */
  type ExportTemplatesOptions,
  /** What `exportTemplates` wrote. */
  type ExportTemplatesResult,
} from './export/export-templates.js';
export {
  exportSnapshot,
  /** Options of `exportSnapshot`: the store's parts to write, the path, progress. */
  type ExportSnapshotOptions,
  /** What `exportSnapshot` wrote. */
  type ExportSnapshotResult,
  /** Progress events of `exportSnapshot`. */
  type ExportSnapshotProgress,
  /** A part of the store a snapshot can hold. */
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
  /** Options of `readSheet`: sheet, header row, format, encoding, delimiter, size limits. */
  type ReadSheetOptions,
  type SheetInfo,
  type SheetReader,
  /** A sheet file format: `csv` or `xlsx`. */
  type SheetFormat,
  /** The sheets of a workbook (`listSheets`). */
  type SheetListing,
  type SheetEncoding,
  type SheetLimits,
  type WorkbookSheet,
} from './sheets/read-sheet.js';
export type { CellValue, SheetRow, SheetColumn, SheetWarning } from './sheets/sheet-row.js';
export { createSheetWriter } from './sheets/create-sheet-writer.js';
export type {
  /** One column a writer writes: header and type. */
  ColumnSpec,
  ColumnType,
  /** One sheet a writer writes: name and columns. */
  SheetSpec,
  /** A CSV or XLSX writer: add sheets, write rows, close (atomically). */
  SheetWriter,
  /** Options of `createSheetWriter`: format, money decimals, timezone, CSV delimiter, BOM and decimal comma. */
  SheetWriterOptions,
  /** One sheet being written. */
  SheetHandle,
} from './sheets/sheet-writer.js';

// ---------------------------------------------------------------------------------------------
/**
 * Migrations from other platforms: which platform a products sheet comes from (Shopify,
 * WooCommerce, merchant-bulk's own), and column maps renaming a sheet's columns to ours. The
 * product import takes the format and the map as options.
 */
export {
  detectProductFormat,
  /** What `detectProductFormat` found: the format and a hint for the user. */
  type DetectedFormat,
} from './formats/detect-format.js';
export {
  PRODUCT_SOURCE_FORMATS,
  /** A products sheet format: `mbulk`, `shopify` or `woocommerce`. */
  type ProductSourceFormat,
} from './formats/source-format.js';
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
  /** Options of `startSandbox`: port, token, seed or generated store, state file, latency, rate limit and fault injection. */
  type SandboxOptions,
  /** A started sandbox: its URL, token, store and app. */
  type RunningSandbox,
} from './sandbox/server.js';
export {
  SandboxStore,
  type SandboxState,
  /** Options of `new SandboxStore()`: initial state, image base URL. */
  type SandboxStoreOptions,
  type SentMessage,
} from './sandbox/store.js';
export { generateStore, type GenerateStoreOptions } from './sandbox/generator.js';
export type { FaultOptions } from './sandbox/faults.js';
export type {
  /** One request the sandbox served (its request log). */
  RequestLogEntry,
  RequestOutcome,
} from './sandbox/request-log.js';

// ---------------------------------------------------------------------------------------------
/**
 * Applying a saved run as a library call (`mbulk apply RUN`, `mbulk runs resume RUN`): every check
 * the CLI makes (busy, other store, other target, drift, replan, damaged journal, already
 * applied), returning the summary or a typed refusal.
 */
export {
  applySavedRun,
  checkSavedRun,
  /** Options of `applySavedRun`: the client and target, resume / replan / reconcile, concurrency, the store lock (on by default), and hooks (confirm, step, onEvent). */
  type ApplySavedRunOptions,
  type AppliedSavedRun,
  type SavedRunChecked,
  type SavedRunEvent,
  type SavedRunStep,
} from './jobs/apply-saved-run.js';
/** Where `applySavedRun` keeps the store's one-writer lock (`lock: { dir }`), and who it says holds it. */
export type { StoreLockOptions } from './apply/store-lock.js';
export {
  isSavedRunRefusal,
  type SavedRunRefusal,
  type SavedRunRefusalKind,
} from './jobs/saved-run-refusal.js';
/**
 * A run's identity across invocations: the same kind, store and input bytes. `inputRunDecision`
 * says what a command about to apply an input does (the CLI's `import … --apply`, the fleet and
 * MCP ask the same): continue the unfinished run of that input, refuse an input of deltas
 * already applied to the store (`already-applied`), or plan it as a new run. The runs directory's
 * `inputs.ndjson` remembers the inputs its runs applied (kept by `runs prune`).
 */
export {
  fileSha256,
  inputIdentity,
  type InputIdentity,
  type InputIdentityOptions,
} from './jobs/input-identity.js';
export {
  INPUT_MEMORY_FILE,
  inputRunDecision,
  inputRuns,
  type AlreadyAppliedInput,
  type InputRun,
  type InputRunDecision,
} from './jobs/input-runs.js';

// ---------------------------------------------------------------------------------------------
/**
 * Errors. Every error merchant-bulk throws is an `MbulkError` with a `category` (`usage`,
 * `refused`, `unreachable`, `local`, `failed`, `interrupted`); `exitCodeFor(category)` is the CLI's
 * exit code. Each class has a guard, `Class.is(e)`, that also recognises errors from another copy
 * of the package (and `instanceof` works across copies).
 *
 * API errors: `ApiError` (the API answered with an error; `InvalidRequestError` …
 * `InternalServerError` by status, `ApiError.from` picks the class), `ConnectionError` /
 * `TimeoutError` (no answer), `OutcomeUnknownError` (a write whose result could not be known),
 * `ApiContractError` (an answer that breaks the spec), `ListCapExceededError`. Input: `SheetError`
 * (an unreadable sheet), `SheetHeaderError`, `EmptySheetError`, `ColumnMapError`, `ZipFormatError`,
 * `UsageError` (a flag that cannot be used as given). State files: `StateFileError` (a damaged
 * exports.json, sources.json, backup or sandbox state), `RunFileError`. Runs and jobs:
 * `RefusedError`, `OtherStoreError`, `RunNotFoundError`, `LockHeldError`, `JournalDamagedError`,
 * `JournalLockedError`, `JournalWriteError`, `WriteDriftError`, `WriteCheckFailedError`,
 * `DuplicateOperationKeyError`, `RollbackError`, `InvalidRowsError`, `TemplateNotSendableError`,
 * `SendRefusedError`. The sandbox answers with `SandboxError`.
 */
export { MbulkError, isMbulkError } from './errors/mbulk-error.js';
export { ERROR_CATEGORIES, type ErrorCategory } from './errors/error-category.js';
export { ExitCode, exitCodeFor, categoryOf, isUnreachable } from './errors/exit-code.js';
export { UsageError } from './errors/usage-error.js';
export { RefusedError } from './errors/refused-error.js';
export { StateFileError } from './errors/state-file-error.js';
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
export { SheetError, type SheetErrorCode } from './sheets/sheet-error.js';
export { ZipFormatError } from './sheets/zip-directory.js';
export { SheetHeaderError } from './jobs/sheet-header-error.js';
export { EmptySheetError } from './jobs/empty-sheet.js';
export { ColumnMapError } from './formats/column-map.js';
export { RunNotFoundError, RunFileError } from './apply/run-directory.js';
export { LockHeldError } from './apply/lock-file.js';
export { DuplicateOperationKeyError } from './apply/execute-plan.js';
export { JournalDamagedError } from './apply/apply-run.js';
export { JournalLockedError, JournalWriteError } from './apply/journal.js';
export { WriteDriftError, WriteCheckFailedError } from './apply/write-check.js';
export { OtherStoreError } from './apply/run-store.js';
export { RollbackError } from './jobs/rollback/rollback-run.js';
export { InvalidRowsError } from './jobs/templates/template-import.js';
export { TemplateNotSendableError, SendRefusedError } from './jobs/messages/message-send.js';
export { SandboxError } from './sandbox/sandbox-error.js';
