import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';
import type { McpServerDeps } from './mcp-deps.js';
import { MoneySchema } from './money-value.js';
import { inToolTerms } from './tool-terms.js';
import { guarded, thrownError, toolResult } from './tool-result.js';

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();
const Statuses = z.array(z.string()).optional();

const Amount = MoneySchema;

/** The summary and files of an export, as `export` returns them. */
const ExportOutput = {
  kind: z.string(),
  format: z.string(),
  files: z.array(z.string()),
  /** Counts (orders, lines, invoices…). */
  figures: z.record(z.string(), z.number()),
  /** The orders summary; amounts in currency units (`{amount: "12.50", currency}`). */
  summary: z.array(z.record(z.string(), z.unknown())).nullable(),
  /** A profile's control totals per file, amounts in currency units. */
  totals: z
    .array(
      z.object({
        file: z.string(),
        document: z.string(),
        count: z.number(),
        rows: z.number(),
        total: Amount,
        tax: Amount,
      }),
    )
    .optional(),
  /** An incremental feed: where it started, the watermark now, whether this was a dry run. */
  incremental: z
    .object({
      feed: z.string(),
      resumed: z.boolean(),
      since: z.string().nullable(),
      watermark: z.string().nullable(),
      dry_run: z.boolean(),
    })
    .optional(),
};

/** Names issued by this server (a second call in the same instant never gets the first's). */
const issued = new Set<string>();

/**
 * A stem no file of the exports folder starts with and this server never gave: the kind, the time
 * and 48 random bits (`orders-20261128-190412-3f9a1c2b7d0e`). A feed's stem carries `{to}`, filled
 * by the feed with its run's time.
 */
function freshStem(dir: string, kind: string, feed: boolean): string {
  const existing = readdirSync(dir);
  for (;;) {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
    const stem = `${kind}-${feed ? '{to}' : stamp}-${randomBytes(6).toString('hex')}`;
    const random = stem.slice(-12);
    if (issued.has(random) || existing.some((f) => f.includes(random))) continue;
    issued.add(random);
    return stem;
  }
}

/**
 * `export`: orders (with the CLI's order-export options: status sets, revenue and basis, period,
 * CSV conventions, accounting profiles with accounts and tax types, payments, incremental feeds),
 * products, stock or customers to new files in the server's exports directory (`--exports-dir`),
 * through the library's one export entry (exportFromStore), as `mbulk export` does. It writes only
 * there, under names it never reuses; it returns the files and the figures that tie to them, amounts
 * in currency units as the files write them.
 */
