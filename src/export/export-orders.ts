import { currencyDecimals } from '../schema/currency.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import { writeJsonArrayFile } from './json-array-file.js';
import { suffixedPath } from './suffixed-path.js';
import type { AccountingOptions } from './accounting-profile.js';
import { AccountingExport, type AccountingResult, type AccountingRun } from './accounting-export.js';
import { JournalExport } from './journal-export.js';
import type { Ledger } from './accounting-ledger.js';
import { withHeaders, type HeaderStyle } from './order-column-labels.js';
import {
  CHECK_COLUMNS,
  CHECKS_SHEET,
  ORDER_COLUMNS,
  ORDER_LINE_COLUMNS,
  ORDER_LINES_SHEET,
  ORDERS_SHEET,
  SUMMARY_COLUMNS,
} from './order-columns.js';
import { checkRow, orderChecks } from './order-checks.js';
import { matchesSelection, type OrderSelection, type RevenueBasis } from './order-selection.js';
import { OrderSummary, SUMMARY_SHEET, summarySheetRow, type SummaryRow } from './order-summary.js';
import { orderLineRows } from './order-line-rows.js';
import { orderRow } from './order-row.js';
import { RollingSheet, XLSX_MAX_DATA_ROWS } from './rolling-sheet.js';
import type { IncrementalSelector } from './watermark.js';
import { orderPeriodBounds, type OrderPeriod } from './order-period.js';
import { prepareExportDestination } from './export-destination.js';
import { datedFileName } from './feed-file-name.js';
import { localDateInZone } from './day-boundary-in-zone.js';
import { zoneOffsetMs } from '../sheets/sheet-writer.js';

export type OrderExportFormat = 'xlsx' | 'csv' | 'json';

/** Client-side filters (the API cannot filter on dates). */
export interface OrderExportFilter {
  /** Keep orders created at or after this instant (see dayBoundaryInZone). */
  since?: Date;
  /** Keep orders created before this instant (exclusive). */
  until?: Date;
  /** Keep orders updated at or after this instant. */
  updatedSince?: Date;
  /** Keep orders whose statuses are in these sets (checked on every order, whatever the API was asked). */
  selection?: OrderSelection;
}

export interface ExportOrdersProgress {
  ordersRead: number;
  ordersWritten: number;
  linesWritten: number;
  checks: number;
  /** `done` is reported once, after the files are complete. */
  phase: 'writing' | 'finishing' | 'done';
}

export interface ExportOrdersOptions {
  /** The orders, usually the API's paginated list. Read once, in order. */
  orders: AsyncIterable<Order>;
  store: Pick<Store, 'id' | 'currency' | 'timezone' | 'tax' | 'country'> & Partial<Pick<Store, 'name'>>;
  /**
   * The destination file. CSV also writes `<name>-lines.csv` and `<name>-checks.csv` beside it. It
   * may hold `{date}` and `{to}` (the run's day and start in the store's zone, see datedFileName).
   * Its folder is created; a folder as the destination is a UsageError.
   */
  path: string;
  format: OrderExportFormat;
  filter?: OrderExportFilter;
  /**
   * The period as the user gave it (days in the store's zone): turned into `filter.since`,
   * `filter.until` and `filter.updatedSince` (which it overrides). A malformed day is a UsageError.
   */
  period?: OrderPeriod;
  /** The run's time (`{date}`/`{to}` in the file name). Default: now. */
  now?: Date;
  /** Drop repeated order ids (keep the first). Default true. Memory: one string per order. */
  dedupe?: boolean;
  /** Incremental run: which orders are new (see watermark.ts). Default: every order. */
  incremental?: IncrementalSelector;
  /** Decimals of the money columns. Default: ISO 4217 decimals of `store.currency`. */
  currencyDecimals?: number;
  /** Data rows per XLSX sheet before it continues in `<name>_2`. Default XLSX_MAX_DATA_ROWS (tests lower it). */
  maxRowsPerSheet?: number;
  /** Progress, at most every 500 orders read and at the end. */
  onProgress?: (progress: ExportOrdersProgress) => void;
  /** Headers: readable labels with a note naming the field, or the API field names. Default: XLSX labels, CSV fields. */
  headers?: HeaderStyle;
  /** CSV: the field delimiter. Default ','. */
  csvDelimiter?: string;
  /** CSV: decimals with a comma (`12,90`). Default false. */
  decimalComma?: boolean;
  /** Write the `summary` sheet (XLSX, first) or `<name>-summary.csv`. Default true. */
  summary?: boolean;
  /** Write an accounting program's invoice import CSV instead of the sheets (format must be csv). */
  accounting?: AccountingOptions;
  /**
   * What counts as revenue (the summary's `revenue` and tax rows, and which orders a profile
   * invoices): `paid` (cash basis) or `accrual`. Default `paid`.
   */
  basis?: RevenueBasis;
  /**
   * An accounting feed's ledger (exportOrdersIncremental keeps it with the watermark): invoices
   * already exported are not exported again, and orders it holds are read even when the selection
   * no longer takes them (refunded, cancelled), to be credited. Updated in place.
   */
  ledger?: Ledger;
  /**
   * XLSX: the workbook (exceljs, the zip) is written in a worker thread while this one reads the
   * orders and makes the rows (see SheetWriterOptions.thread); the same file. Default true.
   */
  thread?: boolean;
  /** Select and count only: no file is written. Default false. */
  dryRun?: boolean;
  /**
   * Where each file written will be once published, when it is written elsewhere first (a feed's
   * staging folder): the paths of the result and of a profile's totals file are these. Default: the
   * path written.
   */
  publishedPath?: (path: string) => string;
}

