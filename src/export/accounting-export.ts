import { UsageError } from '../errors/usage-error.js';
import type { Order } from '../schema/order.js';
import type { Store } from '../schema/store.js';
import type { SheetWriter } from '../sheets/sheet-writer.js';
import {
  checkPaymentAccounts,
  EMPTY_ACCOUNTS,
  hasPaymentAccounts,
  parseAccounts,
  type AccountMap,
} from './accounting-accounts.js';
import { ContactBook, parseContactMode } from './accounting-contacts.js';
import { AccountingBook, type ChangeEntry } from './accounting-documents.js';
import {
  createImportFileWriter,
  changeRow,
  CHANGE_COLUMNS,
  DocumentParts,
  documentRows,
  paymentRow,
  writeTotalsSheet,
  type FileTotals,
  type RowOptions,
} from './accounting-files.js';
import type { Ledger } from './accounting-ledger.js';
import type { JournalResult } from './journal-export.js';
import {
  CREDIT_NOTE_COLUMNS,
  PAYMENT_COLUMNS,
  PROFILE_COLUMNS,
  PROFILE_DATE_FORMAT,
  PROFILE_INVOICES_PER_FILE,
  PROFILE_ROWS_PER_FILE,
  type AccountingOptions,
  type InvoiceDateRule,
} from './accounting-profile.js';
import { taxPolicy, type TaxMode } from './accounting-tax.js';
import type { RevenueBasis } from './order-selection.js';
import { suffixedPath } from './suffixed-path.js';

export interface AccountingRun {
  path: string;
  store: Pick<Store, 'tax' | 'currency' | 'timezone' | 'country'> & Partial<Pick<Store, 'name'>>;
  options: AccountingOptions;
  currencyDecimals: number;
  basis: RevenueBasis;
  /** Default invoice date rule when `options.invoiceDate` is not given. */
  invoiceDate: InvoiceDateRule;
  now: Date;
  /** An accounting feed's ledger (updated in place as documents are written). */
  ledger?: Ledger;
  /** Where a file written will be once published (a feed stages its files): the totals file and the result name these. */
  publishedPath?: (path: string) => string;
}

/** What a profile export wrote, for the console, `--json` and the totals file. */
export interface AccountingResult {
  /** Invoices written (first invoices and later ones, `1001-3`). */
  invoices: number;
  creditNotes: number;
  payments: number;
  /** Rows of the invoice files. */
  rows: number;
  /** Invoice files. */
  files: number;
  /** Invoices with a "Difference to the order's stated total" line. */
  withDifference: number;
  /** Invoice lines with a negative amount (discounts, negative adjustments, rounding). */
  negativeLines?: number;
  /** How the files carry tax, and what to choose on import. */
  tax: { mode: TaxMode; importAs: 'tax inclusive' | 'tax exclusive'; taxType: string; zeroTaxType: string };
  /** Control totals per file. */
  totals: FileTotals[];
  /** Journal profiles: the journals written (the invoice counts are then 0). */
  journals?: JournalResult;
  /** Orders invoiced by an earlier run that came again (a feed): by what happened. */
  changes: {
    orders: number;
    unchanged: number;
    credited: number;
    reinvoiced: number;
    entries: ChangeSummaryEntry[];
  };
  paths: {
    invoices: string[];
    creditNotes?: string[];
    payments?: string;
    changes?: string;
    totals: string;
  };
}

export interface ChangeSummaryEntry {
  orderId: string;
  invoice: string;
  statusBefore: string;
  statusAfter: string;
  difference: number;
  action: string;
}

/**
 * A profile export (Xero or QuickBooks Online): invoices, a feed's credit notes and changes file,
 * the payments file, and the totals file. Every option is checked when it is created, before any
 * order is read: a missing tax type, an unknown account kind, a payments file without an account to
 * pay into are UsageErrors (exit 2) naming the flag.
 */
export class AccountingExport {
  private readonly writer: SheetWriter;
  private readonly book: AccountingBook;
  private readonly rowOptions: RowOptions;
  private readonly invoices: DocumentParts;
  private readonly credits: DocumentParts;
  private readonly paymentsParts: DocumentParts | null;
  private changesSheet: Awaited<ReturnType<SheetWriter['addSheet']>> | null = null;
  private readonly changes: ChangeSummaryEntry[] = [];
  private readonly changeCounts = { unchanged: 0, credited: 0, reinvoiced: 0 };
  private withDifference = 0;
  private negativeLines = 0;
  private readonly accounts: AccountMap;
  readonly taxMode: AccountingResult['tax'];

