import type { ColumnSpec } from '../sheets/sheet-writer.js';
import { zoneOffsetMs } from '../sheets/sheet-writer.js';
import { suffixedPath } from './suffixed-path.js';
import type { JournalPeriod } from './accounting-journal.js';

/**
 * Import files for accounting programs, one row per document line.
 *
 * - `xero`: the columns of Xero's sales invoice import template (Business › Invoices › Import ›
 *   Download template), headers as in the template (`*` marks the columns Xero requires). Xero
 *   imports at most 500 invoices per file; dates DD/MM/YYYY or MM/DD/YYYY by the organisation's
 *   region. Amounts are one per line: `*Quantity` × `*UnitAmount`. Credit notes go through the same
 *   import in a file of their own: an invoice whose total is negative becomes a credit note.
 * - `quickbooks`: QuickBooks Online's invoice import (Settings › Import data › Invoices), with the
 *   column headers QuickBooks maps automatically; at most 100 invoices per file; the date format
 *   is chosen in the import's mapping step. Credit notes (credit memos) through its credit-note
 *   import (Import data › Credit notes), whose headings are mapped by hand.
 * - Payments: neither program imports payments from a file of its own; the payments file has the
 *   fields payment-import apps map to the programs' payment records (see `PAYMENT_COLUMNS`).
 *
 * Each document's lines never straddle two files.
 */
export type AccountingProfile = 'xero' | 'quickbooks';
export type InvoiceDateFormat = 'DD/MM/YYYY' | 'MM/DD/YYYY' | 'YYYY-MM-DD';
export const INVOICE_DATE_FORMATS: readonly InvoiceDateFormat[] = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD'];
/** Which day an invoice is dated: the order's creation, its payment, or the export. */
export type InvoiceDateRule = 'created' | 'paid' | 'exported';
export const INVOICE_DATE_RULES: readonly InvoiceDateRule[] = ['created', 'paid', 'exported'];

export const PROFILE_INVOICES_PER_FILE: Record<AccountingProfile, number> = { xero: 500, quickbooks: 100 };
/**
 * Rows per file: QuickBooks Online's imports take spreadsheets of at most 1,000 rows (as import
 * guides state it, e.g. https://parsli.co/import-invoices-into-quickbooks-online; Intuit's own page
 * was not found); Xero states no row limit for invoices. A document never straddles two files.
 */
export const PROFILE_ROWS_PER_FILE: Record<AccountingProfile, number> = {
  xero: Number.POSITIVE_INFINITY,
  quickbooks: 999, // and the header: 1,000 rows
};
/**
 * The longest document number each program takes: QuickBooks Online's invoice and credit memo
 * number (`DocNumber`) holds 21 characters (Intuit's API reference; Zed Axis's field list for the
 * invoice import, https://support.zed-systems.com/kb/a197/import-invoices-into-quickbooks-online.aspx,
 * "DocNumber Str 21"); Xero's invoice number 255.
 */
export const PROFILE_NUMBER_LIMIT: Record<AccountingProfile, number> = { xero: 255, quickbooks: 21 };
export const PROFILE_DATE_FORMAT: Record<AccountingProfile, InvoiceDateFormat> = {
  xero: 'DD/MM/YYYY',
  quickbooks: 'MM/DD/YYYY',
};
export const PROFILE_PROGRAM: Record<AccountingProfile, string> = {
  xero: 'Xero',
  quickbooks: 'QuickBooks Online',
};