export interface ExportOrdersResult {
  /** Orders written. */
  orders: number;
  /** Line rows written. */
  lines: number;
  /** Check rows written (failed checks, over all orders written). */
  checks: number;
  /** Orders that failed at least one check. */
  ordersWithChecks: number;
  /** Orders read from the source. */
  ordersRead: number;
  /** Orders dropped as repeats of an id already written. */
  duplicates: number;
  /** Orders dropped by `filter` or by `incremental`. */
  skipped: number;
  /** The files written: `orders` is the path (placeholders filled); CSV adds `lines`, `checks` and `summary`; a profile lists its `parts`. */
  paths: { orders: string; lines?: string; checks?: string; summary?: string; parts?: string[] };
  /**
   * Profiles: part files beside this export's parts left from an earlier, larger export to the same
   * name (`xero-4.csv` after a 3-part export). They are not deleted; importing one would import its
   * invoices twice.
   */
  staleParts?: string[];
  /** The summary figures (also when no summary file is written). */
  summary: SummaryRow[];
  /** Accounting profile: invoices and rows written. */
  invoices?: { invoices: number; rows: number; files: number; withDifference: number };
  /** Accounting profile: documents, control totals, changes after invoicing, files. */
  accounting?: AccountingResult;
  /** XLSX: the sheets written, in order (`order_lines_2`… follow when a sheet overflowed Excel's row limit). */
  sheets?: string[];
}

/**
 * Export orders to XLSX (sheets `orders`, `order_lines`, `checks`), CSV (three files) or JSON (the
 * raw orders as one array). Streams: memory holds one order at a time plus the dedupe id set.
 *
 * Rows of the three sheets are produced together as orders stream in; the XLSX writer spools the
 * later sheets to a temporary file while `orders` is open (exceljs writes sheets one after
 * another), so memory stays flat. Nothing is corrected: amounts that do not add up are listed in
 * `checks` (JSON: counted only).
 */
