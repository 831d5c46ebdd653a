import { UsageError } from '../errors/usage-error.js';
import type { Order } from '../schema/order.js';
import type { SheetWriter } from '../sheets/sheet-writer.js';
import {
  checkPaymentAccounts,
  EMPTY_ACCOUNTS,
  hasPaymentAccounts,
  parseAccounts,
} from './accounting-accounts.js';
import type { AccountingResult, AccountingRun } from './accounting-export.js';
import { createImportFileWriter, DocumentParts, writeTotalsSheet } from './accounting-files.js';
import {
  journalAccountFor,
  journalLineText,
  JournalBook,
  periodText,
  type Journal,
  type JournalPeriod,
} from './accounting-journal.js';
import {
  formatInvoiceDate,
  JOURNAL_COLUMNS,
  JOURNAL_LINES_PER_FILE,
  PROFILE_DATE_FORMAT,
  type InvoiceDateFormat,
} from './accounting-profile.js';
import { taxPolicy } from './accounting-tax.js';
import { xeroJournalTax } from './xero-journal-tax.js';

type Row = Record<string, string | number | null>;

/** What a journal export wrote, beside AccountingResult's counts. */
export interface JournalResult {
  period: JournalPeriod;
  /** Every journal written, with its lines (debit positive). */
  entries: Journal[];
  /** Journal lines written. */
  lines: number;
}

/**
 * A journal profile export (`--profile xero-journal|quickbooks-journal`): the journals of the
 * orders written (JournalBook), in the program's manual journal import columns, split into files
 * of at most the program's line limit (a journal never straddles two), and the totals file. Its
 * options are checked when it is created: payments go to clearing accounts (`payment=`,
 * `payment.METHOD=`), required; `--payments` is refused (payments are lines of the journal).
 */
export class JournalExport {
  private readonly writer: SheetWriter;
  private readonly book: JournalBook;
  private readonly parts: DocumentParts;
  private readonly period: JournalPeriod;
  readonly taxMode: AccountingResult['tax'];
  private readonly dateFormat: InvoiceDateFormat;
  private readonly zeroRate: string;
  /** Xero with the store's rate on its lines (null: tax a line of its own, every line at the zero rate). */
  private readonly xeroRates: { percent: number; taxed: string } | null;
  private readonly roundingAccount: string;
  private readonly storeName: string;

  constructor(private readonly run: AccountingRun) {
    const o = run.options;
    const profile = o.profile;
    const name = `${profile}-journal`;
    this.period = o.journal ?? 'day';
    const accounts = o.accounts === undefined ? EMPTY_ACCOUNTS : parseAccounts(o.accounts);
    if (o.accountCode !== undefined && accounts.lines.sales === undefined)
      accounts.lines.sales = o.accountCode;
    if (o.payments !== undefined) {
      throw new UsageError(
        `--profile ${name}: payments are lines of the journal (cleared per payment method): drop --payments`,
        'payments',
      );
    }
    if (!hasPaymentAccounts(accounts)) {
      throw new UsageError(
        `--profile ${name} posts each day's payments to a clearing account per payment method: add payment=ACCOUNT (and payment.METHOD=ACCOUNT per method, e.g. payment.card=…) to --accounts`,
        'accounts',
      );
    }
    checkPaymentAccounts(accounts, profile, { payments: false, journal: true });
    const dateFormat = o.dateFormat ?? PROFILE_DATE_FORMAT[profile];
    if (profile === 'xero' && dateFormat !== 'DD/MM/YYYY') {
      throw new UsageError(
        `--profile xero-journal: Xero's manual journal import takes dates as DD/MM/YYYY only: drop --date-format`,
        'date-format',
      );
    }
    const tax = journalAccountFor('tax', accounts, profile) as string;
    if (tax === journalAccountFor('sales', accounts, profile)) {
      throw new UsageError(
        `--accounts: tax=${tax} is the sales account: name the tax liability account`,
        'accounts',
      );
    }
    const taxOptions = {
      ...(o.taxType === undefined ? {} : { taxType: o.taxType }),
      ...(o.zeroTaxType === undefined
        ? profile === 'quickbooks'
          ? { zeroTaxType: '' }
          : {}
        : { zeroTaxType: o.zeroTaxType }),
    };
    // The book keeps net lines and the store's tax as a line of its own on the tax account.
    // QuickBooks (its journal import has no tax column: its zero rate is never written), and Xero
    // when --accounts names a tax account (rates that cannot express the store's tax), write it so,
    // every line at the rate with no tax. Otherwise Xero's lines carry the store's rate where its
    // tax covers them and Xero computes the tax (xeroJournalTax), as its VAT/GST return needs.
    const policy = taxPolicy(run.store, profile, taxOptions, {
      ...accounts,
      lines: { ...accounts.lines, tax },
    });
    const rates =
      profile === 'xero' && accounts.lines.tax === undefined
        ? taxPolicy(run.store, profile, taxOptions, accounts)
        : null;
    this.xeroRates = rates === null ? null : { percent: rates.percent, taxed: rates.taxed };
    this.roundingAccount = journalAccountFor('rounding', accounts, profile) as string;
    this.taxMode = rates
      ? { mode: 'exclusive', importAs: 'tax exclusive', taxType: rates.taxed, zeroTaxType: rates.zero }
      : { mode: 'line', importAs: 'tax exclusive', taxType: policy.zero, zeroTaxType: policy.zero };
    this.book = new JournalBook({
      profile,
      store: run.store,
      policy,
      accounts,
      basis: run.basis,
      period: this.period,
      postingDate: o.invoiceDate ?? run.invoiceDate,
      now: run.now,
      ...(run.ledger ? { ledger: run.ledger } : {}),
    });
    this.dateFormat = dateFormat;
    this.zeroRate = rates ? rates.zero : policy.zero;
    this.storeName = run.store.name ?? 'Store';
    this.writer = createImportFileWriter(run);
    this.parts = new DocumentParts(
      this.writer,
      run.path,
      'journals',
      JOURNAL_COLUMNS[profile],
      Number.POSITIVE_INFINITY,
      'journals',
      JOURNAL_LINES_PER_FILE[profile],
    );
  }

