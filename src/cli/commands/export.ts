import { mkdir, stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { PageIterator } from '../../api/paginate.js';
import type { JobProgress } from '../../jobs/job-events.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';

type ExportKind = 'orders' | 'products' | 'customers' | 'templates' | 'snapshot';
type FileFormat = 'csv' | 'xlsx' | 'json';

interface ExportArgs extends GlobalArgs {
  file: string;
}

interface OrderExportArgs extends ExportArgs {
  status?: string | undefined;
  'payment-status'?: string | undefined;
  'fulfillment-status'?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  'updated-since'?: string | undefined;
  incremental: boolean;
  full: boolean;
  'state-file'?: string | undefined;
  'overlap-minutes': number;
}

interface CatalogExportArgs extends ExportArgs {
  money: string;
  options?: string | undefined;
}

const ALLOWED: Record<ExportKind, readonly FileFormat[]> = {
  orders: ['xlsx', 'csv', 'json'],
  products: ['csv', 'xlsx'],
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
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new CliError(
      `mbulk export ${kind}: cannot create the folder of ${file} (${code}): check the path`,
      ExitCode.Usage,
    );
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new CliError(`mbulk export ${kind}: ${file} is a folder; name a file inside it`, ExitCode.Usage);
  }
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

/** `YYYY-MM-DD` (a day in the store's zone, plus `dayOffset` days) → its first instant. */
async function dayArg(name: string, value: string, timezone: string, dayOffset = 0): Promise<Date> {
  const { dayBoundaryInZone } = await import('../../export/day-boundary-in-zone.js');
  try {
    return dayBoundaryInZone(value.trim(), timezone, dayOffset);
  } catch (error) {
    throw new CliError(`--${name}: ${(error as Error).message}`, ExitCode.Usage);
  }
}

/** `--updated-since`: a day (`YYYY-MM-DD`, store zone) or an ISO 8601 date-time with offset. */
async function instantArg(name: string, value: string, timezone: string): Promise<Date> {
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return dayArg(name, text, timezone);
  const ms = /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new CliError(
      `--${name} must be a date (2026-11-01, in the store's time zone) or a date-time with offset (2026-11-01T08:00:00Z), got "${value}"`,
      ExitCode.Usage,
    );
  }
  return new Date(ms);
}