export async function exportOrders(input: ExportOrdersOptions): Promise<ExportOrdersResult> {
  const path = datedFileName(input.path, input.now ?? new Date(), input.store.timezone);
  const bounds = input.period ? orderPeriodBounds(input.period, input.store.timezone) : {};
  const payments = input.accounting?.payments;
  const options = {
    ...input,
    path,
    filter: { ...input.filter, ...bounds },
    ...(input.accounting && payments !== undefined
      ? {
          accounting: {
            ...input.accounting,
            payments: datedFileName(payments, input.now ?? new Date(), input.store.timezone),
          },
        }
      : {}),
  };
  await prepareExportDestination(path);
  if (options.accounting?.payments !== undefined) await prepareExportDestination(options.accounting.payments);
  const { store, filter, dedupe = true, incremental, onProgress } = options;
  const since = filter.since?.getTime();
  const until = filter.until?.getTime();
  const updatedSince = filter.updatedSince?.getTime();
  const seen = dedupe ? new Set<string>() : null;
  const selection = filter.selection;
  const summary = new OrderSummary(store, options.basis ?? 'paid');
  const stats = { ordersRead: 0, ordersWritten: 0, linesWritten: 0, checks: 0, ordersWithChecks: 0 };
  const counts = { duplicates: 0, skipped: 0 };
  let staleParts: string[] | undefined;
  let accountingResult: AccountingResult | undefined;
  if (options.accounting && options.format !== 'csv')
    throw new RangeError('accounting profiles write CSV files');
  // Built before any order is read: its options are checked here (UsageError, exit 2).
  const accountingRun: AccountingRun | undefined = options.accounting && {
    path: options.path,
    store,
    options: options.accounting,
    currencyDecimals: options.currencyDecimals ?? currencyDecimals(store.currency),
    basis: options.basis ?? 'paid',
    invoiceDate: 'created',
    now: options.now ?? new Date(),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.publishedPath ? { publishedPath: options.publishedPath } : {}),
  };
  const accounting = accountingRun
    ? accountingRun.options.journal !== undefined
      ? new JournalExport(accountingRun)
      : new AccountingExport(accountingRun)
    : undefined;
  const progress = (phase: ExportOrdersProgress['phase']): void => {
    onProgress?.({
      ordersRead: stats.ordersRead,
      ordersWritten: stats.ordersWritten,
      linesWritten: stats.linesWritten,
      checks: stats.checks,
      phase,
    });
  };

  /** The orders to write, after filters, dedupe and the incremental selection. */
  async function* selected(): AsyncGenerator<Order> {
    for await (const order of options.orders) {
      stats.ordersRead++;
      if (stats.ordersRead % 500 === 0) progress('writing');
      if (since !== undefined || until !== undefined) {
        const created = Date.parse(order.created_at);
        if ((since !== undefined && !(created >= since)) || (until !== undefined && !(created < until))) {
          counts.skipped++;
          continue;
        }
      }
      if (updatedSince !== undefined && !(Date.parse(order.updated_at) >= updatedSince)) {
        counts.skipped++;
        continue;
      }
      // An order a feed invoiced is read whatever its status now: a refund must reach the books.
      if (
        selection &&
        !matchesSelection(order, selection) &&
        options.ledger?.orders[order.id] === undefined
      ) {
        counts.skipped++;
        continue;
      }
      if (seen?.has(order.id)) {
        counts.duplicates++;
        continue;
      }
      if (incremental && !incremental.accept(order)) {
        counts.skipped++;
        continue;
      }
      seen?.add(order.id);
      yield order;
      incremental?.record(order);
      stats.ordersWritten++;
    }
  }

  const countOnly = (order: Order): void => {
    stats.linesWritten += order.line_items.length;
    const found = orderChecks(order, store);
    stats.checks += found.length;
    if (found.length > 0) stats.ordersWithChecks++;
    summary.add(order, found.length);
  };
  let paths: ExportOrdersResult['paths'];
  let invoices: ExportOrdersResult['invoices'];
  const sheets: string[] = [];
  if (options.dryRun) {
    for await (const order of selected()) countOnly(order);
    paths = { orders: options.path };
  } else if (options.format === 'json') {
    await writeJsonArrayFile(options.path, selected(), countOnly);
    paths = { orders: options.path };
  } else if (accounting) {
    // (A dry run took the first branch: the export was built only to check its options.)
    let ok = false;
    try {
      await accounting.start();
      for await (const order of selected()) {
        countOnly(order);
        await accounting.write(order);
      }
      progress('finishing');
      ok = true;
    } finally {
      if (!ok) await accounting.abort().catch(() => undefined);
    }
    accountingResult = await accounting.close();
    paths = { orders: options.path, parts: accountingResult.paths.invoices };
    staleParts = await accounting.staleParts();
    invoices = {
      invoices: accountingResult.invoices,
      rows: accountingResult.rows,
      files: accountingResult.files,
      withDifference: accountingResult.withDifference,
    };
  } else {
    const decimals = options.currencyDecimals ?? currencyDecimals(store.currency);
    const csv = options.format === 'csv';
    const linesPath = csv ? suffixedPath(options.path, '-lines') : options.path;
    const checksPath = csv ? suffixedPath(options.path, '-checks') : options.path;
    const summaryPath = csv ? suffixedPath(options.path, '-summary') : options.path;
    const headers = options.headers ?? (csv ? 'fields' : 'labels');
    const writer = createSheetWriter(options.path, {
      format: options.format,
      currencyDecimals: decimals,
      timezone: store.timezone,
      thread: options.thread ?? true,
      ...(options.csvDelimiter === undefined ? {} : { csvDelimiter: options.csvDelimiter }),
      ...(options.decimalComma === undefined ? {} : { decimalComma: options.decimalComma }),
    });
    const withSummary = options.summary ?? true;
    let ok = false;
    try {
      const maxRows = csv ? Number.POSITIVE_INFINITY : (options.maxRowsPerSheet ?? XLSX_MAX_DATA_ROWS);
      if (withSummary) sheets.push(SUMMARY_SHEET);
      const ordersSheet = await RollingSheet.open(
        writer,
        { name: ORDERS_SHEET, columns: withHeaders(ORDER_COLUMNS, headers, ORDERS_SHEET) },
        options.path,
        maxRows,
        sheets,
      );
      const linesSheet = await RollingSheet.open(
        writer,
        { name: ORDER_LINES_SHEET, columns: withHeaders(ORDER_LINE_COLUMNS, headers, ORDER_LINES_SHEET) },
        linesPath,
        maxRows,
        sheets,
      );
      const checksSheet = await RollingSheet.open(
        writer,
        { name: CHECKS_SHEET, columns: withHeaders(CHECK_COLUMNS, headers, CHECKS_SHEET) },
        checksPath,
        maxRows,
        sheets,
      );
      // Added last, so the large sheets stream straight into the workbook; shown first (`firstTab`).
      const summarySheet = withSummary
        ? await writer.addSheet(
            {
              name: SUMMARY_SHEET,
              columns: withHeaders(SUMMARY_COLUMNS, headers, SUMMARY_SHEET),
              firstTab: true,
              // One landscape page with a title: the sheet an accountant prints.
              print: { landscape: true, onePage: true, title: summaryTitle(options) },
            },
            summaryPath,
          )
        : null;
      // A write returns a promise only when the writer asks to wait: awaited then alone.
      for await (const order of selected()) {
        let wait = ordersSheet.write(orderRow(order, store));
        if (wait) await wait;
        for (const row of orderLineRows(order, store)) {
          wait = linesSheet.write(row);
          if (wait) await wait;
          stats.linesWritten++;
        }
        const found = orderChecks(order, store);
        if (found.length > 0) stats.ordersWithChecks++;
        summary.add(order, found.length);
        for (const check of found) {
          wait = checksSheet.write(checkRow(order, check));
          if (wait) await wait;
          stats.checks++;
        }
      }
      progress('finishing');
      if (summarySheet) {
        for (const row of summary.rows()) {
          const wait = summarySheet.write(summarySheetRow(row));
          if (wait) await wait;
        }
        await summarySheet.end();
      }
      await ordersSheet.end();
      await linesSheet.end();
      await checksSheet.end();
      ok = true;
    } finally {
      // On failure abort (temporary files discarded, the previous target files untouched): closing
      // would publish the partial rows. The first error wins.
      if (!ok) await writer.abort().catch(() => undefined);
    }
    await writer.close();
    paths = csv
      ? {
          orders: options.path,
          lines: linesPath,
          checks: checksPath,
          ...(withSummary ? { summary: summaryPath } : {}),
        }
      : { orders: options.path };
  }
  progress('done');
  const shown = options.publishedPath ?? ((p: string): string => p);
  return {
    orders: stats.ordersWritten,
    lines: stats.linesWritten,
    checks: stats.checks,
    ordersWithChecks: stats.ordersWithChecks,
    ordersRead: stats.ordersRead,
    duplicates: counts.duplicates,
    skipped: counts.skipped,
    paths: mapPaths(paths, shown),
    summary: summary.rows(),
    ...(invoices ? { invoices } : {}),
    ...(accountingResult ? { accounting: accountingResult } : {}),
    ...(staleParts ? { staleParts } : {}),
    ...(sheets.length > 0 && options.format === 'xlsx' ? { sheets } : {}),
  };
}

