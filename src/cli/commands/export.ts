import type { Argv } from 'yargs';
import type { JobProgress } from '../../jobs/job-events.js';
import type {
  CatalogExportKind,
  CatalogFromStore,
  StoreExportProgress,
} from '../../export/export-from-store.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { ExitCode } from '../exit-code.js';
import { helpGroups } from '../help-groups.js';
import { plural } from '../run-summary.js';
import { shownPath } from '../shown-path.js';
import { orderExportOptions, orderExportRequest, type OrderExportArgs } from './export-orders-options.js';
import type { RegisterCommand } from './index.js';

interface CatalogExportArgs extends GlobalArgs {
  file: string;

  money: string;
  options?: string;
  /** products: false with --no-stock. */
  stock?: boolean;
}

/** The run's time: `MBULK_NOW` (ISO 8601, for rehearsals and tests), else now. */
function runTime(ctx: CommandContext): Date {
  const text = ctx.env['MBULK_NOW'];
  const at = text ? new Date(text) : new Date();
  if (Number.isNaN(at.getTime())) throw new CliError(`MBULK_NOW is not a date-time: ${text}`, ExitCode.Usage);
  return at;
}

/** The library's progress as the progress line shows it. */
const progressLine =
  (report: (p: JobProgress) => void) =>
  (p: StoreExportProgress): void =>
    report({ phase: 'export', done: p.done, message: `${plural(p.pages, 'page')} read · ${p.message}` });

/** `mbulk export orders FILE`: the flags to the library's order export, then its report. */
export async function exportOrdersCommand(args: OrderExportArgs, ctx: CommandContext): Promise<number> {
  const { exportFromStore } = await import('../../export/export-from-store.js');
  const { printOrderExport } = await import('../export-orders-report.js');
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const now = runTime(ctx);
  // Test-only (docs/development.md): SIGKILL at a step of a feed's publish.
  const killAt = ctx.env['MBULK_TEST_KILL_AT'] || undefined;
  const target = await resolveTarget(args, ctx);
  try {
    const done = await withProgress(ctx.out, 'Export orders', (report) =>
      exportFromStore(target.client, orderExportRequest(args, ctx.cwd, killAt), {
        signal: ctx.signal,
        now,
        onProgress: progressLine(report),
      }),
    );
    printOrderExport(done, target, ctx);
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

/** `mbulk export products|stock|customers|templates|snapshot FILE`. */
export async function exportCatalogCommand(
  kind: CatalogExportKind,
  args: CatalogExportArgs,
  ctx: CommandContext,
): Promise<number> {
  const { exportFromStore } = await import('../../export/export-from-store.js');
  const { resolveTarget } = await import('../target.js');
  const { withProgress } = await import('../progress.js');
  const target = await resolveTarget(args, ctx);
  try {
    const done = await withProgress(ctx.out, `Export ${kind}`, (report) =>
      exportFromStore(
        target.client,
        { kind, file: args.file, cwd: ctx.cwd, money: args.money, options: args.options, stock: args.stock },
        { signal: ctx.signal, onProgress: progressLine(report) },
      ),
    );
    printCatalogExport(done, args.money === 'minor', target, ctx);
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

function printCatalogExport(
  done: CatalogFromStore,
  minor: boolean,
  target: { describe: unknown },
  ctx: CommandContext,
): void {
  const out = ctx.out;
  const { store: me, pages } = done;
  const read = `${plural(pages, 'page')} read`;
  const base = {
    ok: true,
    kind: done.kind,
    target: target.describe,
    store: { id: me.id, name: me.name, currency: me.currency },
    format: done.format,
  };
  const wrote = (path: string): void => out.line(`Wrote ${shownPath(path, ctx)}`);
  if (done.kind === 'products') {
    const r = done.result;
    out.line(
      `Exported ${r.products} products · ${r.variants} variants · ${r.rows} product rows · ${r.optionRows} option rows · ${read}`,
    );
    for (const w of r.warnings.slice(0, 10)) out.warn(`warning: ${w}`);
    if (r.warningCount > 10)
      out.warn(`warning: … and ${r.warningCount - 10} more values that would not re-import unchanged`);
    wrote(r.paths.products);
    if (r.paths.options !== undefined) {
      wrote(r.paths.options);
      out.line(
        `Re-import: mbulk import products ${shownPath(r.paths.products, ctx)} --options ${shownPath(r.paths.options, ctx)}${minor ? ' --money minor' : ''}`,
      );
    }
    out.result({ ...base, ...r, pages });
  } else if (done.kind === 'stock') {
    const r = done.result;
    out.line(
      `Exported ${r.items} inventory items of ${r.products} products${r.untracked > 0 ? ` (${r.untracked} items with inventory tracking off left out)` : ''} · ${read}`,
    );
    wrote(r.paths.stock);
    out.result({ ...base, ...r, pages });
  } else if (done.kind === 'customers') {
    const r = done.result;
    out.line(`Exported ${r.customers} customers · ${read}`);
    wrote(r.paths.customers);
    out.result({ ...base, ...r, pages });
  } else if (done.kind === 'templates') {
    const r = done.result;
    const statuses = Object.entries(r.byStatus)
      .map(([s, n]) => `${n} ${s}`)
      .join(' · ');
    out.line(`Exported ${r.templates} templates${statuses ? ` (${statuses})` : ''}`);
    wrote(r.paths.templates);
    out.result({ ...base, ...r, pages });
  } else {
    const r = done.result;
    const c = r.counts;
    out.line(
      `Exported ${c.products} products · ${c.customers} customers · ${c.orders} orders · ${c.templates} templates · ${read}`,
    );
    wrote(r.path);
    out.line(`Rehearse on a copy: mbulk sandbox --seed ${shownPath(r.path, ctx)}`);
    out.result({ ...base, counts: c, path: r.path, pages });
  }
}

const FORMATS: Record<CatalogExportKind, string> = {
  products: '.csv, .xlsx',
  stock: '.csv, .xlsx',
  customers: '.csv, .xlsx',
  templates: '.csv, .xlsx, .json',
  snapshot: '.json',
};

function catalogCommand(kind: CatalogExportKind, describe: string): RegisterCommand {
  return (parser, ctx, setExit) =>
    parser.command(
      `${kind} <file>`,
      describe,
      (y) => {
        let c = y.positional('file', {
          type: 'string',
          demandOption: true,
          describe: `Output file (${FORMATS[kind]})`,
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
    (y) => orderExportOptions(y),
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
