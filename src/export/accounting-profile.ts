import { stat } from 'node:fs/promises';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import { zoneOffsetMs, type ColumnSpec, type SheetHandle, type SheetWriter } from '../sheets/sheet-writer.js';
import { suffixedPath } from './suffixed-path.js';
import { invoiceLines, type InvoiceLine } from './invoice-lines.js';

/**
 * Invoice import files for accounting programs, one row per invoice line (see invoiceLines).
 *
 * - `xero`: the columns of Xero's sales invoice import template (Business › Invoices › Import ›
 *   Download template), headers as in the template (`*` marks the columns Xero requires). Xero
 *   imports at most 500 invoices per file; dates DD/MM/YYYY or MM/DD/YYYY by the organisation's
 *   region. Amounts are one per line: `*Quantity` × `*UnitAmount`.
 * - `quickbooks`: QuickBooks Online's invoice import (Settings › Import data › Invoices), with the
 *   column headers QuickBooks maps automatically; at most 100 invoices per file; the date format
 *   is chosen in the import's mapping step.
 *
 * Each order is one invoice; its lines never straddle two files.
 */
export type AccountingProfile = 'xero' | 'quickbooks';
export type InvoiceDateFormat = 'DD/MM/YYYY' | 'MM/DD/YYYY' | 'YYYY-MM-DD';
export const INVOICE_DATE_FORMATS: readonly InvoiceDateFormat[] = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD'];

export const PROFILE_INVOICES_PER_FILE: Record<AccountingProfile, number> = { xero: 500, quickbooks: 100 };
export const PROFILE_DATE_FORMAT: Record<AccountingProfile, InvoiceDateFormat> = {
  xero: 'DD/MM/YYYY',
  quickbooks: 'MM/DD/YYYY',
};

export interface AccountingOptions {
  profile: AccountingProfile;
  /** Invoice and due dates. Default PROFILE_DATE_FORMAT[profile]. */
  dateFormat?: InvoiceDateFormat;
  /** Xero `*AccountCode` of every line (e.g. 200, Sales). Default '200'. */
  accountCode?: string;
  /** Xero `*TaxType` / QuickBooks `Item tax code` of every line. Default: blank (the program's default). */
  taxType?: string;
  /** Days from the invoice date to the due date. Default 0 (due on the order's day). */
  dueDays?: number;
  /** Put before the order number to make the invoice number (e.g. `WEB-`). Default ''. */
  invoicePrefix?: string;
  /** Invoices per file. Default PROFILE_INVOICES_PER_FILE[profile] (the program's limit). */
  invoicesPerFile?: number;
}

const text = (key: string, header: string): ColumnSpec => ({ key, header, type: 'text' });

const XERO_COLUMNS: ColumnSpec[] = [
  text('contact', '*ContactName'),
  text('email', 'EmailAddress'),
  text('po1', 'POAddressLine1'),
  text('po2', 'POAddressLine2'),
  text('po3', 'POAddressLine3'),
  text('po4', 'POAddressLine4'),
  text('city', 'POCity'),
  text('region', 'PORegion'),
  text('zip', 'POPostalCode'),
  text('country', 'POCountry'),
  text('invoice', '*InvoiceNumber'),
  text('reference', 'Reference'),
  text('date', '*InvoiceDate'),
  text('due', '*DueDate'),
  text('item_code', 'InventoryItemCode'),
  text('description', '*Description'),
  { key: 'quantity', header: '*Quantity', type: 'number' },
  { key: 'unit', header: '*UnitAmount', type: 'money' },
  { key: 'discount', header: 'Discount', type: 'number' },
  text('account', '*AccountCode'),
  text('tax', '*TaxType'),
  text('tracking_name1', 'TrackingName1'),
  text('tracking_option1', 'TrackingOption1'),
  text('tracking_name2', 'TrackingName2'),
  text('tracking_option2', 'TrackingOption2'),
  text('currency', 'Currency'),
  text('branding', 'BrandingTheme'),
];

const QUICKBOOKS_COLUMNS: ColumnSpec[] = [
  text('invoice', 'Invoice number'),
  text('contact', 'Customer'),
  text('date', 'Invoice date'),
  text('due', 'Due date'),
  text('terms', 'Terms'),
  text('memo', 'Memo'),
  text('item', 'Item (Product/Service)'),
  text('description', 'Item Description'),
  { key: 'quantity', header: 'Item Quantity', type: 'number' },
  { key: 'unit', header: 'Item Rate', type: 'money' },
  { key: 'amount', header: 'Item Amount', type: 'money' },
  text('tax', 'Item tax code'),
  text('service_date', 'Service Date'),
];

export const PROFILE_COLUMNS: Record<AccountingProfile, readonly ColumnSpec[]> = {
  xero: XERO_COLUMNS,
  quickbooks: QUICKBOOKS_COLUMNS,
};

/** `2026-11-23` → the chosen format. */
export function formatInvoiceDate(isoDay: string, format: InvoiceDateFormat): string {
  const [y, m, d] = isoDay.split('-');
  if (format === 'DD/MM/YYYY') return `${d}/${m}/${y}`;
  if (format === 'MM/DD/YYYY') return `${m}/${d}/${y}`;
  return isoDay;
}

