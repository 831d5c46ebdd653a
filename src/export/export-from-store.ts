import { resolve } from 'node:path';
import type { MerchantClient } from '../api/merchant-client.js';
import type { PageIterator } from '../api/paginate.js';
import type { OrderListParams } from '../api/resources/orders.js';
import { UsageError } from '../errors/usage-error.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { ledgerNet } from './accounting-ledger.js';
import { formatOfPath } from './catalog-sheet.js';
import { exportCustomers, type ExportCustomersResult } from './export-customers.js';
import { prepareExportDestination } from './export-destination.js';
import { exportOrders, type ExportOrdersResult } from './export-orders.js';
import { exportOrdersIncremental, type ExportOrdersIncrementalResult } from './export-orders-incremental.js';
import { exportProducts, type ExportProductsResult } from './export-products.js';
import { exportSnapshot, type ExportSnapshotResult } from './export-snapshot.js';
import { exportStock, type ExportStockResult } from './export-stock.js';
import { exportTemplates, type ExportTemplatesResult } from './export-templates.js';
import {
  resolveOrderExport,
  type OrderExportRequest,
  type ResolvedOrderExport,
} from './order-export-request.js';

/**
 * The one way to export from a store: the CLI (`mbulk export`), the fleet and the MCP `export`
 * tool all come here. It checks the request (UsageError naming the option, before the store is
 * asked anything), reads the store through the client (pages read ahead), writes the files (each
 * through the atomic-file primitive; a feed's staged and published with its watermark and ledger)
 * and returns the figures the files hold.
 */

export type CatalogExportKind = 'products' | 'stock' | 'customers' | 'templates' | 'snapshot';
export type StoreExportKind = 'orders' | CatalogExportKind;

/** The file formats each kind writes. */
export const EXPORT_FORMATS: Record<StoreExportKind, readonly ('csv' | 'xlsx' | 'json')[]> = {
  orders: ['xlsx', 'csv', 'json'],
  products: ['csv', 'xlsx'],
  stock: ['csv', 'xlsx'],
  customers: ['csv', 'xlsx'],
  templates: ['csv', 'xlsx', 'json'],
  snapshot: ['json'],
};

/** Progress of an export: pages read so far, and what was done (`120 orders read · 300 lines written`). */
export interface StoreExportProgress {
  pages: number;
  done: number;
  message: string;
}

export interface StoreExportHooks {
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: StoreExportProgress) => void) | undefined;
  /** The run's time (`{date}` in names, a feed's watermark). Default: now. */
  now?: Date | undefined;
}

/** What an order export did: the checked request, the store, the pages read and the result. */
export interface OrdersFromStore {
  kind: 'orders';
  store: Store;
  request: ResolvedOrderExport;
  pages: number;
  result: ExportOrdersResult;
  /** A feed's run (watermark, same-day naming, a publish it finished first). */
  incremental?: ExportOrdersIncrementalResult;
  /** An accounting feed's ledger after the run: invoiced orders and the net they stand at (minor units). */
  ledger?: { orders: number; net: number };
}

/**
 * The files an order export wrote, the orders file (or a profile's first part) first; none for a
 * feed's dry run, which writes nothing.
 */
export function orderExportFiles(done: OrdersFromStore): string[] {
  if (done.incremental?.dryRun === true) return [];
  const { result } = done;
  const acc = result.accounting;
  const files = acc
    ? [
        ...acc.paths.invoices,
        ...(acc.paths.creditNotes ?? []),
        acc.paths.payments,
        acc.paths.changes,
        acc.paths.totals,
      ]
    : [result.paths.orders, result.paths.lines, result.paths.checks, result.paths.summary];
  return files.filter((p): p is string => p !== undefined);
}