export interface AccountingOptions {
  profile: AccountingProfile;
  /** Invoice and due dates. Default PROFILE_DATE_FORMAT[profile]. */
  dateFormat?: InvoiceDateFormat;
  /**
   * Accounts (Xero) or products/services (QuickBooks) per kind of line and per payment method:
   * `sales=200,shipping=210,service-charge=215,tips=260,discount=205,rounding=860,tax=820,payment=090`,
   * or the text of a mapping file (`kind=account` per line). Defaults: DEFAULT_ACCOUNTS.
   */
  accounts?: string;
  /** `--account-code`: the sales account (kept for earlier scripts; `accounts` `sales=` wins). */
  accountCode?: string;
  /** The program's name of the store's tax rate (Xero `*TaxType`, QuickBooks `Item tax code`). Default: implied by the store's country and rate (taxPolicy), else a UsageError. */
  taxType?: string;
  /** The program's name of a rate with no tax (rounding lines, `tax=` line mode). Default: implied, else a UsageError when needed. */
  zeroTaxType?: string;
  /** `--contact`: `name`, `name-email` or `single:"NAME"`. Default: customers who share a name stay apart (ContactBook). */
  contact?: string;
  /** Which day invoices are dated. Default `created` (a feed of paid orders: `paid`). */
  invoiceDate?: InvoiceDateRule;
  /** Also write the payments of paid invoices to this file. Default: none. */
  payments?: string;
  /** Days from the invoice date to the due date. Default 0 (due on the invoice's day). */
  dueDays?: number;
  /** Put before the order number to make the invoice number (e.g. `WEB-`). Default ''. */
  invoicePrefix?: string;
  /** Invoices per file. Default PROFILE_INVOICES_PER_FILE[profile] (the program's limit). */
  invoicesPerFile?: number;
  /**
   * Summary journals instead of invoices (`--profile xero-journal|quickbooks-journal`): one journal
   * per period (`--journal-period`, default `day`), see accounting-journal.ts.
   */
  journal?: JournalPeriod;
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
  text('number', '*InvoiceNumber'),
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

const QUICKBOOKS_ITEM_COLUMNS: ColumnSpec[] = [
  text('item', 'Item (Product/Service)'),
  text('description', 'Item Description'),
  { key: 'quantity', header: 'Item Quantity', type: 'number' },
  { key: 'unit', header: 'Item Rate', type: 'money' },
  { key: 'amount', header: 'Item Amount', type: 'money' },
  text('tax', 'Item tax code'),
  text('service_date', 'Service Date'),
];

const QUICKBOOKS_COLUMNS: ColumnSpec[] = [
  text('number', 'Invoice number'),
  text('contact', 'Customer'),
  text('date', 'Invoice date'),
  text('due', 'Due date'),
  text('terms', 'Terms'),
  text('memo', 'Memo'),
  ...QUICKBOOKS_ITEM_COLUMNS,
];

const QUICKBOOKS_CREDIT_COLUMNS: ColumnSpec[] = [
  text('number', 'Credit Memo #'),
  text('contact', 'Customer'),
  text('date', 'Credit Memo Date'),
  text('memo', 'Memo'),
  ...QUICKBOOKS_ITEM_COLUMNS,
];

/** The invoice import columns of each profile. */
export const PROFILE_COLUMNS: Record<AccountingProfile, readonly ColumnSpec[]> = {
  xero: XERO_COLUMNS,
  quickbooks: QUICKBOOKS_COLUMNS,
};

/** The credit note import columns: Xero's are its invoice template's (negative amounts). */
export const CREDIT_NOTE_COLUMNS: Record<AccountingProfile, readonly ColumnSpec[]> = {
  xero: XERO_COLUMNS,
  quickbooks: QUICKBOOKS_CREDIT_COLUMNS,
};

/**
 * The payments file: the fields of Xero's payment record (invoice number, date, amount, the
 * account paid into) and of QuickBooks Online's "receive payment" as payment-import apps name them.
 */
export const PAYMENT_COLUMNS: Record<AccountingProfile, readonly ColumnSpec[]> = {
  xero: [
    text('number', 'InvoiceNumber'),
    text('contact', 'ContactName'),
    text('date', 'Date'),
    { key: 'amount', header: 'Amount', type: 'money' },
    text('account', 'AccountCode'),
    text('reference', 'Reference'),
    text('currency', 'Currency'),
  ],
  quickbooks: [
    text('date', 'Payment Date'),
    text('reference', 'Reference No.'),
    text('contact', 'Customer'),
    text('method', 'Payment Method'),
    text('memo', 'Memo'),
    text('account', 'Deposit To'),
    text('number', 'Invoice Apply'),
    { key: 'amount', header: 'Amount Received', type: 'money' },
    text('currency', 'Currency'),
  ],
};

/** `2026-11-23` → the chosen format. */
export function formatInvoiceDate(isoDay: string, format: InvoiceDateFormat): string {
  const [y, m, d] = isoDay.split('-');
  if (format === 'DD/MM/YYYY') return `${d}/${m}/${y}`;
  if (format === 'MM/DD/YYYY') return `${m}/${d}/${y}`;
  return isoDay;
}

/** The day (`YYYY-MM-DD`) of an instant in a time zone, plus `addDays`. */
export function dayInZone(instant: string | number, timezone: string, addDays = 0): string {
  const ms = typeof instant === 'number' ? instant : Date.parse(instant);
  return new Date(ms + zoneOffsetMs(ms, timezone) + addDays * 86_400_000).toISOString().slice(0, 10);
}

/** `2026-11-23` plus days. */
export function addDays(isoDay: string, days: number): string {
  return new Date(Date.parse(`${isoDay}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The part files of a split export: `xero.csv`, `xero-part2.csv`, `xero-part3.csv`… (`-partN`, so
 * a part never looks like a same-day rerun, `-runN`).
 */
export function partPath(path: string, part: number): string {
  return part === 1 ? path : suffixedPath(path, `-part${part}`);
}

/**
 * The journal profiles' columns.
 *
 * - Xero's manual journal import (Accounting › Manual journals › Import; Xero Central, "Enter
 *   multiple manual journals using an import template", https://help.xero.com/nz/ManualJournalsImport):
 *   Narration, Date (dd/mm/yyyy), Description, AccountCode (the code, `200`, not `200 - Sales`),
 *   TaxRate (the rate's full name as Xero shows it; mandatory), Amount (positive a debit, negative a
 *   credit, before tax: Xero adds each line's tax at its rate, see xeroJournalTax), then two
 *   tracking pairs; the template marks the mandatory ones with `*` (`*Narration, *Date,
 *   Description, *AccountCode, *TaxRate, *Amount`), as its invoice template does. Rows sharing a
 *   narration and a date form one journal; at most 300 lines per file.
 * - QuickBooks Online's journal entry import (Settings › Import data › Journal entries; Intuit,
 *   "Import journal entries",
 *   https://quickbooks.intuit.com/learn-support/en-au/help-article/import-export-files/import-journal-entries-quickbooks-online/L4tQBwbs7_AU_en_AU):
 *   Journal No., Journal Date, Account Name (the name, with account numbers turned off; a
 *   sub-account as `Parent:Sub`), Description, Debits, Credits, and Name (a customer or supplier,
 *   needed only on A/R and A/P lines). Rows sharing a journal number form one entry, which must
 *   balance.
 */
export const JOURNAL_COLUMNS: Record<AccountingProfile, readonly ColumnSpec[]> = {
  xero: [
    text('narration', '*Narration'),
    text('date', '*Date'),
    text('description', 'Description'),
    text('account', '*AccountCode'),
    text('tax', '*TaxRate'),
    { key: 'amount', header: '*Amount', type: 'money' },
    text('tracking_name1', 'TrackingName1'),
    text('tracking_option1', 'TrackingOption1'),
    text('tracking_name2', 'TrackingName2'),
    text('tracking_option2', 'TrackingOption2'),
  ],
  quickbooks: [
    text('number', 'Journal No.'),
    text('date', 'Journal Date'),
    text('account', 'Account Name'),
    { key: 'debit', header: 'Debits', type: 'money' },
    { key: 'credit', header: 'Credits', type: 'money' },
    text('description', 'Description'),
    text('name', 'Name'),
  ],
};

/**
 * Journal lines per file: Xero's manual journal import takes 300 (help.xero.com, above); QuickBooks
 * Online's imports take files of at most 1,000 rows. A journal never straddles two files.
 */
export const JOURNAL_LINES_PER_FILE: Record<AccountingProfile, number> = { xero: 300, quickbooks: 1000 };