/** The day (`YYYY-MM-DD`) of an instant in a time zone, plus `addDays`. */
function dayInZone(iso: string, timezone: string, addDays = 0): string {
  const ms = Date.parse(iso);
  return new Date(ms + zoneOffsetMs(ms, timezone) + addDays * 86_400_000).toISOString().slice(0, 10);
}

/** The part files: `xero.csv`, `xero-2.csv`, `xero-3.csv`… */
export function partPath(path: string, part: number): string {
  return part === 1 ? path : suffixedPath(path, `-${part}`);
}

/** The rows of one order's invoice in a profile's columns. */
export function invoiceRows(
  order: Order,
  store: Pick<Store, 'tax' | 'currency' | 'timezone'>,
  options: AccountingOptions,
  lines: readonly InvoiceLine[] = invoiceLines(order, store),
): Record<string, string | number | null>[] {
  const format = options.dateFormat ?? PROFILE_DATE_FORMAT[options.profile];
  const day = dayInZone(order.created_at, store.timezone);
  const date = formatInvoiceDate(day, format);
  const due = formatInvoiceDate(dayInZone(order.created_at, store.timezone, options.dueDays ?? 0), format);
  const invoice = `${options.invoicePrefix ?? ''}${order.number}`;
  const contact = order.customer.name.trim() || order.customer.phone || 'Customer';
  const address = order.customer.address;
  return lines.map((line) =>
    options.profile === 'xero'
      ? {
          contact,
          email: order.customer.email,
          po1: address?.address1 ?? null,
          po2: address?.address2 ?? null,
          po3: address?.district ?? null,
          po4: null,
          city: address?.city ?? null,
          region: address?.state ?? null,
          zip: address?.zip ?? null,
          country: address?.country ?? null,
          invoice,
          reference: order.id,
          date,
          due,
          item_code: null,
          description: line.description,
          quantity: line.quantity,
          unit: line.unitAmount,
          discount: null,
          account: options.accountCode ?? '200',
          tax: options.taxType ?? null,
          tracking_name1: null,
          tracking_option1: null,
          tracking_name2: null,
          tracking_option2: null,
          currency: order.currency,
          branding: null,
        }
      : {
          invoice,
          contact,
          date,
          due,
          terms: null,
          memo: `Order ${order.name || order.number} (${order.id})`,
          item: null,
          description: line.description,
          quantity: line.quantity,
          unit: line.unitAmount,
          amount: line.amount,
          tax: options.taxType ?? null,
          service_date: null,
        },
  );
}

/** Writes invoices into part files of at most `invoicesPerFile` invoices each. */
export class InvoiceFiles {
  private readonly writer: SheetWriter;
  private current: SheetHandle | null = null;
  private inCurrent = 0;
  private readonly perFile: number;
  readonly paths: string[] = [];
  invoices = 0;
  rows = 0;
  /** Invoices that needed a `difference` line (the order's own amounts do not add up). */
  withDifference = 0;

  constructor(
    private readonly path: string,
    private readonly store: Pick<Store, 'tax' | 'currency' | 'timezone'>,
    private readonly options: AccountingOptions,
    currencyDecimals: number,
  ) {
    this.perFile = options.invoicesPerFile ?? PROFILE_INVOICES_PER_FILE[options.profile];
    // No BOM: importers match the first header by name, and a BOM would become part of it.
    this.writer = createSheetWriter(path, {
      format: 'csv',
      currencyDecimals,
      timezone: store.timezone,
      csvBom: false,
    });
  }

  private async open(): Promise<SheetHandle> {
    const part = this.paths.length + 1;
    const file = partPath(this.path, part);
    this.paths.push(file);
    this.inCurrent = 0;
    return this.writer.addSheet(
      { name: `${this.options.profile}_${part}`, columns: [...PROFILE_COLUMNS[this.options.profile]] },
      file,
    );
  }

  /** Opens the first file now, so that an export with no orders still writes its (header-only) file. */
  async start(): Promise<void> {
    this.current = await this.open();
  }

  async write(order: Order): Promise<void> {
    if (this.current === null || this.inCurrent >= this.perFile) {
      if (this.current) await this.current.end();
      this.current = await this.open();
    }
    const lines = invoiceLines(order, this.store);
    if (lines.some((l) => l.kind === 'difference')) this.withDifference++;
    for (const row of invoiceRows(order, this.store, this.options, lines)) {
      const wait = this.current.write(row);
      if (wait) await wait;
      this.rows++;
    }
    this.inCurrent++;
    this.invoices++;
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  /**
   * Part files after this export's last part that an earlier, larger export to the same name left
   * (`xero-4.csv`, `xero-5.csv` after a 3-part export): taken for this export's, their invoices
   * would be imported twice. Listed, never deleted.
   */
  async staleParts(): Promise<string[]> {
    const stale: string[] = [];
    for (let part = this.paths.length + 1; ; part++) {
      const file = partPath(this.path, part);
      if (!(await stat(file).catch(() => undefined))) return stale;
      stale.push(file);
    }
  }

  abort(): Promise<void> {
    return this.writer.abort();
  }
}
