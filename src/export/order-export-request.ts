import { resolve } from 'node:path';
import { UsageError } from '../errors/usage-error.js';
import { accountsText } from './accounting-accounts.js';
import { JOURNAL_PERIODS } from './accounting-journal.js';
import { parseContactMode } from './accounting-contacts.js';
import {
  INVOICE_DATE_FORMATS,
  INVOICE_DATE_RULES,
  type AccountingOptions,
  type AccountingProfile,
} from './accounting-profile.js';
import { formatOfPath } from './catalog-sheet.js';
import type { OrderExportFormat } from './export-orders.js';
import { DEFAULT_FEED } from './feed-state-key.js';
import type { FeedStep } from './feed-publish.js';
import type { HeaderStyle } from './order-column-labels.js';
import type { OrderPeriod } from './order-period.js';
import {
  intersectSelections,
  isEmptySelection,
  orderExportReads,
  parseStatusList,
  REVENUE_BASES,
  REVENUE_SELECTION,
  SELECTION_VALUES,
  selectionText,
  type OrderListQuery,
  type OrderSelection,
  type RevenueBasis,
} from './order-selection.js';
import { DEFAULT_EXPORT_STATE_FILE } from './watermark.js';

/** The profiles `profile` takes: the programs' invoice imports, and their summary journals. */
export const ORDER_EXPORT_PROFILES = ['xero', 'quickbooks', 'xero-journal', 'quickbooks-journal'] as const;
export type OrderExportProfile = (typeof ORDER_EXPORT_PROFILES)[number];
export const ORDER_EXPORT_FORMATS: readonly OrderExportFormat[] = ['xlsx', 'csv', 'json'];

/**
 * An order export as a user asks for it (the CLI's flags, the MCP tool's arguments): text as
 * typed, checked by resolveOrderExport. Every problem is a UsageError (exit 2) whose `option` names
 * the flag (`tax-type`), found before the store is asked anything.
 */
export interface OrderExportRequest {
  /** The file: `.xlsx`, `.csv` or `.json`; may hold `{date}` and `{to}` (and with a feed `{from}`). */
  file: string;
  /** Relative paths (the file, `payments`, an `accounts` mapping file, `stateFile`) start here. Default: the process's. */
  cwd?: string;
  /** Status sets: comma-separated text or a list. Default: all. */
  status?: string | readonly string[] | undefined;
  paymentStatus?: string | readonly string[] | undefined;
  fulfillmentStatus?: string | readonly string[] | undefined;
  /** Only revenue: paid, not cancelled or draft. Default false. */
  revenue?: boolean | undefined;
  /** Days (`YYYY-MM-DD`, store zone); `updatedSince` also a date-time. */
  since?: string | undefined;
  until?: string | undefined;
  updatedSince?: string | undefined;
  headers?: string | undefined;
  /** One character; `\t` and `tab` name a tab. */
  csvDelimiter?: string | undefined;
  decimalComma?: boolean | undefined;
  profile?: string | undefined;
  dateFormat?: string | undefined;
  accountCode?: string | undefined;
  taxType?: string | undefined;
  zeroTaxType?: string | undefined;
  invoicePrefix?: string | undefined;
  /** Journal profiles: one journal per `day` (default), `week` or `month`. */
  journalPeriod?: string | undefined;
  /** `kind=account` pairs, or a mapping file's path. */
  accounts?: string | undefined;
  invoiceDate?: string | undefined;
  contact?: string | undefined;
  /** The payments file (profiles). */
  payments?: string | undefined;
  /** Default 0. */
  dueDays?: number | undefined;
  basis?: string | undefined;
  /** An incremental feed (`full` implies it). Default false. */
  incremental?: boolean | undefined;
  full?: boolean | undefined;
  feed?: string | undefined;
  dryRun?: boolean | undefined;
  stateFile?: string | undefined;
  /** Default 10. */
  overlapMinutes?: number | undefined;
  /** A feed's publish steps (tests). */
  onStep?: ((step: FeedStep) => void) | undefined;
}

/** A checked order export: what exportOrders / exportOrdersIncremental take, less the orders and store. */
export interface ResolvedOrderExport {
  path: string;
  format: OrderExportFormat;
  selection: OrderSelection;
  /** The API list queries that cover the selection. */
  reads: OrderListQuery[];
  /** The selection as text (`payment_status=paid…`), '' for all orders. */
  selectionText: string;
  period: OrderPeriod;
  headers?: HeaderStyle;
  csvDelimiter?: string;
  decimalComma?: boolean;
  accounting?: AccountingOptions;
  basis?: RevenueBasis;
  feed?: {
    feed: string;
    full: boolean;
    dryRun: boolean;
    stateFile: string;
    overlapMs: number;
    onStep?: (step: FeedStep) => void;
  };
}

