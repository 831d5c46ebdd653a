import type { Argv } from 'yargs';
import type { FeedStep } from '../../export/feed-publish.js';
import type { OrderExportRequest } from '../../export/order-export-request.js';
import type { GlobalArgs } from '../command-context.js';
import { helpGroups } from '../help-groups.js';

/** The flags of `mbulk export orders FILE` (every one maps to a field of the library's OrderExportRequest). */
export function orderExportOptions<T>(y: Argv<T>): Argv<T> {
  return helpGroups(
    y
      .positional('file', {
        type: 'string',
        demandOption: true,
        describe: 'Output file (.xlsx, .csv, .json); may hold {date} and {to}, and with --incremental {from}',
      })
      .option('status', {
        type: 'string',
        describe: 'Only these order_status values, comma-separated (completed,confirmed). Default: all',
      })
      .option('payment-status', {
        type: 'string',
        describe: 'Only these payment_status values, comma-separated. Default: all',
      })
      .option('fulfillment-status', {
        type: 'string',
        describe: 'Only these fulfillment_status values, comma-separated. Default: all',
      })
      .option('revenue', {
        type: 'boolean',
        default: false,
        describe: 'Only revenue: payment_status paid, and order_status not cancelled or draft',
      })
      .option('headers', {
        type: 'string',
        describe:
          'Column headers: labels (readable, XLSX notes name the field) or fields (API names). Default: XLSX labels, CSV fields',
      })
      .option('csv-delimiter', {
        type: 'string',
        describe: "CSV field delimiter, e.g. ';' for European Excel. Default ',' (';' with --decimal-comma)",
      })
      .option('decimal-comma', {
        type: 'boolean',
        default: false,
        describe: 'CSV: write decimals with a comma (12,90); implies --csv-delimiter ;',
      })
      .option('profile', {
        type: 'string',
        describe:
          'Write an invoice import CSV for xero (<= 500 invoices per file) or quickbooks (Online, <= 100 per file), or summary journals for xero-journal (manual journals) or quickbooks-journal (journal entries)',
      })
      .option('date-format', {
        type: 'string',
        describe:
          'Profiles: invoice dates as DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD. Default: xero DD/MM/YYYY, quickbooks MM/DD/YYYY',
      })
      .option('account-code', {
        type: 'string',
        describe:
          'Profiles: the sales account (same as --accounts sales=…). Default: Xero 200, QuickBooks Sales',
      })
      .option('tax-type', {
        type: 'string',
        describe:
          "Profiles: Xero *TaxType / QuickBooks Item tax code of the store's tax rate, exactly as the program names it. Default: implied by the store's country and rate where the program's defaults are known, else required",
      })
      .option('zero-tax-type', {
        type: 'string',
        describe:
          "Profiles: the program's name of a rate with no tax, for tax rounding lines (and every line with --accounts tax=). Default: implied by the store's country (Xero: Tax Exempt, No VAT…)",
      })
      .option('accounts', {
        type: 'string',
        describe:
          'Profiles: account (Xero) or product/service (QuickBooks) per kind of line and payment method: sales=200,shipping=…,service-charge=…,tips=…,discount=…,adjustment=…,rounding=…,tax=…,payment=…,payment.card=… or a mapping file (kind=account per line). Default: Xero sales 200, tips 260, rounding 860',
      })
      .option('invoice-date', {
        type: 'string',
        describe:
          "Profiles: date invoices by the order's creation, payment or the export: created|paid|exported. Default: created (an incremental feed of paid orders: paid)",
      })
      .option('contact', {
        type: 'string',
        describe:
          'Profiles: the contact of each invoice: name (customers sharing a name share a contact), name-email, or single:"NAME". Default: the name, with a short suffix for a second customer of the same name',
      })
      .option('payments', {
        type: 'string',
        describe:
          'Profiles: also write the payments of paid invoices (invoice number, date, amount, account per payment method from --accounts payment=…) to this CSV file',
      })
      .option('basis', {
        type: 'string',
        describe:
          'Revenue basis of the summary and of the invoices a profile writes: paid (cash: paid, not cancelled or draft) or accrual (confirmed or completed, whatever the payment). Default: paid',
      })
      .option('journal-period', {
        type: 'string',
        describe:
          "Journal profiles: one journal per day, week (Monday to Sunday) or month, in the store's zone. Default: day",
      })
      .option('due-days', {
        type: 'number',
        default: 0,
        describe: 'Profiles: due date = invoice date + this many days',
      })
      .option('invoice-prefix', {
        type: 'string',
        describe: "Profiles: invoice number = this prefix + the order number. Default ''",
      })
      .option('since', {
        type: 'string',
        describe: "Created on or after this day (YYYY-MM-DD, store's zone)",
      })
      .option('until', {
        type: 'string',
        describe: "Created on or before this day, inclusive (YYYY-MM-DD, store's zone)",
      })
      .option('updated-since', {
        type: 'string',
        describe: 'Updated at or after this day (YYYY-MM-DD) or date-time (ISO 8601 with offset)',
      })
      .option('incremental', {
        type: 'boolean',
        default: false,
        describe:
          'Only orders created or changed since the last run of this feed (watermark per store, feed, profile and filters)',
      })
      .option('feed', {
        type: 'string',
        describe: 'Incremental: the feed name that keeps the watermark. Default: orders',
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'Incremental: count what the next run would export; write nothing, keep the watermark',
      })
      .option('full', {
        type: 'boolean',
        default: false,
        describe: 'Export everything and restart the incremental watermark (implies --incremental)',
      })
      .option('state-file', {
        type: 'string',
        describe: 'Where incremental watermarks are kept (default: .mbulk/exports.json)',
      })
      .option('overlap-minutes', {
        type: 'number',
        default: 10,
        describe: 'Incremental: minutes re-read before the watermark (de-duplicated by order version)',
      })
      .example('$0 export orders orders.xlsx --since 2026-11-01 --until 2026-11-30', 'one month')
      .example(
        "$0 export orders 'orders-{date}.csv' --incremental --json",
        'nightly, unattended: one dated file of the new or changed orders',
      )
      .example('$0 export orders xero.csv --profile xero --revenue', 'paid orders as Xero sales invoices')
      .example('$0 export orders orders.csv --decimal-comma', "European Excel: ';' between fields, 12,90"),
    [
      ['Essentials:', ['since', 'until', 'revenue', 'profile']],
      ['Filters:', ['status', 'payment-status', 'fulfillment-status', 'updated-since', 'basis']],
      ['Incremental:', ['incremental', 'feed', 'dry-run', 'full', 'state-file', 'overlap-minutes']],
      ['Format:', ['headers', 'csv-delimiter', 'decimal-comma']],
      [
        'Accounting profiles (--profile):',
        [
          'date-format',
          'account-code',
          'tax-type',
          'zero-tax-type',
          'accounts',
          'invoice-date',
          'contact',
          'payments',
          'journal-period',
          'due-days',
          'invoice-prefix',
        ],
      ],
    ],
  ) as unknown as Argv<T>;
}