export function registerExportTool(server: McpServer, deps: McpServerDeps): void {
  server.registerTool(
    'export',
    {
      title: 'Export to new files',
      description:
        "Exports orders (optionally as Xero or QuickBooks invoice imports, or as an incremental feed), products, stock or customers to new files in the server's exports directory (never over an earlier file); returns the files written and their figures, amounts in currency units.",
      inputSchema: {
        kind: z.enum(['orders', 'products', 'stock', 'customers']),
        format: z
          .enum(['csv', 'xlsx', 'json'])
          .optional()
          .describe('Default xlsx (json: orders only; accounting profiles: csv)'),
        since: Day.describe('orders: created on or after this day (YYYY-MM-DD, store time zone)'),
        until: Day.describe('orders: created on or before this day (YYYY-MM-DD, store time zone)'),
        updated_since: z
          .string()
          .optional()
          .describe('orders: updated at or after this day (YYYY-MM-DD) or date-time (ISO 8601 with offset)'),
        status: Statuses.describe(
          'orders: only these order_status values (completed, confirmed…). Default all',
        ),
        payment_status: Statuses.describe('orders: only these payment_status values. Default all'),
        fulfillment_status: Statuses.describe('orders: only these fulfillment_status values. Default all'),
        revenue: z
          .boolean()
          .optional()
          .describe('orders: only revenue (paid, not cancelled or draft). Default false'),
        basis: z
          .enum(['paid', 'accrual'])
          .optional()
          .describe(
            'orders: revenue basis of the summary and of the invoices a profile writes. Default paid',
          ),
        headers: z
          .enum(['labels', 'fields'])
          .optional()
          .describe('orders: column headers. Default xlsx labels, csv fields'),
        csv_delimiter: z
          .string()
          .optional()
          .describe("orders, csv: the field delimiter, e.g. ';'. Default ','"),
        decimal_comma: z
          .boolean()
          .optional()
          .describe("orders, csv: decimals with a comma (12,90); implies csv_delimiter ';'"),
        money: z
          .enum(['units', 'minor'])
          .optional()
          .describe('products: money as currency units (12.90) or minor units (1290). Default units'),
        accounting: z
          .object({
            profile: z
              .string()
              .describe(
                'xero or quickbooks (Online): invoice imports; xero-journal or quickbooks-journal: summary journals',
              ),
            journal_period: z
              .enum(['day', 'week', 'month'])
              .optional()
              .describe("Journal profiles: one journal per day, week or month (store's zone). Default day"),
            accounts: z
              .string()
              .optional()
              .describe(
                'Account (Xero) or product/service (QuickBooks) per kind of line and payment method: sales=200,shipping=…,service-charge=…,tips=…,discount=…,rounding=…,tax=…,payment=…,payment.card=…',
              ),
            account_code: z.string().optional().describe('The sales account (same as accounts sales=…)'),
            tax_type: z
              .string()
              .optional()
              .describe(
                "The program's name of the store's tax rate. Default: implied by the store's country and rate where known",
              ),
            zero_tax_type: z.string().optional().describe("The program's name of a rate with no tax"),
            invoice_date: z
              .enum(['created', 'paid', 'exported'])
              .optional()
              .describe(
                'Date invoices by the order creation, payment or the export. Default created (feeds: paid)',
              ),
            contact: z
              .string()
              .optional()
              .describe(
                'name, name-email or single:"NAME". Default: the name, apart for customers sharing one',
              ),
            payments: z
              .boolean()
              .optional()
              .describe('Also write a payments file (needs accounts payment=…)'),
            due_days: z
              .number()
              .int()
              .min(0)
              .optional()
              .describe('Due date = invoice date + days. Default 0'),
            invoice_prefix: z
              .string()
              .optional()
              .describe("Invoice number = prefix + order number. Default ''"),
            date_format: z.enum(['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD']).optional(),
          })
          .optional()
          .describe('orders: write an invoice import for Xero or QuickBooks, in CSV, instead of the sheets'),
        incremental: z
          .object({
            feed: z
              .string()
              .min(1)
              .optional()
              .describe('The feed name that keeps the watermark. Default orders'),
            full: z
              .boolean()
              .optional()
              .describe('Export everything and restart the watermark. Default false'),
            dry_run: z
              .boolean()
              .optional()
              .describe('Count what the next run would export; write nothing. Default false'),
            overlap_minutes: z
              .number()
              .min(0)
              .optional()
              .describe('Minutes re-read before the watermark. Default 10'),
          })
          .optional()
          .describe(
            "orders: only what was created or changed since the last run of this feed (its watermark and an accounting profile's ledger are kept in the exports directory)",
          ),
      },
      outputSchema: ExportOutput,
      // It writes files (never over one), and never to the store.
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args, extra) =>
      guarded(async () => {
        try {
          return await runExport(args, deps, AbortSignal.any([deps.signal, extra.signal]));
        } catch (error) {
          const answer = thrownError(error);
          return inToolTermsResult(answer);
        }
      }),
  );
}

function inToolTermsResult(answer: CallToolResult): CallToolResult {
  const first = answer.content[0];
  if (first?.type !== 'text') return answer;
  const data = JSON.parse(first.text) as Record<string, unknown>;
  if (typeof data['message'] === 'string') data['message'] = inToolTerms(data['message'], 'export');
  return { ...answer, content: [{ type: 'text', text: JSON.stringify(data) }] };
}

type ExportArgs = {
  kind: 'orders' | 'products' | 'stock' | 'customers';
  format?: 'csv' | 'xlsx' | 'json' | undefined;
  since?: string | undefined;
  until?: string | undefined;
  updated_since?: string | undefined;
  status?: string[] | undefined;
  payment_status?: string[] | undefined;
  fulfillment_status?: string[] | undefined;
  revenue?: boolean | undefined;
  basis?: 'paid' | 'accrual' | undefined;
  headers?: 'labels' | 'fields' | undefined;
  csv_delimiter?: string | undefined;
  decimal_comma?: boolean | undefined;
  money?: 'units' | 'minor' | undefined;
  accounting?:
    | {
        profile: string;
        accounts?: string | undefined;
        account_code?: string | undefined;
        tax_type?: string | undefined;
        zero_tax_type?: string | undefined;
        invoice_date?: 'created' | 'paid' | 'exported' | undefined;
        contact?: string | undefined;
        payments?: boolean | undefined;
        due_days?: number | undefined;
        invoice_prefix?: string | undefined;
        date_format?: string | undefined;
        journal_period?: 'day' | 'week' | 'month' | undefined;
      }
    | undefined;
  incremental?:
    | {
        feed?: string | undefined;
        full?: boolean | undefined;
        dry_run?: boolean | undefined;
        overlap_minutes?: number | undefined;
      }
    | undefined;
};

