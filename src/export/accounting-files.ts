import { stat } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import type { ColumnSpec, SheetHandle, SheetWriter } from '../sheets/sheet-writer.js';
import type { AccountingDocument, ChangeEntry, PaymentEntry } from './accounting-documents.js';
import {
  formatInvoiceDate,
  partPath,
  type AccountingProfile,
  type InvoiceDateFormat,
} from './accounting-profile.js';
import { suffixedPath } from './suffixed-path.js';

type Row = Record<string, string | number | null>;

/** The control totals of one file: what the program should show once it is imported. */
export interface FileTotals {
  file: string;
  /** `invoices`, `credit notes`, `payments` or `journals`. */
  document: 'invoices' | 'credit notes' | 'payments' | 'journals';
  /** Documents (payments: payment rows). */
  count: number;
  rows: number;
  /** Total as the program computes it (tax included; credit notes positive). */
  total: number;
  /** Tax in `total` as the program computes it (payments: 0). */
  tax: number;
}

/**
 * Documents of one kind written into part files of at most `perFile` documents each (`xero.csv`,
 * `xero-part2.csv`…); a document's rows never straddle two files. Each part's control totals are
 * kept for the totals file.
 */
export class DocumentParts {
  private current: SheetHandle | null = null;
  private inCurrent = 0;
  private rowsInCurrent = 0;
  readonly totals: FileTotals[] = [];

  constructor(
    private readonly writer: SheetWriter,
    private readonly path: string,
    private readonly name: string,
    private readonly columns: readonly ColumnSpec[],
    private readonly perFile: number,
    private readonly document: FileTotals['document'],
    /** Rows per file (journals: the program's line limit). Default: no limit. */
    private readonly rowsPerFile = Number.POSITIVE_INFINITY,
  ) {}

  get paths(): string[] {
    return this.totals.map((t) => t.file);
  }

  private async open(): Promise<SheetHandle> {
    const part = this.totals.length + 1;
    const file = partPath(this.path, part);
    this.totals.push({ file, document: this.document, count: 0, rows: 0, total: 0, tax: 0 });
    this.inCurrent = 0;
    this.rowsInCurrent = 0;
    return this.writer.addSheet({ name: `${this.name}_${part}`, columns: [...this.columns] }, file);
  }

  /** Opens the first file now, so that an export with nothing to write still writes its (header-only) file. */
  async start(): Promise<void> {
    this.current ??= await this.open();
  }

  async write(rows: readonly Row[], total: number, tax: number): Promise<void> {
    const full =
      this.inCurrent >= this.perFile ||
      (this.inCurrent > 0 && this.rowsInCurrent + rows.length > this.rowsPerFile);
    if (this.current === null || full) {
      if (this.current) await this.current.end();
      this.current = await this.open();
    }
    for (const row of rows) {
      const wait = this.current.write(row);
      if (wait) await wait;
    }
    const t = this.totals.at(-1) as FileTotals;
    t.count++;
    t.rows += rows.length;
    t.total += total;
    t.tax += tax;
    this.inCurrent++;
    this.rowsInCurrent += rows.length;
  }

  /** Documents written over every part. */
  get count(): number {
    return this.totals.reduce((s, t) => s + t.count, 0);
  }

  get rows(): number {
    return this.totals.reduce((s, t) => s + t.rows, 0);
  }

  /**
   * Part files after this export's last part that an earlier, larger export to the same name left
   * (`xero-part4.csv` after a 3-part export): taken for this export's, their documents would be
   * imported twice. Listed, never deleted.
   */
  async staleParts(): Promise<string[]> {
    const stale: string[] = [];
    for (let part = Math.max(this.totals.length, 1) + 1; ; part++) {
      const file = partPath(this.path, part);
      if (!(await stat(file).catch(() => undefined))) return stale;
      stale.push(file);
    }
  }
}

export interface RowOptions {
  profile: AccountingProfile;
  dateFormat: InvoiceDateFormat;
}