function oneOf<T extends string>(
  option: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new UsageError(`--${option} must be one of ${allowed.join(', ')} (got "${value}")`, option);
}

function statusList(
  option: string,
  value: string | readonly string[] | undefined,
  allowed: readonly string[],
): string[] | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(',');
  try {
    return parseStatusList(option, text, allowed);
  } catch (error) {
    throw new UsageError((error as Error).message, option);
  }
}

/** The status sets and `revenue`. */
function selectionOf(r: OrderExportRequest): OrderSelection {
  let selection: OrderSelection = {};
  const o = statusList('status', r.status, SELECTION_VALUES.order_status);
  const p = statusList('payment-status', r.paymentStatus, SELECTION_VALUES.payment_status);
  const f = statusList('fulfillment-status', r.fulfillmentStatus, SELECTION_VALUES.fulfillment_status);
  if (o) selection.order_status = o;
  if (p) selection.payment_status = p;
  if (f) selection.fulfillment_status = f;
  if (r.revenue) selection = intersectSelections(selection, REVENUE_SELECTION);
  if (isEmptySelection(selection)) {
    throw new UsageError(
      '--revenue takes paid orders that are not cancelled or draft: with these --status/--payment-status values nothing would be exported',
      'revenue',
    );
  }
  return selection;
}

/** `--csv-delimiter`: one character; `\t` and `tab` name a tab. */
function delimiterOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value === '\\t' || value.toLowerCase() === 'tab' ? '\t' : value;
  if (v.length !== 1 || /["\r\n]/.test(v)) {
    throw new UsageError(
      `--csv-delimiter must be one character such as ';' (got ${JSON.stringify(value)})`,
      'csv-delimiter',
    );
  }
  return v;
}

/** The file's format and the CSV conventions. */
function fileOf(r: OrderExportRequest) {
  const headers = oneOf('headers', r.headers, ['labels', 'fields'] as const);
  const csvDelimiter = delimiterOf(r.csvDelimiter);
  const format = formatOfPath(r.file);
  if (format === undefined || !ORDER_EXPORT_FORMATS.includes(format)) {
    throw new UsageError(
      `mbulk export orders: the file must end in ${ORDER_EXPORT_FORMATS.map((f) => `.${f}`).join(', ')} (got ${r.file})`,
      'file',
    );
  }
  if ((csvDelimiter !== undefined || r.decimalComma) && format !== 'csv') {
    throw new UsageError(
      '--csv-delimiter and --decimal-comma are for CSV exports (name a .csv file)',
      csvDelimiter !== undefined ? 'csv-delimiter' : 'decimal-comma',
    );
  }
  if (r.decimalComma && csvDelimiter === ',') {
    throw new UsageError(
      "--decimal-comma needs a delimiter other than ',' (e.g. --csv-delimiter ';')",
      'decimal-comma',
    );
  }
  // A decimal comma with comma-separated fields would split every amount: it implies ';'.
  const delimiter = csvDelimiter ?? (r.decimalComma ? ';' : undefined);
  return {
    format,
    ...(headers === undefined ? {} : { headers }),
    ...(delimiter === undefined ? {} : { csvDelimiter: delimiter }),
    ...(r.decimalComma ? { decimalComma: true } : {}),
  };
}

