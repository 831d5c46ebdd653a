// Public library API of merchant-bulk: named re-exports only. The CLI (`mbulk`) is built on these.

// Schemas: one source for the client, the sandbox and sheet validation.
export * from './schema/index.js';

// API client.
export * from './api/index.js';

// Sheets: readers, cell codecs, writers.
export { readSheet, readSheetBatches, listSheets } from './sheets/read-sheet.js';
export type {
  ReadSheetOptions,
  SheetInfo,
  SheetReader,
  SheetFormat,
  SheetListing,
} from './sheets/read-sheet.js';
export { SheetError, isSheetError } from './sheets/sheet-error.js';
export type { SheetErrorCode } from './sheets/sheet-error.js';
export { columnLetter } from './sheets/sheet-row.js';
export type { CellValue, SheetRow, SheetColumn, SheetWarning } from './sheets/sheet-row.js';
export { cellOk, cellError, isBlank, cellText } from './sheets/cell-result.js';
export type { CellResult } from './sheets/cell-result.js';
export { parseMoney, formatMoney, minorToUnits } from './sheets/money.js';
export { parseBooleanCell } from './sheets/boolean-cell.js';
export { parseIntegerCell } from './sheets/integer-cell.js';
export { parseListCell, formatListCell } from './sheets/list-cell.js';
export { parseEnumCell } from './sheets/enum-cell.js';
export { parseEmailCell } from './sheets/email-cell.js';
export { normalizePhone } from './sheets/phone.js';
export {
  isFormulaRisk,
  neutralizeFormula,
  neutralizeXlsxText,
  restoreFormulaText,
} from './sheets/neutralize-formula.js';
export { createSheetWriter } from './sheets/create-sheet-writer.js';
export type {
  ColumnSpec,
  ColumnType,
  SheetSpec,
  SheetWriter,
  SheetWriterOptions,
  SheetHandle,
} from './sheets/sheet-writer.js';

// Mapping and pure plans.
export type { RowIssue } from './mapping/row-issue.js';
export { formatRowIssue } from './mapping/row-issue.js';
export { ProductSheetMapper, mapProductRows } from './mapping/product-sheet-mapper.js';
export { indexLiveCatalog } from './plan/live-catalog.js';
export { planProducts } from './plan/plan-products.js';
export { checkGuardrail } from './plan/check-guardrail.js';
export { findPriceJumps, medianCatalogPrice } from './plan/price-jumps.js';
export type { PriceJump } from './plan/price-jumps.js';
export { summarizePlan } from './plan/summarize-plan.js';
export { describeChanges } from './plan/describe-changes.js';
export { LiveInventoryIndex } from './plan/live-inventory-index.js';
export { StockPlanner } from './plan/stock-plan.js';
export type { StockPlan, StockChange } from './plan/stock-plan.js';
export { LiveCustomerIndex, planCustomers } from './plan/customer-plan.js';
export { planTemplates } from './plan/template-plan.js';
export { planMessages, renderTemplate } from './plan/message-plan.js';

// Apply engine: runs, journal, results.
export { RunDirectory, listRuns, openRun } from './apply/run-directory.js';
export type { RunMeta, RunStatus } from './apply/run-directory.js';
export { executeOperations } from './apply/execute-plan.js';
export type { ExecuteOptions, ExecuteSummary, OperationOutcome } from './apply/execute-plan.js';
export { applyRun } from './apply/apply-run.js';
export {
  DEFAULT_WRITE_CHECK_AFTER_MS,
  WriteCheck,
  WriteCheckFailedError,
  WriteDriftError,
  type WriteCheckOptions,
} from './apply/write-check.js';
export { Journal, readJournal } from './apply/journal.js';