export interface CatalogExportRequest {
  kind: CatalogExportKind;
  file: string;
  /** Relative paths start here. Default: the process's. */
  cwd?: string;
  /** Money as currency units (`units`, default) or minor units (`minor`): products. */
  money?: string | undefined;
  /** CSV products: the options file. Default `<file>-options.csv`. */
  options?: string | undefined;
  /** Products: write the stock columns. Default true. */
  stock?: boolean | undefined;
}

export type CatalogFromStore = {
  store: Store;
  pages: number;
  path: string;
  format: 'csv' | 'xlsx' | 'json';
} & (
  | { kind: 'products'; result: ExportProductsResult }
  | { kind: 'stock'; result: ExportStockResult }
  | { kind: 'customers'; result: ExportCustomersResult }
  | { kind: 'templates'; result: ExportTemplatesResult }
  | { kind: 'snapshot'; result: ExportSnapshotResult }
);

export type StoreExportRequest = ({ kind: 'orders' } & OrderExportRequest) | CatalogExportRequest;
export type StoreExport = OrdersFromStore | CatalogFromStore;

/** Exports one kind from the store (see the module's doc). */
export function exportFromStore(
  client: MerchantClient,
  request: { kind: 'orders' } & OrderExportRequest,
  hooks?: StoreExportHooks,
): Promise<OrdersFromStore>;
export function exportFromStore(
  client: MerchantClient,
  request: CatalogExportRequest,
  hooks?: StoreExportHooks,
): Promise<CatalogFromStore>;
export function exportFromStore(
  client: MerchantClient,
  request: StoreExportRequest,
  hooks?: StoreExportHooks,
): Promise<StoreExport>;
export function exportFromStore(
  client: MerchantClient,
  request: StoreExportRequest,
  hooks: StoreExportHooks = {},
): Promise<StoreExport> {
  return request.kind === 'orders'
    ? exportOrdersFromStore(client, request, hooks)
    : exportCatalogFromStore(client, request, hooks);
}

/** Walks a list page by page, counting pages. */
async function* counted<T>(list: PageIterator<T>, onPage: () => void): AsyncGenerator<T> {
  for await (const page of list.pages()) {
    onPage();
    yield* page.data;
  }
}

async function exportOrdersFromStore(
  client: MerchantClient,
  request: OrderExportRequest,
  hooks: StoreExportHooks,
): Promise<OrdersFromStore> {
  const r = await resolveOrderExport(request);
  const signal = hooks.signal;
  const store = await client.me({ signal });
  let pages = 0;
  let last = { ordersRead: 0, ordersWritten: 0, linesWritten: 0 };
  const show = (): void =>
    hooks.onProgress?.({
      pages,
      done: last.ordersWritten,
      message: `${last.ordersRead} orders read · ${last.linesWritten} lines written`,
    });
  async function* orders(): AsyncGenerator<Order> {
    // The lists that cover the selection, one after another as one stream of orders.
    for (const query of r.reads) {
      yield* counted(client.orders.list(definedOnly(query) as OrderListParams, { signal }), () => {
        pages++;
        show();
      });
    }
  }
  const common = {
    orders: orders(),
    store,
    path: r.path,
    format: r.format,
    filter: { selection: r.selection },
    period: r.period,
    now: hooks.now ?? new Date(),
    ...(r.headers === undefined ? {} : { headers: r.headers }),
    ...(r.csvDelimiter === undefined ? {} : { csvDelimiter: r.csvDelimiter }),
    ...(r.decimalComma === undefined ? {} : { decimalComma: r.decimalComma }),
    ...(r.accounting === undefined ? {} : { accounting: r.accounting }),
    ...(r.basis === undefined ? {} : { basis: r.basis }),
    onProgress: (p: { ordersRead: number; ordersWritten: number; linesWritten: number }) => {
      last = p;
      show();
    },
  };
  if (r.feed === undefined) {
    const result = await exportOrders(common);
    return { kind: 'orders', store, request: r, pages, result };
  }
  const { feed, full, dryRun, stateFile, overlapMs, onStep } = r.feed;
  const incremental = await exportOrdersIncremental({
    ...common,
    feed,
    full,
    dryRun,
    stateFile,
    overlapMs,
    ...(onStep ? { onStep } : {}),
  });
  const ledger = incremental.watermark.ledger;
  return {
    kind: 'orders',
    store,
    request: r,
    pages,
    result: incremental,
    incremental,
    ...(ledger ? { ledger: { orders: Object.keys(ledger.orders).length, net: ledgerNet(ledger) } } : {}),
  };
}