/** The flags of `mbulk export orders` (see export-orders-options.ts), as yargs gives them. */
export interface OrderExportArgs extends GlobalArgs {
  file: string;
  status?: string;
  'payment-status'?: string;
  'fulfillment-status'?: string;
  revenue: boolean;
  since?: string;
  until?: string;
  'updated-since'?: string;
  incremental: boolean;
  full: boolean;
  feed?: string;
  'dry-run': boolean;
  'state-file'?: string;
  'overlap-minutes': number;
  headers?: string;
  'csv-delimiter'?: string;
  'decimal-comma': boolean;
  profile?: string;
  'account-code'?: string;
  'tax-type'?: string;
  'date-format'?: string;
  'due-days': number;
  'invoice-prefix'?: string;
  'journal-period'?: string;
  accounts?: string;
  'zero-tax-type'?: string;
  'invoice-date'?: string;
  contact?: string;
  payments?: string;
  basis?: string;
}

/**
 * The library's request of the flags. `killAt` (test-only, `MBULK_TEST_KILL_AT`, see
 * docs/development.md): SIGKILL this process at that step of a feed's publish.
 */
export function orderExportRequest(
  args: OrderExportArgs,
  cwd: string,
  killAt: string | undefined,
): { kind: 'orders' } & OrderExportRequest {
  return {
    kind: 'orders',
    file: args.file,
    cwd,
    status: args.status,
    paymentStatus: args['payment-status'],
    fulfillmentStatus: args['fulfillment-status'],
    revenue: args.revenue,
    since: args.since,
    until: args.until,
    updatedSince: args['updated-since'],
    headers: args.headers,
    csvDelimiter: args['csv-delimiter'],
    decimalComma: args['decimal-comma'],
    profile: args.profile,
    dateFormat: args['date-format'],
    accountCode: args['account-code'],
    taxType: args['tax-type'],
    zeroTaxType: args['zero-tax-type'],
    invoicePrefix: args['invoice-prefix'],
    journalPeriod: args['journal-period'],
    accounts: args.accounts,
    invoiceDate: args['invoice-date'],
    contact: args.contact,
    payments: args.payments,
    dueDays: args['due-days'],
    basis: args.basis,
    incremental: args.incremental,
    full: args.full,
    feed: args.feed,
    dryRun: args['dry-run'],
    stateFile: args['state-file'],
    overlapMinutes: args['overlap-minutes'],
    ...(killAt
      ? { onStep: (step: FeedStep) => step === killAt && process.kill(process.pid, 'SIGKILL') }
      : {}),
  };
}
