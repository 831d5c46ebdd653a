import { plural } from '../run-summary.js';
import { relative, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { PageIterator } from '../../api/paginate.js';
import type { JobProgress } from '../../jobs/job-events.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { ExitCode } from '../exit-code.js';
import { helpGroups } from '../help-groups.js';
import type { RegisterCommand } from './index.js';
import type { OrderListParams } from '../../api/resources/orders.js';
import type { OrderSelection } from '../../export/order-selection.js';
import type { ExportOrdersResult } from '../../export/export-orders.js';
import type { AccountingResult } from '../../export/accounting-export.js';
import type { ExportOrdersIncrementalResult } from '../../export/export-orders-incremental.js';
import type { Store } from '../../schema/store.js';

type ExportKind = 'orders' | 'products' | 'customers' | 'templates' | 'snapshot' | 'stock';
type FileFormat = 'csv' | 'xlsx' | 'json';

interface ExportArgs extends GlobalArgs {
  file: string;
}

interface OrderExportArgs extends ExportArgs {
  status?: string | undefined;
  'payment-status'?: string | undefined;
  'fulfillment-status'?: string | undefined;
  revenue: boolean;
  since?: string | undefined;
  until?: string | undefined;
  'updated-since'?: string | undefined;
  incremental: boolean;
  full: boolean;
  feed?: string | undefined;
  'dry-run': boolean;
  'state-file'?: string | undefined;
  'overlap-minutes': number;
  headers?: string | undefined;
  'csv-delimiter'?: string | undefined;
  'decimal-comma': boolean;
  profile?: string | undefined;
  'account-code'?: string | undefined;
  'tax-type'?: string | undefined;
  'date-format'?: string | undefined;
  'due-days': number;
  'invoice-prefix'?: string | undefined;
  'journal-period'?: string | undefined;
  accounts?: string | undefined;
  'zero-tax-type'?: string | undefined;
  'invoice-date'?: string | undefined;
  contact?: string | undefined;
  payments?: string | undefined;
  basis?: string | undefined;
}

interface CatalogExportArgs extends ExportArgs {
  money: string;
  options?: string | undefined;
  /** products: false with --no-stock. */
  stock?: boolean;
}

const ALLOWED: Record<ExportKind, readonly FileFormat[]> = {
  orders: ['xlsx', 'csv', 'json'],
  products: ['csv', 'xlsx'],
  stock: ['csv', 'xlsx'],
  customers: ['csv', 'xlsx'],
  templates: ['csv', 'xlsx', 'json'],
  snapshot: ['json'],
};

/** The output file (absolute, parent created) and its format, or a usage error. */
async function destination<K extends ExportKind>(
  kind: K,
  file: string,
  ctx: CommandContext,
): Promise<{ path: string; format: FileFormat; shown: string }> {
  const { formatOfPath } = await import('../../export/catalog-sheet.js');
  const format = formatOfPath(file);
  const allowed = ALLOWED[kind];
  if (format === undefined || !allowed.includes(format)) {
    throw new CliError(
      `mbulk export ${kind}: the file must end in ${allowed.map((f) => `.${f}`).join(', ')} (got ${file})`,
      ExitCode.Usage,
    );
  }
  const path = resolve(ctx.cwd, file);
  // An unusable destination is a usage error (exit 2), found before anything is read.
  const { prepareExportDestination } = await import('../../export/export-destination.js');
  await prepareExportDestination(path, file);
  return { path, format, shown: shownPath(path, ctx) };
}

function shownPath(path: string, ctx: CommandContext): string {
  const rel = relative(ctx.cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

/** Counts pages as a list is read, for the progress line ("pages read"). */
async function* countingPages<T>(list: PageIterator<T>, onPage: () => void): AsyncGenerator<T> {
  for await (const page of list.pages()) {
    onPage();
    yield* page.data;
  }
}

function enumArg<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new CliError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`, ExitCode.Usage);
}

/** `--csv-delimiter`: one character; `\t` and `tab` name a tab. */
function delimiterArg(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value === '\\t' || value.toLowerCase() === 'tab' ? '\t' : value;
  if (v.length !== 1 || /["\r\n]/.test(v)) {
    throw new CliError(
      `--csv-delimiter must be one character such as ';' (got ${JSON.stringify(value)})`,
      ExitCode.Usage,
    );
  }
  return v;
}

/** The status sets of the options (comma-separated lists) and `--revenue`, or a usage error. */
async function selectionArgs(args: OrderExportArgs) {
  const sel = await import('../../export/order-selection.js');
  const parse = (
    option: string,
    value: string | undefined,
    allowed: readonly string[],
  ): string[] | undefined => {
    if (value === undefined) return undefined;
    try {
      return sel.parseStatusList(option, value, allowed);
    } catch (error) {
      throw new CliError((error as Error).message, ExitCode.Usage);
    }
  };
  let selection: OrderSelection = {};
  const o = parse('status', args.status, sel.SELECTION_VALUES.order_status);
  const p = parse('payment-status', args['payment-status'], sel.SELECTION_VALUES.payment_status);
  const f = parse('fulfillment-status', args['fulfillment-status'], sel.SELECTION_VALUES.fulfillment_status);
  if (o) selection.order_status = o;
  if (p) selection.payment_status = p;
  if (f) selection.fulfillment_status = f;
  if (args.revenue) selection = sel.intersectSelections(selection, sel.REVENUE_SELECTION);
  if (sel.isEmptySelection(selection)) {
    throw new CliError(
      '--revenue takes paid orders that are not cancelled or draft: with these --status/--payment-status values nothing would be exported',
      ExitCode.Usage,
    );
  }
  const reads = sel.orderExportReads(selection, {
    profile: args.profile,
    incremental: args.incremental || args.full,
  });
  return { selection, reads, text: sel.selectionText(selection) };
}

/** Reads the lists one after another as one stream of orders. */
async function* chainReads<T>(reads: (() => AsyncIterable<T>)[]): AsyncGenerator<T> {
  for (const read of reads) yield* read();
}

/** The output format of an order export from its file name, and the CSV conventions, or a usage error. */
function orderFileArgs(args: OrderExportArgs, format: FileFormat | undefined) {
  const headers = enumArg('headers', args.headers, ['labels', 'fields'] as const);
  const csvDelimiter = delimiterArg(args['csv-delimiter']);
  if (format === undefined || !ALLOWED.orders.includes(format)) {
    throw new CliError(
      `mbulk export orders: the file must end in ${ALLOWED.orders.map((f) => `.${f}`).join(', ')} (got ${args.file})`,
      ExitCode.Usage,
    );
  }
  if ((csvDelimiter !== undefined || args['decimal-comma']) && format !== 'csv') {
    throw new CliError(
      '--csv-delimiter and --decimal-comma are for CSV exports (name a .csv file)',
      ExitCode.Usage,
    );
  }
  if (args['decimal-comma'] && csvDelimiter === ',') {
    throw new CliError(
      "--decimal-comma needs a delimiter other than ',' (e.g. --csv-delimiter ';')",
      ExitCode.Usage,
    );
  }
  // A decimal comma with comma-separated fields would split every amount: it implies ';'.
  const delimiter = csvDelimiter ?? (args['decimal-comma'] ? ';' : undefined);
  return {
    format,
    ...(headers === undefined ? {} : { headers }),
    ...(delimiter === undefined ? {} : { csvDelimiter: delimiter }),
    ...(args['decimal-comma'] ? { decimalComma: true } : {}),
  };
}

/** `--profile` and its options, or a usage error. */
async function accountingArgs(args: OrderExportArgs, format: FileFormat, ctx: CommandContext) {
  const profiles = await import('../../export/accounting-profile.js');
  const chosen = enumArg('profile', args.profile, [
    'xero',
    'quickbooks',
    'xero-journal',
    'quickbooks-journal',
  ] as const);
  // A journal profile is its program's profile with summary journals instead of invoices.
  const profile =
    chosen === undefined
      ? undefined
      : chosen === 'xero-journal'
        ? 'xero'
        : chosen === 'quickbooks-journal'
          ? 'quickbooks'
          : chosen;
  const { JOURNAL_PERIODS } = await import('../../export/accounting-journal.js');
  const period = enumArg('journal-period', args['journal-period'], JOURNAL_PERIODS);
  if (period !== undefined && !chosen?.endsWith('-journal')) {
    throw new CliError(
      '--journal-period goes with --profile xero-journal or --profile quickbooks-journal',
      ExitCode.Usage,
    );
  }
  const journal = chosen?.endsWith('-journal') ? (period ?? 'day') : undefined;
  const dateFormat =
    args['date-format'] === undefined
      ? undefined
      : profiles.INVOICE_DATE_FORMATS.find((f) => f === args['date-format']?.trim().toUpperCase());
  if (args['date-format'] !== undefined && dateFormat === undefined) {
    throw new CliError(
      `--date-format must be one of ${profiles.INVOICE_DATE_FORMATS.join(', ')} (got "${args['date-format']}")`,
      ExitCode.Usage,
    );
  }
  if (!(Number.isInteger(args['due-days']) && args['due-days'] >= 0)) {
    throw new CliError('--due-days must be a whole number of days >= 0', ExitCode.Usage);
  }
  const invoiceDate = enumArg('invoice-date', args['invoice-date'], profiles.INVOICE_DATE_RULES);
  const profileOnly = {
    'date-format': dateFormat,
    'account-code': args['account-code'],
    'tax-type': args['tax-type'],
    'zero-tax-type': args['zero-tax-type'],
    'invoice-prefix': args['invoice-prefix'],
    accounts: args.accounts,
    'invoice-date': invoiceDate,
    contact: args.contact,
    payments: args.payments,
  };
  if (profile === undefined) {
    const given = Object.entries(profileOnly)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => `--${k}`);
    if (given.length > 0) {
      throw new CliError(
        `${given.join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --profile xero, quickbooks, xero-journal or quickbooks-journal`,
        ExitCode.Usage,
      );
    }
    return undefined;
  }
  if (format !== 'csv') {
    throw new CliError(`--profile ${chosen} writes CSV: name a .csv file (got ${args.file})`, ExitCode.Usage);
  }
  if (args['csv-delimiter'] !== undefined || args['decimal-comma'] || args.headers !== undefined) {
    throw new CliError(
      `--profile ${chosen} writes the program's own columns, comma-separated with a decimal point: drop --csv-delimiter, --decimal-comma and --headers`,
      ExitCode.Usage,
    );
  }
  const { accountsText } = await import('../../export/accounting-accounts.js');
  const { parseContactMode } = await import('../../export/accounting-contacts.js');
  // Checked now, before the store is asked anything.
  if (args.contact !== undefined) parseContactMode(args.contact);
  const accounts = args.accounts === undefined ? undefined : await accountsText(args.accounts, ctx.cwd);
  return {
    profile,
    ...(journal === undefined ? {} : { journal }),
    dueDays: args['due-days'],
    ...(dateFormat === undefined ? {} : { dateFormat }),
    ...(args['account-code'] === undefined ? {} : { accountCode: args['account-code'] }),
    ...(args['tax-type'] === undefined ? {} : { taxType: args['tax-type'] }),
    ...(args['zero-tax-type'] === undefined ? {} : { zeroTaxType: args['zero-tax-type'] }),
    ...(args['invoice-prefix'] === undefined ? {} : { invoicePrefix: args['invoice-prefix'] }),
    ...(accounts === undefined ? {} : { accounts }),
    ...(invoiceDate === undefined ? {} : { invoiceDate }),
    ...(args.contact === undefined ? {} : { contact: args.contact }),
    ...(args.payments === undefined ? {} : { payments: resolve(ctx.cwd, args.payments) }),
  };
}

/** `--incremental`, `--full`, `--feed`, `--dry-run` and the rest of a feed, or a usage error. */
async function feedArgs(args: OrderExportArgs, ctx: CommandContext) {
  const incremental = args.incremental || args.full;
  if (!incremental) {
    if (args.feed !== undefined || args['dry-run']) {
      throw new CliError('--feed and --dry-run go with --incremental', ExitCode.Usage);
    }
    return undefined;
  }
  if (!(args['overlap-minutes'] >= 0)) {
    throw new CliError('--overlap-minutes must be a number >= 0', ExitCode.Usage);
  }
  const { DEFAULT_FEED } = await import('../../export/feed-state-key.js');
  const { DEFAULT_EXPORT_STATE_FILE } = await import('../../export/watermark.js');
  const feed = (args.feed ?? DEFAULT_FEED).trim();
  if (feed === '') throw new CliError('--feed needs a name', ExitCode.Usage);
  return {
    feed,
    full: args.full,
    dryRun: args['dry-run'],
    stateFile: resolve(ctx.cwd, args['state-file'] ?? DEFAULT_EXPORT_STATE_FILE),
    overlapMs: args['overlap-minutes'] * 60_000,
  };
}

/** `mbulk export orders FILE`: the accounting export (summary, orders, order_lines, checks; or an accounting profile). */
export async function exportOrdersCommand(args: OrderExportArgs, ctx: CommandContext): Promise<number> {
  const { formatOfPath } = await import('../../export/catalog-sheet.js');
  const { selection, reads, text: selectionText } = await selectionArgs(args);
  const file = orderFileArgs(args, formatOfPath(args.file));
  const accounting = await accountingArgs(args, file.format, ctx);
  const basis = enumArg('basis', args.basis, (await import('../../export/order-selection.js')).REVENUE_BASES);
  const feed = await feedArgs(args, ctx);
  // For rehearsals and tests: the run's time (ISO 8601), as if the clock said so.
  const nowText = ctx.env['MBULK_NOW'];
  const runAt = nowText ? new Date(nowText) : new Date();
  if (Number.isNaN(runAt.getTime()))
    throw new CliError(`MBULK_NOW is not a date-time: ${nowText}`, ExitCode.Usage);
  const period = definedOnly({
    since: args.since,
    until: args.until,
    updatedSince: args['updated-since'],
  });

  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const target = await resolveTarget(args, ctx);
  try {
    const me = await target.client.me({ signal: ctx.signal });
    let pages = 0;
    const result = await withProgress(ctx.out, 'Export orders', async (report) => {
      let last = { ordersRead: 0, ordersWritten: 0, linesWritten: 0 };
      const show = (): void =>
        report({
          phase: 'export',
          done: last.ordersWritten,
          message: `${plural(pages, 'page')} read · ${plural(last.ordersRead, 'order')} read · ${plural(last.linesWritten, 'line')} written`,
        } satisfies JobProgress);
      const orders = chainReads(
        reads.map(
          (query) => () =>
            countingPages(
              target.client.orders.list(definedOnly(query) as OrderListParams, { signal: ctx.signal }),
              () => {
                pages++;
                show();
              },
            ),
        ),
      );
      const common = {
        orders,
        store: me,
        path: resolve(ctx.cwd, args.file),
        ...file,
        filter: { selection },
        period,
        now: runAt,
        ...(accounting === undefined ? {} : { accounting }),
        ...(basis === undefined ? {} : { basis }),
        onProgress: (p: { ordersRead: number; ordersWritten: number; linesWritten: number }) => {
          last = p;
          show();
        },
      };
      if (feed === undefined) {
        const { exportOrders } = await import('../../export/export-orders.js');
        return { ...(await exportOrders(common)), incremental: undefined };
      }
      const { exportOrdersIncremental } = await import('../../export/export-orders-incremental.js');
      const killAt = ctx.env['MBULK_TEST_KILL_AT'];
      const r = await exportOrdersIncremental({
        ...common,
        ...feed,
        // Test-only (docs/development.md): SIGKILL at a step of the feed's publish.
        ...(killAt
          ? { onStep: (step: string) => step === killAt && process.kill(process.pid, 'SIGKILL') }
          : {}),
      });
      return { ...r, incremental: r };
    });
    const ledger = result.incremental?.watermark.ledger;
    const { ledgerNet } = await import('../../export/accounting-ledger.js');
    await printOrderExport({
      result,
      pages,
      reads: reads.length,
      selection,
      selectionText,
      feed,
      accounting,
      basis,
      ledger: ledger ? { orders: Object.keys(ledger.orders).length, net: ledgerNet(ledger) } : undefined,
      me,
      target,
      ctx,
    });
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

/** A profile export's control totals, tax import setting, payments and changes after invoicing. */
function printAccounting(
  acc: AccountingResult,
  ledger: { orders: number; net: number } | undefined,
  money: (minor: number) => string,
  ctx: CommandContext,
): void {
  const out = ctx.out;
  for (const t of acc.totals) {
    const what =
      t.document === 'payments'
        ? plural(t.count, 'payment')
        : `${t.count} ${t.count === 1 ? t.document.replace(/s$/, '') : t.document}`;
    out.line(
      `  ${shownPath(t.file, ctx)}: ${what} · ${t.document === 'journals' ? 'debits = credits' : 'total'} ${money(t.total)}${t.document === 'payments' ? '' : ` (tax ${money(t.tax)})`}`,
    );
  }
  if (acc.journals) {
    out.line(
      `Every line at the rate "${acc.tax.zeroTaxType}"; tax is a line of its own on the tax account; payments clear per payment method`,
    );
    if (ledger)
      out.line(
        `Ledger of this feed: ${plural(ledger.orders, 'posted order')} standing at ${money(ledger.net)}`,
      );
    return;
  }
  if (acc.paths.payments !== undefined) {
    out.line(
      'The payments file is for a payment-import app: neither Xero nor QuickBooks Online imports payments from a file of its own (the journal profiles post payments themselves)',
    );
  }
  out.line(
    `Import with amounts "${acc.tax.importAs}"; tax rate "${acc.tax.taxType}"${acc.tax.zeroTaxType !== acc.tax.taxType ? `, no-tax rate "${acc.tax.zeroTaxType}"` : ''}${acc.tax.mode === 'line' ? ' (tax is a line of its own on the tax account)' : ''}`,
  );
  const c = acc.changes;
  if (c.orders > 0) {
    out.line(
      `Changed after invoicing: ${plural(c.orders, 'order')} · ${c.unchanged} with the same amounts (not exported again) · ${c.credited} credited · ${c.reinvoiced} invoiced again`,
    );
    for (const e of c.entries.filter((x) => x.difference !== 0).slice(0, 10)) {
      out.line(
        `  invoice ${e.invoice} (${e.orderId}): ${e.statusBefore} → ${e.statusAfter}, ${e.difference < 0 ? '' : '+'}${money(e.difference)}: ${e.action}`,
      );
    }
    const more = c.entries.filter((x) => x.difference !== 0).length - 10;
    if (more > 0)
      out.line(
        `  … and ${more} more (see ${acc.paths.changes ? shownPath(acc.paths.changes, ctx) : 'the changes file'})`,
      );
  }
  if (ledger)
    out.line(
      `Ledger of this feed: ${plural(ledger.orders, 'invoiced order')} standing at ${money(ledger.net)}`,
    );
}

/** The console lines and the `--json` document of an order export. */
async function printOrderExport(run: {
  result: ExportOrdersResult & { incremental: ExportOrdersIncrementalResult | undefined };
  pages: number;
  reads: number;
  selection: OrderSelection;
  selectionText: string;
  feed: Awaited<ReturnType<typeof feedArgs>>;
  accounting: Awaited<ReturnType<typeof accountingArgs>>;
  basis: 'paid' | 'accrual' | undefined;
  /** An accounting feed's ledger after the run: invoiced orders and what they stand at. */
  ledger: { orders: number; net: number } | undefined;
  me: Store;
  target: { describe: unknown };
  ctx: CommandContext;
}): Promise<void> {
  const { result, pages, feed, accounting, me, ctx } = run;
  const out = ctx.out;
  const profiles = await import('../../export/accounting-profile.js');
  const { formatMoney } = await import('../../sheets/money.js');
  const { currencyDecimals } = await import('../../schema/currency.js');
  const profile = accounting?.profile;
  const incremental = result.incremental;
  const dryRun = incremental?.dryRun === true;
  const format = (await import('../../export/catalog-sheet.js')).formatOfPath(result.paths.orders);
  if (incremental?.finishedPublish !== undefined) {
    out.line(
      `Finished publishing an interrupted run of this feed first: ${plural(incremental.finishedPublish.length, 'file')} (${incremental.finishedPublish.map((f) => shownPath(f, ctx)).join(', ')})`,
    );
  }
  if (incremental?.earlierRun !== undefined) {
    out.line(
      `${shownPath(incremental.earlierRun, ctx)} holds an earlier run of this feed: writing ${shownPath(result.paths.orders, ctx)}`,
    );
  }
  const acc = result.accounting;
  const files = dryRun
    ? []
    : (acc
        ? [
            ...acc.paths.invoices,
            ...(acc.paths.creditNotes ?? []),
            acc.paths.payments,
            acc.paths.changes,
            acc.paths.totals,
          ]
        : [result.paths.summary, result.paths.orders, result.paths.lines, result.paths.checks]
      ).filter((p): p is string => p !== undefined);
  const money = (minor: number): string =>
    `${formatMoney(minor, currencyDecimals(me.currency))} ${me.currency}`;
  const differences = result.invoices?.withDifference ?? 0;
  const checksNote = profile
    ? differences > 0
      ? ` (${differences} ${differences === 1 ? 'invoice has' : 'invoices have'} a "Difference to the order's stated total" line: the order's own amounts do not add up; an XLSX export lists why in checks)`
      : ''
    : result.ordersWithChecks > 0
      ? ` (${result.ordersWithChecks} ${result.ordersWithChecks === 1 ? 'order' : 'orders'} whose amounts do not add up: see ${format === 'csv' ? 'the -checks file' : 'checks'})`
      : '';
  if (dryRun) {
    out.line(
      `Dry run: the next incremental run of feed "${feed?.feed}" would export ${plural(result.orders, 'new or changed order')}${incremental.since ? ` since ${incremental.since}` : ' (first run: every order)'} · ${plural(pages, 'page')} read; nothing written, watermark unchanged`,
    );
  } else if (incremental?.resumed && result.orders === 0) {
    out.line(
      `0 new or changed orders since ${incremental.since ?? 'the last export'} · ${plural(pages, 'page')} read`,
    );
  } else if (acc?.journals) {
    const j = acc.journals;
    out.line(
      `Exported ${plural(j.entries.length, `${profile === 'xero' ? 'Xero manual journal' : 'QuickBooks Online journal entry'}`)} (one per ${j.period}) · ${plural(j.lines, 'journal line')} · ${plural(acc.files, 'file')}${checksNote} · ${plural(pages, 'page')} read`,
    );
  } else if (result.invoices) {
    out.line(
      `Exported ${result.invoices.invoices} ${profile === 'xero' ? 'Xero' : 'QuickBooks Online'} ${result.invoices.invoices === 1 ? 'invoice' : 'invoices'}${acc && acc.creditNotes > 0 ? ` · ${plural(acc.creditNotes, 'credit note')}` : ''} · ${plural(result.invoices.rows, 'invoice line')} · ${plural(result.invoices.files, 'file')} (at most ${profiles.PROFILE_INVOICES_PER_FILE[profile ?? 'xero']} invoices each)${checksNote} · ${plural(pages, 'page')} read`,
    );
  } else {
    out.line(
      `Exported ${plural(result.orders, 'order')} · ${plural(result.lines, 'line')} · ${plural(result.checks, 'check')}${checksNote} · ${plural(pages, 'page')} read`,
    );
  }
  const revenue = result.summary.find((r) => r.section === 'revenue');
  if (revenue && !dryRun && !profile && format !== 'json') {
    out.line(
      `Revenue (${run.basis === 'accrual' ? 'accrual: confirmed or completed' : 'paid, not cancelled or draft'}): ${revenue.orders} orders · total ${money(revenue.total_amount ?? 0)}`,
    );
  }
  if (acc && !dryRun) printAccounting(acc, run.ledger, money, ctx);
  if (acc && !dryRun && !acc.journals && profile === 'quickbooks' && me.country.toUpperCase() === 'US') {
    // What QuickBooks Online US's invoice import takes (docs/accounting.md cites the sources).
    out.warn(
      `QuickBooks Online US: import guides report that its invoice import is not offered once sales tax is set up, and takes no negative amounts (${plural(acc.negativeLines ?? 0, 'negative line')} here: discounts, negative adjustments, rounding) and no credit memos. If it refuses these files, post the sales as daily journal entries instead: --profile quickbooks-journal`,
    );
  }
  if (result.skipped > 0 || result.duplicates > 0) {
    out.line(
      `Left out: ${result.skipped} ${incremental ? 'already exported or filtered' : 'filtered'} · ${result.duplicates} repeated`,
    );
  }
  if (incremental && !dryRun) {
    out.line(
      incremental.resumed
        ? `Incremental feed "${feed?.feed}": orders created or changed since ${incremental.since ?? 'the last export'} (watermark now ${incremental.watermark.watermark ?? 'unset'})`
        : `Incremental feed "${feed?.feed}": first${feed?.full ? ' (--full)' : ''} run, every order exported; the next run exports only what is new or changed`,
    );
  }
  for (const f of files) out.line(`Wrote ${shownPath(f, ctx)}`);
  if (result.sheets) out.line(`Sheets: ${result.sheets.join(', ')}`);
  // A part left from an earlier, larger export would be imported twice if taken for this one's.
  for (const stale of result.staleParts ?? []) {
    out.warn(
      `warning: ${shownPath(stale, ctx)} is from an earlier export, not this one: delete it before importing`,
    );
  }
  out.result({
    ok: true,
    kind: 'orders',
    target: run.target.describe,
    store: { id: me.id, name: me.name, currency: me.currency, timezone: me.timezone },
    format,
    ...(profile ? { profile } : {}),
    orders: result.orders,
    lines: result.lines,
    checks: result.checks,
    ordersWithChecks: result.ordersWithChecks,
    ordersRead: result.ordersRead,
    skipped: result.skipped,
    duplicates: result.duplicates,
    pages,
    reads: run.reads,
    ...(run.selectionText === '' ? {} : { selection: run.selection }),
    summary: result.summary,
    ...(dryRun ? { dryRun: true } : { paths: result.paths }),
    ...(result.invoices ? { invoices: result.invoices } : {}),
    ...(acc ? { accounting: acc } : {}),
    ...(run.ledger ? { ledger: run.ledger } : {}),
    basis: run.basis ?? 'paid',
    ...(result.sheets ? { sheets: result.sheets } : {}),
    ...(incremental && feed
      ? {
          incremental: {
            feed: feed.feed,
            resumed: incremental.resumed,
            since: incremental.since,
            watermark: incremental.watermark.watermark,
            dryRun: incremental.dryRun,
            stateFile: shownPath(feed.stateFile, ctx),
          },
        }
      : {}),
  });
}

/** The object without its undefined values (exactOptionalPropertyTypes: absent, not undefined). */
function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** `mbulk export products|customers|templates|snapshot FILE`. */
export async function exportCatalogCommand(
  kind: Exclude<ExportKind, 'orders'>,
  args: CatalogExportArgs,
  ctx: CommandContext,
): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const out = ctx.out;
  const money = args.money === 'minor' ? 'minor' : args.money === 'units' ? 'units' : undefined;
  if (money === undefined) throw new CliError('--money must be units or minor', ExitCode.Usage);
  const dest = await destination(kind, args.file, ctx);
  const optionsPath = args.options === undefined ? undefined : resolve(ctx.cwd, args.options);
  if (optionsPath !== undefined && (kind !== 'products' || dest.format !== 'csv')) {
    throw new CliError('--options is for CSV product exports only', ExitCode.Usage);
  }
  const target = await resolveTarget(args, ctx);
  try {
    const client = target.client;
    const signal = { signal: ctx.signal };
    const me = await client.me(signal);
    let pages = 0;
    const page = (): void => {
      pages++;
    };
    const title = `Export ${kind}`;
    const base = {
      ok: true,
      kind,
      target: target.describe,
      store: { id: me.id, name: me.name, currency: me.currency },
      format: dest.format,
    };
    const progress = (report: (p: JobProgress) => void, done: number, message: string): void =>
      report({
        phase: 'export',
        done,
        message: `${plural(pages, 'page')} read · ${message}`,
      });

    if (kind === 'products') {
      const { exportProducts } = await import('../../export/export-products.js');
      const r = await withProgress(out, title, (report) =>
        exportProducts({
          products: countingPages(client.products.list({}, signal), page),
          store: me,
          path: dest.path,
          format: dest.format as 'csv' | 'xlsx',
          money,
          stock: args.stock !== false,
          ...(optionsPath !== undefined ? { optionsPath } : {}),
          onProgress: (p) => progress(report, p.productsRead, `${p.rowsWritten} rows written`),
        }),
      );
      out.line(
        `Exported ${r.products} products · ${r.variants} variants · ${r.rows} product rows · ${r.optionRows} option rows · ${plural(pages, 'page')} read`,
      );
      for (const w of r.warnings.slice(0, 10)) out.warn(`warning: ${w}`);
      if (r.warningCount > 10)
        out.warn(`warning: … and ${r.warningCount - 10} more values that would not re-import unchanged`);
      out.line(`Wrote ${shownPath(r.paths.products, ctx)}`);
      if (r.paths.options !== undefined) {
        out.line(`Wrote ${shownPath(r.paths.options, ctx)}`);
        out.line(
          `Re-import: mbulk import products ${shownPath(r.paths.products, ctx)} --options ${shownPath(r.paths.options, ctx)}${money === 'minor' ? ' --money minor' : ''}`,
        );
      }
      out.result({ ...base, ...r, pages });
    } else if (kind === 'stock') {
      const { exportStock } = await import('../../export/export-stock.js');
      const r = await withProgress(out, title, (report) =>
        exportStock({
          products: countingPages(client.products.list({}, signal), page),
          store: me,
          path: dest.path,
          format: dest.format as 'csv' | 'xlsx',
          onProgress: (p) => progress(report, p.productsRead, `${p.rowsWritten} items written`),
        }),
      );
      out.line(
        `Exported ${r.items} inventory items of ${r.products} products${r.untracked > 0 ? ` (${r.untracked} items with inventory tracking off left out)` : ''} · ${plural(pages, 'page')} read`,
      );
      out.line(`Wrote ${shownPath(r.paths.stock, ctx)}`);
      out.result({ ...base, ...r, pages });
    } else if (kind === 'customers') {
      const { exportCustomers } = await import('../../export/export-customers.js');
      const r = await withProgress(out, title, (report) =>
        exportCustomers({
          customers: countingPages(client.customers.list({}, signal), page),
          store: me,
          path: dest.path,
          format: dest.format as 'csv' | 'xlsx',
          onProgress: (p) => progress(report, p.customersRead, 'customers'),
        }),
      );
      out.line(`Exported ${r.customers} customers · ${plural(pages, 'page')} read`);
      out.line(`Wrote ${shownPath(r.paths.customers, ctx)}`);
      out.result({ ...base, ...r, pages });
    } else if (kind === 'templates') {
      const { exportTemplates } = await import('../../export/export-templates.js');
      const r = await withProgress(out, title, (report) =>
        exportTemplates({
          templates: countingPages(client.templates.list({}, signal), page),
          store: me,
          path: dest.path,
          format: dest.format,
          onProgress: (p) => progress(report, p.templatesRead, 'templates'),
        }),
      );
      const statuses = Object.entries(r.byStatus)
        .map(([s, n]) => `${n} ${s}`)
        .join(' · ');
      out.line(`Exported ${r.templates} templates${statuses ? ` (${statuses})` : ''}`);
      out.line(`Wrote ${shownPath(r.paths.templates, ctx)}`);
      out.result({ ...base, ...r, pages });
    } else {
      const { exportSnapshot } = await import('../../export/export-snapshot.js');
      const r = await withProgress(out, title, (report) =>
        exportSnapshot({
          me,
          products: countingPages(client.products.list({}, signal), page),
          customers: countingPages(client.customers.list({}, signal), page),
          orders: countingPages(client.orders.list({}, signal), page),
          templates: countingPages(client.templates.list({}, signal), page),
          path: dest.path,
          onProgress: (p) => progress(report, p.items, p.section),
        }),
      );
      const c = r.counts;
      out.line(
        `Exported ${c.products} products · ${c.customers} customers · ${c.orders} orders · ${c.templates} templates · ${plural(pages, 'page')} read`,
      );
      out.line(`Wrote ${shownPath(r.path, ctx)}`);
      out.line(`Rehearse on a copy: mbulk sandbox --seed ${shownPath(r.path, ctx)}`);
      out.result({ ...base, counts: c, path: r.path, pages });
    }
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

function catalogCommand(kind: Exclude<ExportKind, 'orders'>, describe: string): RegisterCommand {
  return (parser, ctx, setExit) =>
    parser.command(
      `${kind} <file>`,
      describe,
      (y) => {
        let c = y.positional('file', {
          type: 'string',
          demandOption: true,
          describe: `Output file (${ALLOWED[kind].map((f) => `.${f}`).join(', ')})`,
        });
        if (kind === 'products') {
          c = c
            .option('money', {
              type: 'string',
              default: 'units',
              describe: 'Money as currency units (12.90) or raw minor units (1290): units|minor',
            })
            .option('options', {
              type: 'string',
              describe: 'CSV: the options file (default: <file>-options.csv)',
            })
            .option('stock', {
              type: 'boolean',
              default: true,
              describe:
                'Write the stock columns inventory_quantity and variant_inventory_quantity (--no-stock leaves them out, so a re-import never touches stock)',
            });
        } else {
          c = c.option('money', { type: 'string', default: 'units', hidden: true });
        }
        const own = kind === 'products' ? ['money', 'options', 'stock'] : [];
        return helpGroups(c, [['Format:', own]]) as unknown as Argv<GlobalArgs>;
      },
      async (argv) => {
        setExit(await exportCatalogCommand(kind, argv as unknown as CatalogExportArgs, ctx));
      },
    );
}

const registerExportOrders: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'orders <file>',
    'Orders for accounting: XLSX sheets summary, orders, order_lines and checks; CSV files; JSON (raw orders); or Xero / QuickBooks Online invoice imports',
    (y) =>
      helpGroups(
        y
          .positional('file', {
            type: 'string',
            demandOption: true,
            describe:
              'Output file (.xlsx, .csv, .json); may hold {date} and {to}, and with --incremental {from}',
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
            describe:
              "CSV field delimiter, e.g. ';' for European Excel. Default ',' (';' with --decimal-comma)",
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
          .example(
            '$0 export orders orders.csv --decimal-comma',
            "European Excel: ';' between fields, 12,90",
          ),
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
      ),
    async (argv) => {
      setExit(await exportOrdersCommand(argv as unknown as OrderExportArgs, ctx));
    },
  );

const exportCommands: RegisterCommand[] = [
  registerExportOrders,
  catalogCommand(
    'products',
    'The catalog in the product import format (one row per variant, options in a second sheet or file): edit and re-import',
  ),
  catalogCommand(
    'stock',
    'Stock of every tracked inventory item in the nightly stock import format: sku, quantity, item_id',
  ),
  catalogCommand('customers', 'Customers in the customer import format (plus read-only address columns)'),
  catalogCommand('templates', 'Message templates with their review status'),
  catalogCommand('snapshot', 'The whole store as one JSON file that mbulk sandbox --seed loads'),
];

/** `mbulk export orders|products|stock|customers|templates|snapshot FILE`. */
export const registerExport: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'export',
    'Export orders, the catalog, stock, customers, templates or a whole-store snapshot',
    (y) => {
      let sub = y as unknown as Argv<GlobalArgs>;
      for (const register of exportCommands) sub = register(sub, ctx, setExit);
      return sub.demandCommand(
        1,
        'Name what to export: orders, products, stock, customers, templates or snapshot.',
      );
    },
  );
