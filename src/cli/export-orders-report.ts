import type { AccountingResult } from '../export/accounting-export.js';
import { PROFILE_INVOICES_PER_FILE } from '../export/accounting-profile.js';
import { orderExportFiles, type OrdersFromStore } from '../export/export-from-store.js';
import { currencyDecimals } from '../schema/currency.js';
import { formatMoney } from '../sheets/money.js';
import type { CommandContext } from './command-context.js';
import { plural } from './run-summary.js';
import { shownPath } from './shown-path.js';

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
      acc.tax.mode === 'line'
        ? `Every line at the rate "${acc.tax.zeroTaxType}"; tax is a line of its own on the tax account; payments clear per payment method`
        : `Lines the store's tax covers at "${acc.tax.taxType}", the others at "${acc.tax.zeroTaxType}"; amounts before tax: Xero adds each line's tax (the store's, to the cent) to its tax account; payments clear per payment method`,
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
export function printOrderExport(
  done: OrdersFromStore,
  target: { describe: unknown },
  ctx: CommandContext,
): void {
  const { result, pages, store: me, request } = done;
  const feed = request.feed;
  const accounting = request.accounting;
  const run = {
    reads: request.reads.length,
    selection: request.selection,
    selectionText: request.selectionText,
    basis: request.basis,
    ledger: done.ledger,
    target,
  };
  const out = ctx.out;
  const profile = accounting?.profile;
  const incremental = done.incremental;
  const dryRun = incremental?.dryRun === true;
  const format = request.format;
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
  const files = orderExportFiles(done);
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
      `Exported ${result.invoices.invoices} ${profile === 'xero' ? 'Xero' : 'QuickBooks Online'} ${result.invoices.invoices === 1 ? 'invoice' : 'invoices'}${acc && acc.creditNotes > 0 ? ` · ${plural(acc.creditNotes, 'credit note')}` : ''} · ${plural(result.invoices.rows, 'invoice line')} · ${plural(result.invoices.files, 'file')} (at most ${PROFILE_INVOICES_PER_FILE[profile ?? 'xero']} invoices each)${checksNote} · ${plural(pages, 'page')} read`,
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