/** `mbulk export orders FILE`: the accounting export (orders, order_lines, checks). */
export async function exportOrdersCommand(args: OrderExportArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const { exportOrders } = await import('../../export/export-orders.js');
  const { exportOrdersIncremental } = await import('../../export/export-orders-incremental.js');
  const { DEFAULT_EXPORT_STATE_FILE, watermarkKey } = await import('../../export/watermark.js');
  const { ORDER_STATUSES, PAYMENT_STATUSES, FULFILLMENT_STATUSES } = await import('../../schema/order.js');
  const out = ctx.out;
  const params = {
    order_status: enumArg('status', args.status, ORDER_STATUSES),
    payment_status: enumArg('payment-status', args['payment-status'], PAYMENT_STATUSES),
    fulfillment_status: enumArg('fulfillment-status', args['fulfillment-status'], FULFILLMENT_STATUSES),
  };
  if (!(args['overlap-minutes'] >= 0)) {
    throw new CliError('--overlap-minutes must be a number >= 0', ExitCode.Usage);
  }
  const dest = await destination('orders', args.file, ctx);
  const target = await resolveTarget(args, ctx);
  try {
    const me = await target.client.me({ signal: ctx.signal });
    const filter: { since?: Date; until?: Date; updatedSince?: Date } = {};
    if (args.since !== undefined) filter.since = await dayArg('since', args.since, me.timezone);
    if (args.until !== undefined) filter.until = await dayArg('until', args.until, me.timezone, 1);
    if (args['updated-since'] !== undefined)
      filter.updatedSince = await instantArg('updated-since', args['updated-since'], me.timezone);
    if (filter.since && filter.until && filter.until <= filter.since) {
      throw new CliError('--until is before --since: nothing would be exported', ExitCode.Usage);
    }
    const incremental = args.incremental || args.full;
    const stateFile = resolve(ctx.cwd, args['state-file'] ?? DEFAULT_EXPORT_STATE_FILE);
    // One watermark per store, destination and selection: the same file exported with other
    // filters is another stream of orders (sharing a watermark would skip or repeat some).
    const selection = Object.entries({ ...params, since: args.since, until: args.until })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join('&');
    const stateKey = `${watermarkKey(me.id, dest.path)}${selection === '' ? '' : ` ?${selection}`}`;
    let pages = 0;
    const result = await withProgress(out, 'Export orders', async (report) => {
      let last = { ordersRead: 0, ordersWritten: 0, linesWritten: 0 };
      const show = (): void =>
        report({
          phase: 'export',
          done: last.ordersWritten,
          message: `${pages} pages read · ${last.ordersRead} orders read · ${last.linesWritten} lines written`,
        } satisfies JobProgress);
      const orders = countingPages(
        target.client.orders.list(definedOnly(params), { signal: ctx.signal }),
        () => {
          pages++;
          show();
        },
      );
      const common = {
        orders,
        store: me,
        path: dest.path,
        format: dest.format,
        filter,
        onProgress: (p: { ordersRead: number; ordersWritten: number; linesWritten: number }) => {
          last = p;
          show();
        },
      };
      if (!incremental) return { ...(await exportOrders(common)), incremental: undefined };
      const r = await exportOrdersIncremental({
        ...common,
        stateFile,
        stateKey,
        full: args.full,
        overlapMs: args['overlap-minutes'] * 60_000,
      });
      return { ...r, incremental: { resumed: r.resumed, watermark: r.watermark.watermark } };
    });
    const files = [result.paths.orders, result.paths.lines, result.paths.checks].filter(
      (p): p is string => p !== undefined,
    );
    out.line(
      `Exported ${result.orders} orders · ${result.lines} lines · ${result.checks} checks${result.ordersWithChecks > 0 ? ` (${result.ordersWithChecks} ${result.ordersWithChecks === 1 ? 'order' : 'orders'} whose amounts do not add up: see ${dest.format === 'csv' ? 'the -checks file' : 'checks'})` : ''} · ${pages} pages read`,
    );
    if (result.skipped > 0 || result.duplicates > 0) {
      out.line(
        `Left out: ${result.skipped} ${incremental ? 'already exported or filtered' : 'filtered'} · ${result.duplicates} repeated`,
      );
    }
    if (result.incremental) {
      out.line(
        result.incremental.resumed
          ? `Incremental: orders created or changed since the last export (watermark now ${result.incremental.watermark ?? 'unset'})`
          : `Incremental: first${args.full ? ' (--full)' : ''} run, every order exported; the next run exports only what is new or changed`,
      );
    }
    for (const f of files) out.line(`Wrote ${shownPath(f, ctx)}`);
    if (result.sheets) out.line(`Sheets: ${result.sheets.join(', ')}`);
    out.result({
      ok: true,
      kind: 'orders',
      target: target.describe,
      store: { id: me.id, name: me.name, currency: me.currency, timezone: me.timezone },
      format: dest.format,
      orders: result.orders,
      lines: result.lines,
      checks: result.checks,
      ordersWithChecks: result.ordersWithChecks,
      ordersRead: result.ordersRead,
      skipped: result.skipped,
      duplicates: result.duplicates,
      pages,
      paths: result.paths,
      ...(result.sheets ? { sheets: result.sheets } : {}),
      ...(result.incremental
        ? { incremental: { ...result.incremental, stateFile: shownPath(stateFile, ctx) } }
        : {}),
    });
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
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
        message: `${pages} ${pages === 1 ? 'page' : 'pages'} read · ${message}`,
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
          ...(optionsPath !== undefined ? { optionsPath } : {}),
          onProgress: (p) => progress(report, p.productsRead, `${p.rowsWritten} rows written`),
        }),
      );
      out.line(
        `Exported ${r.products} products · ${r.variants} variants · ${r.rows} product rows · ${r.optionRows} option rows · ${pages} ${pages === 1 ? 'page' : 'pages'} read`,
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
      out.line(`Exported ${r.customers} customers · ${pages} ${pages === 1 ? 'page' : 'pages'} read`);
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
        `Exported ${c.products} products · ${c.customers} customers · ${c.orders} orders · ${c.templates} templates · ${pages} ${pages === 1 ? 'page' : 'pages'} read`,
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
            });
        } else {
          c = c.option('money', { type: 'string', default: 'units', hidden: true });
        }
        return c as unknown as Argv<GlobalArgs>;
      },
      async (argv) => {
        setExit(await exportCatalogCommand(kind, argv as unknown as CatalogExportArgs, ctx));
      },
    );
}

const registerExportOrders: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'orders <file>',
    'Orders for accounting: XLSX sheets orders, order_lines and checks; CSV files; or JSON (raw orders)',
    (y) =>
      y
        .positional('file', {
          type: 'string',
          demandOption: true,
          describe: 'Output file (.xlsx, .csv, .json)',
        })
        .option('status', { type: 'string', describe: 'Only this order_status (sent to the API)' })
        .option('payment-status', { type: 'string', describe: 'Only this payment_status (sent to the API)' })
        .option('fulfillment-status', {
          type: 'string',
          describe: 'Only this fulfillment_status (sent to the API)',
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
            'Only orders created or changed since the last export to this file (watermark per store and file)',
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
          '$0 export orders daily.csv --incremental --json',
          'daily, unattended: only new or changed orders',
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
  catalogCommand('customers', 'Customers in the customer import format (plus read-only address columns)'),
  catalogCommand('templates', 'Message templates with their review status'),
  catalogCommand('snapshot', 'The whole store as one JSON file that mbulk sandbox --seed loads'),
];

/** `mbulk export orders|products|customers|templates|snapshot FILE`. */
export const registerExport: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'export',
    'Export orders, the catalog, customers, templates or a whole-store snapshot',
    (y) => {
      let sub = y as unknown as Argv<GlobalArgs>;
      for (const register of exportCommands) sub = register(sub, ctx, setExit);
      return sub.demandCommand(1, 'Name what to export: orders, products, customers, templates or snapshot.');
    },
  );
