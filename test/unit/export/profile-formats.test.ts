import { describe, expect, it } from 'vitest';
import {
  CREDIT_NOTE_COLUMNS,
  formatInvoiceDate,
  JOURNAL_COLUMNS,
  JOURNAL_LINES_PER_FILE,
  PAYMENT_COLUMNS,
  PROFILE_DATE_FORMAT,
  PROFILE_COLUMNS,
  PROFILE_INVOICES_PER_FILE,
} from '../../../src/export/accounting-profile.js';

/**
 * The profile files' columns against the programs' published import formats (the README's
 * "Order exports for accounting" cites the same sources).
 */
const headers = (columns: readonly { header: string }[]): string[] => columns.map((c) => c.header);

/**
 * Xero's sales invoice import template (Business › Invoices › Import › Download template), in its
 * order, `*` marking the columns Xero requires; the column list also at
 * https://docs.milientsoftware.com/help/moment-by-topic/integrations/file-exports/file-export-accounting-system/xero
 * and the instructions ("If you are importing more than 500 invoices you will need to split the
 * file") at https://online.flippingbook.com/view/399081/31/.
 */
const XERO_TEMPLATE = [
  '*ContactName', 'EmailAddress', 'POAddressLine1', 'POAddressLine2', 'POAddressLine3', 'POAddressLine4',
  'POCity', 'PORegion', 'POPostalCode', 'POCountry', '*InvoiceNumber', 'Reference', '*InvoiceDate',
  '*DueDate', 'InventoryItemCode', '*Description', '*Quantity', '*UnitAmount', 'Discount', '*AccountCode',
  '*TaxType', 'TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2', 'Currency',
  'BrandingTheme',
]; // prettier-ignore
/** Required by Xero (https://xero-help.caltrix.asia/en/articles/12528333-how-to-import-sales-invoice-into-xero). */
const XERO_REQUIRED = [
  '*ContactName',
  '*InvoiceNumber',
  '*InvoiceDate',
  '*DueDate',
  '*Description',
  '*Quantity',
  '*UnitAmount',
  '*AccountCode',
  '*TaxType',
];

/**
 * QuickBooks Online's invoice import: the headers it maps automatically, `*` mandatory (Intuit,
 * https://quickbooks.intuit.com/learn-support/en-ca/sales-and-invoicing/do-we-need-to-map-field-everytime-when-import-invoices/01/394876).
 */
const QBO_AUTO_MAPPED = [
  '*Invoice number', '*Customer', '*Invoice date', '*Due date', 'Item amount', 'Item tax code', 'Terms',
  'Service Date', 'Item (Product/Service)', 'Item Description', 'Item Quantity', 'Item Rate', '*Item Amount', 'Memo',
]; // prettier-ignore

/**
 * QuickBooks Online credit memos and received payments, as Transaction Pro's importer labels them
 * (https://importer.transactionpro.com/Importer/Docs/Import/CreditMemo.aspx,
 * https://importer.transactionpro.com/Importer/Docs/Import/ReceivePayment.aspx); QuickBooks' own
 * credit-note import maps headings by hand (https://quickbooks.intuit.com/learn-support/en-us/help-articles/how-to-import-credit-notes/00/332855).
 */
const QBO_CREDIT_MEMO_HEAD = ['Credit Memo #', 'Customer', 'Credit Memo Date', 'Memo'];
const QBO_RECEIVE_PAYMENT = [
  'Payment Date', 'Reference No.', 'Customer', 'Payment Method', 'Memo', 'Deposit To', 'Invoice Apply',
  'Amount Received', 'Currency',
]; // prettier-ignore

/**
 * Xero's payment record (invoice number, account paid into, date, amount, reference), as payment
 * import apps map it (https://support.zed-systems.com/kb/a347/import-payments-into-xero.aspx); Xero has
 * no file import of its own for payments.
 */
const XERO_PAYMENT_FIELDS = ['InvoiceNumber', 'Date', 'Amount', 'AccountCode', 'Reference'];