  async start(): Promise<void> {
    await this.parts.start();
  }

  /** Posts an order (the journals are written on close: a period's lines are sums over its orders). */
  write(order: Order): Promise<void> {
    this.book.add(order);
    return Promise.resolve();
  }

  /** Writes the journals, the totals file, and finishes every file. */
  async close(): Promise<AccountingResult> {
    const rates = this.xeroRates;
    const journals = this.book
      .journals()
      .map((j) =>
        rates ? xeroJournalTax(j, { percent: rates.percent, roundingAccount: this.roundingAccount }) : j,
      );
    const runStamp = this.run.now.toISOString();
    for (const j of journals) {
      const rows = this.rows(j, runStamp);
      // Debits as the ledger gets them (with Xero's tax on its lines as its own postings), and the
      // tax: the program's on the lines, or the tax lines'.
      const debits = j.lines.reduce((s, l) => s + Math.max(l.amount, 0) + Math.max(l.tax ?? 0, 0), 0);
      const tax = -j.lines.reduce((s, l) => s + (l.label === 'Tax' ? l.amount : 0) + (l.tax ?? 0), 0);
      await this.parts.write(rows, debits, tax);
    }
    const shown = this.run.publishedPath ?? ((p: string): string => p);
    const { totals, path: totalsPath } = await writeTotalsSheet(
      this.writer,
      this.run.path,
      this.parts.totals,
      this.run.store.currency,
      shown,
    );
    await this.writer.close();
    const lines = journals.reduce((s, j) => s + j.lines.length, 0);
    return {
      invoices: 0,
      creditNotes: 0,
      payments: 0,
      rows: lines,
      files: this.parts.paths.length,
      withDifference: 0,
      tax: this.taxMode,
      totals,
      changes: { orders: 0, unchanged: 0, credited: 0, reinvoiced: 0, entries: [] },
      paths: { invoices: this.parts.paths.map(shown), totals: totalsPath },
      journals: { period: this.period, entries: journals, lines },
    };
  }

  private rows(j: Journal, runStamp: string): Row[] {
    const profile = this.run.options.profile;
    const date = formatInvoiceDate(j.date, this.dateFormat);
    const narration = `${this.storeName}: sales ${periodText(j.period)}`;
    if (profile === 'xero') {
      const rates = this.xeroRates;
      return j.lines.map((l) => ({
        narration,
        date,
        description: journalLineText(l),
        account: l.account,
        tax:
          rates !== null && l.label !== 'Tax' && l.rate === rates.percent && rates.percent !== 0
            ? rates.taxed
            : this.zeroRate,
        amount: l.amount,
        tracking_name1: null,
        tracking_option1: null,
        tracking_name2: null,
        tracking_option2: null,
      }));
    }
    // A journal number per period and run (a later run's lines for the same period are a journal
    // of their own): `J20261123-281905` (period's date, run's day, hour and minute, UTC).
    const number = `J${j.date.replaceAll('-', '')}-${runStamp.slice(8, 10)}${runStamp.slice(11, 13)}${runStamp.slice(14, 16)}`;
    return j.lines.map((l) => ({
      number,
      date,
      account: l.account,
      debit: l.amount > 0 ? l.amount : null,
      credit: l.amount < 0 ? -l.amount : null,
      description: `${narration}: ${journalLineText(l)}`,
      name: null,
    }));
  }

  staleParts(): Promise<string[]> {
    return this.parts.staleParts();
  }

  abort(): Promise<void> {
    return this.writer.abort();
  }
}