  constructor(private readonly run: AccountingRun) {
    const o = run.options;
    const profile = o.profile;
    const parsed = o.accounts === undefined ? EMPTY_ACCOUNTS : parseAccounts(o.accounts);
    this.accounts =
      o.accountCode !== undefined && parsed.lines.sales === undefined
        ? { ...parsed, lines: { ...parsed.lines, sales: o.accountCode } }
        : parsed;
    const policy = taxPolicy(run.store, profile, definedTax(o), this.accounts);
    this.taxMode = {
      mode: policy.mode,
      importAs: policy.mode === 'inclusive' ? 'tax inclusive' : 'tax exclusive',
      taxType: policy.taxed,
      zeroTaxType: policy.zero,
    };
    if (o.payments !== undefined && !hasPaymentAccounts(this.accounts)) {
      throw new UsageError(
        `--payments needs the account payments go to: add payment=ACCOUNT (and payment.METHOD=ACCOUNT per payment method) to --accounts`,
        'accounts',
      );
    }
    checkPaymentAccounts(this.accounts, profile, { payments: o.payments !== undefined, journal: false });
    const contacts = new ContactBook(parseContactMode(o.contact), run.ledger?.contacts ?? {});
    this.book = new AccountingBook({
      profile,
      store: run.store,
      policy,
      accounts: this.accounts,
      contacts,
      invoiceDate: o.invoiceDate ?? run.invoiceDate,
      basis: run.basis,
      invoicePrefix: o.invoicePrefix ?? '',
      dueDays: o.dueDays ?? 0,
      now: run.now,
      ...(run.ledger ? { ledger: run.ledger } : {}),
      payments: o.payments !== undefined,
    });
    this.rowOptions = { profile, dateFormat: o.dateFormat ?? PROFILE_DATE_FORMAT[profile] };
    this.writer = createImportFileWriter(run);
    const perFile = o.invoicesPerFile ?? PROFILE_INVOICES_PER_FILE[profile];
    this.invoices = new DocumentParts(
      this.writer,
      run.path,
      profile,
      PROFILE_COLUMNS[profile],
      perFile,
      'invoices',
      PROFILE_ROWS_PER_FILE[profile],
    );
    // A feed always writes its credit notes file; a one-shot export only when an order's total is
    // negative (a credit note, not an invoice).
    this.credits = new DocumentParts(
      this.writer,
      suffixedPath(run.path, '-credit-notes'),
      'credit_notes',
      CREDIT_NOTE_COLUMNS[profile],
      perFile,
      'credit notes',
      PROFILE_ROWS_PER_FILE[profile],
    );
    this.paymentsParts =
      o.payments === undefined
        ? null
        : new DocumentParts(
            this.writer,
            o.payments,
            'payments',
            PAYMENT_COLUMNS[profile],
            Infinity,
            'payments',
          );
  }

  /** Opens every file now, so that a run with nothing to write still writes them (headers only). */
  async start(): Promise<void> {
    await this.invoices.start();
    if (this.run.ledger) await this.credits.start();
    await this.paymentsParts?.start();
    if (this.run.ledger) {
      this.changesSheet = await this.writer.addSheet(
        { name: 'changes', columns: CHANGE_COLUMNS },
        suffixedPath(this.run.path, '-changes'),
      );
    }
  }

  async write(order: Order): Promise<void> {
    const { documents, payments, change, withDifference } = this.book.add(order);
    if (withDifference && documents.some((d) => d.type === 'invoice')) this.withDifference++;
    for (const doc of documents) {
      const parts = doc.type === 'invoice' ? this.invoices : this.credits;
      if (doc.type === 'invoice') this.negativeLines += doc.lines.filter((l) => l.amount < 0).length;
      await parts.write(documentRows(doc, this.rowOptions), doc.total, doc.tax);
    }
    for (const p of payments) {
      if (p.account === '') {
        throw new UsageError(
          `--payments: order ${order.number} was paid by ${p.method}, which has no account: add payment.${p.method}=ACCOUNT or payment=ACCOUNT to --accounts`,
          'accounts',
        );
      }
      await this.paymentsParts?.write([paymentRow(p, this.rowOptions)], p.amount, 0);
    }
    if (change) await this.recordChange(change);
  }

  private async recordChange(change: ChangeEntry): Promise<void> {
    if (change.documents.length === 0) this.changeCounts.unchanged++;
    if (change.documents.some((d) => d.type === 'credit_note')) this.changeCounts.credited++;
    if (change.documents.some((d) => d.type === 'invoice')) this.changeCounts.reinvoiced++;
    const row = changeRow(change);
    this.changes.push({
      orderId: change.order.id,
      invoice: change.invoice,
      statusBefore: change.statusBefore,
      statusAfter: change.statusAfter,
      difference: change.totalAfter - change.totalBefore,
      action: change.action,
    });
    const wait = this.changesSheet?.write(row);
    if (wait) await wait;
  }

  /** Writes the totals file and finishes every file. */
  async close(): Promise<AccountingResult> {
    const shown = this.run.publishedPath ?? ((p: string): string => p);
    const { totals, path: totalsPath } = await writeTotalsSheet(
      this.writer,
      this.run.path,
      [...this.invoices.totals, ...this.credits.totals, ...(this.paymentsParts?.totals ?? [])],
      this.run.store.currency,
      shown,
    );
    await this.writer.close();
    return {
      invoices: this.invoices.count,
      creditNotes: this.credits.count,
      payments: this.paymentsParts?.count ?? 0,
      rows: this.invoices.rows,
      files: this.invoices.paths.length,
      withDifference: this.withDifference,
      negativeLines: this.negativeLines,
      tax: this.taxMode,
      totals,
      changes: { orders: this.changes.length, ...this.changeCounts, entries: this.changes },
      paths: {
        invoices: this.invoices.paths.map(shown),
        ...(this.credits.paths.length > 0 ? { creditNotes: this.credits.paths.map(shown) } : {}),
        ...(this.run.options.payments !== undefined ? { payments: shown(this.run.options.payments) } : {}),
        ...(this.run.ledger ? { changes: shown(suffixedPath(this.run.path, '-changes')) } : {}),
        totals: totalsPath,
      },
    };
  }

  /** Stale parts beside the invoice files (see DocumentParts.staleParts). */
  staleParts(): Promise<string[]> {
    return this.invoices.staleParts();
  }

  abort(): Promise<void> {
    return this.writer.abort();
  }
}

function definedTax(o: AccountingOptions): { taxType?: string; zeroTaxType?: string } {
  return {
    ...(o.taxType === undefined ? {} : { taxType: o.taxType }),
    ...(o.zeroTaxType === undefined ? {} : { zeroTaxType: o.zeroTaxType }),
  };
}