describe('profile columns against the published import formats', () => {
  it("xero: invoices and credit notes in the sales invoice template's columns, in its order", () => {
    expect(headers(PROFILE_COLUMNS.xero)).toEqual(XERO_TEMPLATE);
    expect(headers(CREDIT_NOTE_COLUMNS.xero)).toEqual(XERO_TEMPLATE);
    for (const required of XERO_REQUIRED) expect(XERO_TEMPLATE).toContain(required);
    expect(PROFILE_INVOICES_PER_FILE.xero).toBe(500);
  });

  it('quickbooks: every invoice header is one QuickBooks maps by itself, the mandatory ones included', () => {
    const auto = QBO_AUTO_MAPPED.map((h) => h.replace(/^\*/, '').toLowerCase());
    const ours = headers(PROFILE_COLUMNS.quickbooks).map((h) => h.toLowerCase());
    for (const h of ours) expect(auto, h).toContain(h);
    for (const m of QBO_AUTO_MAPPED.filter((h) => h.startsWith('*'))) {
      expect(ours).toContain(m.slice(1).toLowerCase());
    }
    expect(PROFILE_INVOICES_PER_FILE.quickbooks).toBe(100);
  });

  it('quickbooks credit memos and payments use the labels payment and credit-memo importers map', () => {
    expect(headers(CREDIT_NOTE_COLUMNS.quickbooks).slice(0, 4)).toEqual(QBO_CREDIT_MEMO_HEAD);
    expect(headers(CREDIT_NOTE_COLUMNS.quickbooks).slice(4)).toEqual(
      headers(PROFILE_COLUMNS.quickbooks).slice(6),
    );
    expect(headers(PAYMENT_COLUMNS.quickbooks)).toEqual(QBO_RECEIVE_PAYMENT);
  });

  it("xero payments carry every field of Xero's payment record", () => {
    for (const f of XERO_PAYMENT_FIELDS) expect(headers(PAYMENT_COLUMNS.xero)).toContain(f);
  });
});

/**
 * Xero's manual journal import (https://help.xero.com/nz/ManualJournalsImport): Narration, Date,
 * Description, AccountCode, TaxRate, Amount (positive a debit, negative a credit), two tracking
 * pairs; rows sharing narration and date form one journal; up to 300 lines a file; dd/mm/yyyy.
 * Narration, Date, AccountCode, TaxRate and Amount are mandatory: the template marks them with `*`.
 * QuickBooks Online's journal entry import (Intuit, "Import journal entries",
 * https://quickbooks.intuit.com/learn-support/en-au/help-article/import-export-files/import-journal-entries-quickbooks-online/L4tQBwbs7_AU_en_AU):
 * Journal No., Journal Date, Account Name, Description, Debits, Credits, and Name for A/R and A/P lines.
 */
const XERO_MANUAL_JOURNAL = [
  '*Narration', '*Date', 'Description', '*AccountCode', '*TaxRate', '*Amount',
  'TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2',
]; // prettier-ignore
const QBO_JOURNAL_ENTRY = [
  'Journal No.',
  'Journal Date',
  'Account Name',
  'Description',
  'Debits',
  'Credits',
  'Name',
];

describe('journal profiles against the programs’ manual journal imports', () => {
  it('xero-journal: the manual journal template’s columns in its order, 300 lines a file, dd/mm/yyyy', () => {
    expect(headers(JOURNAL_COLUMNS.xero)).toEqual(XERO_MANUAL_JOURNAL);
    expect(JOURNAL_LINES_PER_FILE.xero).toBe(300);
    expect(formatInvoiceDate('2026-11-23', PROFILE_DATE_FORMAT.xero)).toBe('23/11/2026');
  });

  it('quickbooks-journal: every column the journal entry import names, debits and credits apart', () => {
    expect([...headers(JOURNAL_COLUMNS.quickbooks)].sort()).toEqual([...QBO_JOURNAL_ENTRY].sort());
    expect(formatInvoiceDate('2026-11-23', PROFILE_DATE_FORMAT.quickbooks)).toBe('11/23/2026');
  });
});