async function exportCatalogFromStore(
  client: MerchantClient,
  request: CatalogExportRequest,
  hooks: StoreExportHooks,
): Promise<CatalogFromStore> {
  const { kind } = request;
  const cwd = request.cwd ?? process.cwd();
  const format = formatOfPath(request.file);
  const allowed = EXPORT_FORMATS[kind];
  if (format === undefined || !allowed.includes(format)) {
    throw new UsageError(
      `mbulk export ${kind}: the file must end in ${allowed.map((f) => `.${f}`).join(', ')} (got ${request.file})`,
      'file',
    );
  }
  const money = request.money ?? 'units';
  if (money !== 'units' && money !== 'minor') throw new UsageError('--money must be units or minor', 'money');
  const optionsPath = request.options === undefined ? undefined : resolve(cwd, request.options);
  if (optionsPath !== undefined && (kind !== 'products' || format !== 'csv')) {
    throw new UsageError('--options is for CSV product exports only', 'options');
  }
  const path = resolve(cwd, request.file);
  // An unusable destination is a usage error (exit 2), found before anything is read.
  await prepareExportDestination(path, request.file);
  const signal = { signal: hooks.signal };
  const store = await client.me(signal);
  let pages = 0;
  let done = 0;
  let message = '';
  const page = (): void => {
    pages++;
    hooks.onProgress?.({ pages, done, message });
  };
  const progress = (n: number, text: string): void => {
    done = n;
    message = text;
    hooks.onProgress?.({ pages, done, message });
  };
  const sheet = format as 'csv' | 'xlsx';
  const base = { store, path, format };
  switch (kind) {
    case 'products': {
      const result = await exportProducts({
        products: counted(client.products.list({}, signal), page),
        store,
        path,
        format: sheet,
        money,
        stock: request.stock !== false,
        ...(optionsPath !== undefined ? { optionsPath } : {}),
        onProgress: (p) => progress(p.productsRead, `${p.rowsWritten} rows written`),
      });
      return { ...base, kind, pages, result };
    }
    case 'stock': {
      const result = await exportStock({
        products: counted(client.products.list({}, signal), page),
        store,
        path,
        format: sheet,
        onProgress: (p) => progress(p.productsRead, `${p.rowsWritten} items written`),
      });
      return { ...base, kind, pages, result };
    }
    case 'customers': {
      const result = await exportCustomers({
        customers: counted(client.customers.list({}, signal), page),
        store,
        path,
        format: sheet,
        onProgress: (p) => progress(p.customersRead, 'customers'),
      });
      return { ...base, kind, pages, result };
    }
    case 'templates': {
      const result = await exportTemplates({
        templates: counted(client.templates.list({}, signal), page),
        store,
        path,
        format,
        onProgress: (p) => progress(p.templatesRead, 'templates'),
      });
      return { ...base, kind, pages, result };
    }
    case 'snapshot': {
      const result = await exportSnapshot({
        me: store,
        products: counted(client.products.list({}, signal), page),
        customers: counted(client.customers.list({}, signal), page),
        orders: counted(client.orders.list({}, signal), page),
        templates: counted(client.templates.list({}, signal), page),
        path,
        onProgress: (p) => progress(p.items, p.section),
      });
      return { ...base, kind, pages, result };
    }
  }
}

/** The object without its undefined values (exactOptionalPropertyTypes: absent, not undefined). */
function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