function mapPaths(
  paths: ExportOrdersResult['paths'],
  shown: (path: string) => string,
): ExportOrdersResult['paths'] {
  const out: ExportOrdersResult['paths'] = { orders: shown(paths.orders) };
  if (paths.lines !== undefined) out.lines = shown(paths.lines);
  if (paths.checks !== undefined) out.checks = shown(paths.checks);
  if (paths.summary !== undefined) out.summary = shown(paths.summary);
  if (paths.parts !== undefined) out.parts = paths.parts.map(shown);
  return out;
}

/** The printed summary's title: store, period, zone and export time. */
function summaryTitle(options: ExportOrdersOptions & { filter: OrderExportFilter }): string {
  const { store, filter, period } = options;
  const zone = store.timezone;
  const day = (d: Date, shift = 0): string => localDateInZone(new Date(d.getTime() + shift), zone);
  const from = period?.since ?? (filter.since ? day(filter.since) : null);
  // `until` is exclusive (the next day's start): the last day is the day before.
  const to = period?.until ?? (filter.until ? day(filter.until, -1) : null);
  const span =
    from && to
      ? `orders created ${from} to ${to}`
      : from
        ? `orders created from ${from}`
        : to
          ? `orders created until ${to}`
          : 'all orders';
  const changed = filter.updatedSince ? `, changed since ${filter.updatedSince.toISOString()}` : '';
  const now = options.now ?? new Date();
  const at = `${localDateInZone(now, zone)} ${new Date(now.getTime() + zoneOffsetMs(now.getTime(), zone)).toISOString().slice(11, 16)}`;
  return `${store.name ?? store.id}: ${span}${changed} (${zone}), exported ${at}`;
}

export { suffixedPath };