// Jobs: whole imports as library calls (the CLI's commands are thin wrappers of these).
export { planStockImport, applyStockRun } from './jobs/stock-import.js';
export type { PlanStockOptions, PlannedStockRun, StockApplySummary } from './jobs/stock-import.js';
export { planCustomerImport, applyCustomerRun, checkCustomerDrift } from './jobs/customer-import.js';
export {
  planTemplateImport,
  applyTemplateRun,
  readTemplateStatus,
  watchTemplateStatus,
} from './jobs/template-import.js';
export { planMessageSend, applyMessageRun, checkMessageDrift } from './jobs/message-send.js';
export { checkStockDrift } from './jobs/stock-drift.js';
export { EmptySheetError } from './jobs/empty-sheet.js';
export {
  planProductImport,
  applyProductRun,
  checkProductDrift,
  replanProductRun,
} from './jobs/product-import.js';
export { rollbackRun, planRollback, applyRollbackRun } from './jobs/rollback-run.js';
export { checkRollbackDrift } from './jobs/rollback-drift.js';
export { runKind } from './jobs/run-kind.js';
export type { RunKind, DriftedEntity } from './jobs/run-kind.js';
export type { JobProgress, JobCallbacks } from './jobs/job-events.js';

// Review pages (report.html): a plan as one self-contained HTML page, and the bodies per kind.
export { renderReviewHtml, escapeHtml } from './report/render-review-html.js';
export { productReview, type ReviewOptions } from './report/product-review.js';
export { stockReview } from './report/stock-review.js';
export { customerReview } from './report/customer-review.js';
export { templateReview } from './report/template-review.js';
export { messageReview } from './report/message-review.js';
export type {
  ReviewPage,
  ReviewBody,
  ReviewCard,
  ReviewColumn,
  ReviewRow,
  ReviewInvalidRow,
} from './report/review-page.js';

// Exports: accounting-grade orders, round-trip catalog and customers, templates, snapshots.
export { exportOrders } from './export/export-orders.js';
export { exportOrdersIncremental } from './export/export-orders-incremental.js';
export { allocateLargestRemainder } from './export/allocate-largest-remainder.js';
export { orderChecks } from './export/order-checks.js';
export {
  isRevenue,
  parseStatusList,
  REVENUE_DEFINITION,
  REVENUE_SELECTION,
  selectionReads,
  type OrderSelection,
} from './export/order-selection.js';
export { OrderSummary, type SummaryRow } from './export/order-summary.js';
export { invoiceLines, type InvoiceLine } from './export/invoice-lines.js';
export {
  invoiceRows,
  PROFILE_COLUMNS,
  PROFILE_INVOICES_PER_FILE,
  type AccountingOptions,
  type AccountingProfile,
  type InvoiceDateFormat,
} from './export/accounting-profile.js';
export { feedFileName, DEFAULT_FEED } from './export/feed-file-name.js';
export { exportProducts } from './export/export-products.js';
export { exportCustomers } from './export/export-customers.js';
export { exportStock } from './export/export-stock.js';
export { exportTemplates } from './export/export-templates.js';
export { exportSnapshot } from './export/export-snapshot.js';

// Sandbox. Its msw handlers are in the 'merchant-bulk/msw' subpath (msw is an optional peer).
export * from './sandbox/index.js';

// Migrations from other platforms (issue 13).
export { htmlToMarkdown, type HtmlConversion } from './formats/html-to-markdown.js';
export {
  detectProductFormat,
  isShopifyCustomerExport,
  type DetectedFormat,
} from './formats/detect-format.js';
export {
  parseColumnMap,
  readColumnMapFile,
  applyColumnMap,
  ColumnMapError,
  type ColumnMap,
} from './formats/column-map.js';
export { ShopifyProductConverter } from './formats/shopify/shopify-product-converter.js';
export { ShopifyCustomerConverter } from './formats/shopify/shopify-customer-converter.js';
export { WooProductConverter } from './formats/woocommerce/woo-product-converter.js';
export {
  PRODUCT_SOURCE_FORMATS,
  type ProductSourceFormat,
  type ProductConverter,
  type ConvertedProducts,
  type ColumnUse,
} from './formats/source-format.js';
export { DEFAULT_SHEET_LIMITS } from './sheets/sheet-limits.js';
export type { SheetLimits } from './sheets/sheet-limits.js';