/** The rows of a document in its profile's columns (Xero credit notes: negative amounts). */
export function documentRows(doc: AccountingDocument, options: RowOptions): Row[] {
  const date = formatInvoiceDate(doc.date, options.dateFormat);
  const due = formatInvoiceDate(doc.due, options.dateFormat);
  const order = doc.order;
  if (options.profile === 'xero') {
    // Xero's invoice import makes a credit note of a document whose total is negative.
    const sign = doc.type === 'credit_note' ? -1 : 1;
    const address = order.customer.address;
    return doc.lines.map((line) => ({
      contact: doc.contact,
      email: order.customer.email,
      po1: address?.address1 ?? null,
      po2: address?.address2 ?? null,
      po3: address?.district ?? null,
      po4: null,
      city: address?.city ?? null,
      region: address?.state ?? null,
      zip: address?.zip ?? null,
      country: address?.country ?? null,
      number: doc.number,
      reference: doc.reference,
      date,
      due,
      item_code: null,
      description: line.description,
      quantity: line.quantity,
      unit: sign * line.unitAmount,
      discount: null,
      account: line.account,
      tax: line.taxType,
      tracking_name1: null,
      tracking_option1: null,
      tracking_name2: null,
      tracking_option2: null,
      currency: order.currency,
      branding: null,
    }));
  }
  const memo =
    doc.type === 'invoice'
      ? `Order ${order.name || order.number} (${order.id})`
      : doc.reference === order.id
        ? `Credit for order ${order.name || order.number} (${order.id}): its total is negative`
        : `Credit for invoice ${doc.reference}, order ${order.name || order.number} (${order.id})`;
  return doc.lines.map((line) => ({
    number: doc.number,
    contact: doc.contact,
    date,
    due,
    terms: null,
    memo,
    item: line.account,
    description: line.description,
    quantity: line.quantity,
    unit: line.unitAmount,
    amount: line.amount,
    tax: line.taxType,
    service_date: null,
  }));
}

export function paymentRow(p: PaymentEntry, options: RowOptions): Row {
  const order = p.order;
  return {
    number: p.number,
    contact: p.contact,
    date: formatInvoiceDate(p.date, options.dateFormat),
    amount: p.amount,
    account: p.account,
    method: p.method,
    reference: `${order.name || order.number}`,
    memo: `Order ${order.name || order.number} (${order.id}), ${p.method}`,
    currency: order.currency,
  };
}

export const CHANGE_COLUMNS: ColumnSpec[] = [
  { key: 'order_id', header: 'order_id', type: 'text' },
  { key: 'order_number', header: 'order_number', type: 'text' },
  { key: 'invoice', header: 'invoice_number', type: 'text' },
  { key: 'before', header: 'status_when_invoiced', type: 'text' },
  { key: 'after', header: 'status_now', type: 'text' },
  { key: 'total_before', header: 'total_invoiced_before', type: 'money' },
  { key: 'total_after', header: 'total_invoiced_now', type: 'money' },
  { key: 'difference', header: 'difference', type: 'money' },
  { key: 'action', header: 'action', type: 'text' },
  { key: 'updated_at', header: 'order_updated_at', type: 'text' },
];

export function changeRow(c: ChangeEntry): Row {
  return {
    order_id: c.order.id,
    order_number: c.order.number,
    invoice: c.invoice,
    before: c.statusBefore,
    after: c.statusAfter,
    total_before: c.totalBefore,
    total_after: c.totalAfter,
    difference: c.totalAfter - c.totalBefore,
    action: c.action,
    updated_at: c.order.updated_at,
  };
}

export const TOTALS_COLUMNS: ColumnSpec[] = [
  { key: 'file', header: 'file', type: 'text' },
  { key: 'document', header: 'document', type: 'text' },
  { key: 'count', header: 'count', type: 'integer' },
  { key: 'rows', header: 'rows', type: 'integer' },
  { key: 'total', header: 'total', type: 'money' },
  { key: 'tax', header: 'tax', type: 'money' },
  { key: 'currency', header: 'currency', type: 'text' },
];

/**
 * Writes `FILE-totals.csv` beside `path`: one row per file written, each named relative to the
 * totals file's folder as published (`shown`: where a feed's staged file will be), so the set of
 * files can move together. Returns the totals with each file's published path, and the totals
 * file's own.
 */
export async function writeTotalsSheet(
  writer: SheetWriter,
  path: string,
  totals: readonly FileTotals[],
  currency: string,
  shown: (path: string) => string,
): Promise<{ totals: FileTotals[]; path: string }> {
  const published = totals.map((t) => ({ ...t, file: shown(t.file) }));
  const totalsPath = suffixedPath(path, '-totals');
  const folder = dirname(shown(totalsPath));
  const sheet = await writer.addSheet({ name: 'totals', columns: TOTALS_COLUMNS }, totalsPath);
  for (const t of published) {
    const wait = sheet.write({ ...t, file: relative(folder, t.file), currency });
    if (wait) await wait;
  }
  return { totals: published, path: shown(totalsPath) };
}

/**
 * The CSV writer of an accounting import file. No BOM: importers match the first header by name,
 * and a BOM would become part of it. No formula guard: these are import files, and the apostrophe
 * would become part of the names.
 */
export function createImportFileWriter(run: {
  path: string;
  currencyDecimals: number;
  store: Pick<Store, 'timezone'>;
}): SheetWriter {
  return createSheetWriter(run.path, {
    format: 'csv',
    currencyDecimals: run.currencyDecimals,
    timezone: run.store.timezone,
    csvBom: false,
    formulaGuard: false,
  });
}