/** `profile` and its options. */
async function accountingOf(
  r: OrderExportRequest,
  format: OrderExportFormat,
  cwd: string,
): Promise<AccountingOptions | undefined> {
  const chosen = oneOf('profile', r.profile, ORDER_EXPORT_PROFILES);
  // A journal profile is its program's profile with summary journals instead of invoices.
  const profile: AccountingProfile | undefined =
    chosen === 'xero-journal' ? 'xero' : chosen === 'quickbooks-journal' ? 'quickbooks' : chosen;
  const period = oneOf('journal-period', r.journalPeriod, JOURNAL_PERIODS);
  if (period !== undefined && !chosen?.endsWith('-journal')) {
    throw new UsageError(
      '--journal-period goes with --profile xero-journal or --profile quickbooks-journal',
      'journal-period',
    );
  }
  const journal = chosen?.endsWith('-journal') ? (period ?? 'day') : undefined;
  const dateFormat =
    r.dateFormat === undefined
      ? undefined
      : INVOICE_DATE_FORMATS.find((f) => f === r.dateFormat?.trim().toUpperCase());
  if (r.dateFormat !== undefined && dateFormat === undefined) {
    throw new UsageError(
      `--date-format must be one of ${INVOICE_DATE_FORMATS.join(', ')} (got "${r.dateFormat}")`,
      'date-format',
    );
  }
  const dueDays = r.dueDays ?? 0;
  if (!(Number.isInteger(dueDays) && dueDays >= 0)) {
    throw new UsageError('--due-days must be a whole number of days >= 0', 'due-days');
  }
  const invoiceDate = oneOf('invoice-date', r.invoiceDate, INVOICE_DATE_RULES);
  const profileOnly = {
    'date-format': dateFormat,
    'account-code': r.accountCode,
    'tax-type': r.taxType,
    'zero-tax-type': r.zeroTaxType,
    'invoice-prefix': r.invoicePrefix,
    accounts: r.accounts,
    'invoice-date': invoiceDate,
    contact: r.contact,
    payments: r.payments,
  };
  if (profile === undefined) {
    const given = Object.entries(profileOnly)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (given.length > 0) {
      throw new UsageError(
        `${given.map((k) => `--${k}`).join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --profile xero, quickbooks, xero-journal or quickbooks-journal`,
        given[0],
      );
    }
    return undefined;
  }
  if (format !== 'csv') {
    throw new UsageError(`--profile ${chosen} writes CSV: name a .csv file (got ${r.file})`, 'profile');
  }
  if (r.csvDelimiter !== undefined || r.decimalComma || r.headers !== undefined) {
    throw new UsageError(
      `--profile ${chosen} writes the program's own columns, comma-separated with a decimal point: drop --csv-delimiter, --decimal-comma and --headers`,
      'profile',
    );
  }
  // Checked now, before the store is asked anything.
  if (r.contact !== undefined) parseContactMode(r.contact);
  const accounts = r.accounts === undefined ? undefined : await accountsText(r.accounts, cwd);
  return {
    profile,
    ...(journal === undefined ? {} : { journal }),
    dueDays,
    ...(dateFormat === undefined ? {} : { dateFormat }),
    ...(r.accountCode === undefined ? {} : { accountCode: r.accountCode }),
    ...(r.taxType === undefined ? {} : { taxType: r.taxType }),
    ...(r.zeroTaxType === undefined ? {} : { zeroTaxType: r.zeroTaxType }),
    ...(r.invoicePrefix === undefined ? {} : { invoicePrefix: r.invoicePrefix }),
    ...(accounts === undefined ? {} : { accounts }),
    ...(invoiceDate === undefined ? {} : { invoiceDate }),
    ...(r.contact === undefined ? {} : { contact: r.contact }),
    ...(r.payments === undefined ? {} : { payments: resolve(cwd, r.payments) }),
  };
}

/** The incremental feed's options. */
function feedOf(r: OrderExportRequest, cwd: string): ResolvedOrderExport['feed'] {
  const incremental = r.incremental === true || r.full === true;
  if (!incremental) {
    if (r.feed !== undefined || r.dryRun) {
      throw new UsageError(
        '--feed and --dry-run go with --incremental',
        r.feed !== undefined ? 'feed' : 'dry-run',
      );
    }
    return undefined;
  }
  const overlap = r.overlapMinutes ?? 10;
  if (!(overlap >= 0)) throw new UsageError('--overlap-minutes must be a number >= 0', 'overlap-minutes');
  const feed = (r.feed ?? DEFAULT_FEED).trim();
  if (feed === '') throw new UsageError('--feed needs a name', 'feed');
  return {
    feed,
    full: r.full === true,
    dryRun: r.dryRun === true,
    stateFile: resolve(cwd, r.stateFile ?? DEFAULT_EXPORT_STATE_FILE),
    overlapMs: overlap * 60_000,
    ...(r.onStep ? { onStep: r.onStep } : {}),
  };
}

/** Checks an order export request and resolves its paths; UsageError (exit 2) naming the flag at fault. */
export async function resolveOrderExport(r: OrderExportRequest): Promise<ResolvedOrderExport> {
  const cwd = r.cwd ?? process.cwd();
  const selection = selectionOf(r);
  const file = fileOf(r);
  const accounting = await accountingOf(r, file.format, cwd);
  const basis = oneOf('basis', r.basis, REVENUE_BASES);
  const feed = feedOf(r, cwd);
  const reads = orderExportReads(selection, {
    profile: accounting?.profile,
    incremental: feed !== undefined,
  });
  const period: OrderPeriod = {
    ...(r.since === undefined ? {} : { since: r.since }),
    ...(r.until === undefined ? {} : { until: r.until }),
    ...(r.updatedSince === undefined ? {} : { updatedSince: r.updatedSince }),
  };
  return {
    path: resolve(cwd, r.file),
    ...file,
    selection,
    reads,
    selectionText: selectionText(selection),
    period,
    ...(accounting === undefined ? {} : { accounting }),
    ...(basis === undefined ? {} : { basis }),
    ...(feed === undefined ? {} : { feed }),
  };
}