async function runExport(
  args: ExportArgs,
  deps: McpServerDeps,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const { exportFromStore, orderExportFiles } = await import('../export/export-from-store.js');
  const { formatMoney } = await import('../sheets/money.js');
  const { currencyDecimals } = await import('../schema/currency.js');
  const dir = deps.options.exportsDir;
  const a = args.accounting;
  const feed = args.incremental;
  const format = a !== undefined ? 'csv' : (args.format ?? 'xlsx');
  if (a !== undefined && args.format !== undefined && args.format !== 'csv') {
    throw new UsageError(`accounting profiles write csv: leave format out or give csv (got ${args.format})`);
  }
  if (format === 'json' && args.kind !== 'orders') throw new UsageError('format json is for orders only');
  if (args.kind !== 'orders') {
    const orderOnly = Object.entries(args)
      .filter(([k, v]) => v !== undefined && !['kind', 'format', 'money'].includes(k))
      .map(([k]) => k);
    if (orderOnly.length > 0) throw new UsageError(`${orderOnly.join(', ')}: for kind orders only`);
  }
  mkdirSync(dir, { recursive: true });
  const stem = freshStem(dir, args.kind, feed !== undefined);
  const file = join(dir, `${stem}.${format}`);
  if (args.kind !== 'orders') {
    const done = await exportFromStore(
      deps.client,
      { kind: args.kind, file, ...(args.money ? { money: args.money } : {}) },
      { signal },
    );
    const { files, figures } =
      done.kind === 'products'
        ? {
            files: [done.result.paths.products, done.result.paths.options],
            figures: {
              products: done.result.products,
              variants: done.result.variants,
              rows: done.result.rows,
              optionRows: done.result.optionRows,
            },
          }
        : done.kind === 'stock'
          ? {
              files: [done.result.paths.stock],
              figures: {
                products: done.result.products,
                items: done.result.items,
                untracked: done.result.untracked,
              },
            }
          : done.kind === 'customers'
            ? { files: [done.result.paths.customers], figures: { customers: done.result.customers } }
            : { files: [], figures: {} };
    return toolResult({
      kind: args.kind,
      format,
      files: files.filter((f): f is string => f !== undefined),
      figures,
      summary: null,
    });
  }
  const done = await exportFromStore(
    deps.client,
    {
      kind: 'orders',
      file,
      cwd: dir,
      since: args.since,
      until: args.until,
      updatedSince: args.updated_since,
      status: args.status,
      paymentStatus: args.payment_status,
      fulfillmentStatus: args.fulfillment_status,
      revenue: args.revenue,
      basis: args.basis,
      headers: args.headers,
      csvDelimiter: args.csv_delimiter,
      decimalComma: args.decimal_comma,
      ...(a === undefined
        ? {}
        : {
            profile: a.profile,
            accounts: a.accounts === undefined ? undefined : pairsOnly(a.accounts),
            accountCode: a.account_code,
            taxType: a.tax_type,
            zeroTaxType: a.zero_tax_type,
            invoiceDate: a.invoice_date,
            contact: a.contact,
            dueDays: a.due_days,
            invoicePrefix: a.invoice_prefix,
            dateFormat: a.date_format,
            journalPeriod: a.journal_period,
            ...(a.payments ? { payments: join(dir, `${stem}-payments.csv`) } : {}),
          }),
      ...(feed === undefined
        ? {}
        : {
            incremental: true,
            feed: feed.feed,
            full: feed.full,
            dryRun: feed.dry_run,
            overlapMinutes: feed.overlap_minutes,
            stateFile: join(dir, '.mbulk', 'exports.json'),
          }),
    },
    { signal },
  );
  const { result: r, store } = done;
  const decimals = currencyDecimals(store.currency);
  const amount = (minor: number | null): { amount: string; currency: string } | null =>
    minor === null ? null : { amount: formatMoney(minor, decimals), currency: store.currency };
  const acc = r.accounting;
  const dryRun = done.incremental?.dryRun === true;
  const files = orderExportFiles(done);
  return toolResult({
    kind: 'orders',
    format,
    files: [...new Set(files.filter((f): f is string => f !== undefined))],
    figures: {
      orders: r.orders,
      lines: r.lines,
      checks: r.checks,
      ordersWithChecks: r.ordersWithChecks,
      ordersRead: r.ordersRead,
      duplicates: r.duplicates,
      skipped: r.skipped,
      ...(r.invoices ? { invoices: r.invoices.invoices, invoiceRows: r.invoices.rows } : {}),
      ...(acc ? { creditNotes: acc.creditNotes, payments: acc.payments } : {}),
    },
    summary: r.summary.map((row) => ({
      ...row,
      taxable_amount: amount(row.taxable_amount),
      tax_amount: amount(row.tax_amount),
      total_amount: amount(row.total_amount),
    })),
    ...(acc
      ? {
          totals: acc.totals.map((t) => ({
            file: t.file,
            document: t.document,
            count: t.count,
            rows: t.rows,
            total: amount(t.total),
            tax: amount(t.tax),
          })),
        }
      : {}),
    ...(done.incremental && done.request.feed
      ? {
          incremental: {
            feed: done.request.feed.feed,
            resumed: done.incremental.resumed,
            since: done.incremental.since,
            watermark: done.incremental.watermark.watermark,
            dry_run: dryRun,
          },
        }
      : {}),
  });
}

/** `accounts` as kind=account pairs only: a mapping file's path would read outside the exports directory. */
function pairsOnly(accounts: string): string {
  if (!accounts.includes('=')) {
    throw new UsageError('accounting.accounts takes kind=account pairs (sales=200,payment=090), not a file');
  }
  return accounts;
}
