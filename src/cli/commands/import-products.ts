import { resolve } from 'node:path';
import type { ProductApplySummary } from '../../jobs/products/product-import.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { ColumnMap } from '../../formats/column-map.js';
import type { ProductSourceFormat } from '../../formats/source-format.js';
import type { RegisterCommand } from './index.js';
import { importHelpGroups } from './import-help-groups.js';

interface ProductsArgs extends ImportArgs {
  options?: string | undefined;
  money: string;
  'decimal-comma': boolean;
  blank: string;
  replace?: string | undefined;
  missing: string;
  'allow-deletes': boolean;
  'allow-price-jumps': boolean;
  stock: string;
  report?: string | undefined;
  from?: string | undefined;
  map?: string | undefined;
  'map-file'?: string | undefined;
  'header-row'?: number | undefined;
  images?: string | undefined;
  'stock-unknown'?: string | string[] | undefined;
  location?: string | undefined;
  'duplicate-sku'?: string | undefined;
  'category-map'?: string | undefined;
  'default-category'?: string | undefined;
  /** false with --no-category. */
  category: boolean;
}

const REPLACEABLE = new Set(['variants', 'options', 'images']);

/** `--replace variants,options,images` (any of them) → flags; anything else is a usage error. */
function parseReplace(
  value: string | undefined,
): { variants: boolean; options: boolean; images: boolean } | string {
  const out = { variants: false, options: false, images: false };
  if (value === undefined || value.trim() === '') return out;
  for (const part of value.split(',')) {
    const p = part.trim().toLowerCase();
    if (!REPLACEABLE.has(p))
      return `--replace takes a comma-separated list of variants, options, images, not "${part.trim()}"`;
    out[p as 'variants' | 'options' | 'images'] = true;
  }
  return out;
}

/** Plans a catalog sheet and, with --apply, writes it. */
/** The options that say how the sheet is read (the help's "format" group). */
const FORMAT_OPTIONS = [
  'from',
  'map',
  'map-file',
  'header-row',
  'location',
  'options',
  'money',
  'decimal-comma',
  'blank',
  'replace',
  'images',
  'duplicate-sku',
  'category-map',
  'default-category',
] as const;

/**
 * The options that shape a plan, recorded in run.json: the format options and the choices a plan
 * needs, one list with the help's so that a new option cannot be left out. --options is not here:
 * its bytes are part of the input's identity.
 */
const PLAN_FLAGS: readonly string[] = [
  ...FORMAT_OPTIONS.filter((name) => name !== 'options'),
  'category',
  'missing',
  'stock',
  'stock-unknown',
];

export async function importProducts(args: ProductsArgs, ctx: CommandContext): Promise<number> {
  const { CliError } = await import('../cli-error.js');
  const replace = parseReplace(args.replace);
  if (typeof replace === 'string') throw new CliError(replace, ExitCode.Usage);
  const {
    amountsNote,
    formatRowTally,
    productRowTally,
    planProductImport,
    describeProductEntry,
    liveName,
    productCounts,
    summarizeCreate,
    writeFullProductReport,
  } = await import('../../jobs/products/product-import.js');
  const { deletesFirst } = await import('../../plan/deletes-first.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { writeThisPlanHint } = await import('../run-hints.js');
  const { stockUnknownMessage, stockUnknownSettled, parseStockUnknown } =
    await import('../../plan/stock-unknown.js');
  const { parseColumnMap, readColumnMapFile, ColumnMapError } = await import('../../formats/column-map.js');
  const { summarizeColumns } = await import('../../formats/source-description.js');
  if (args.map !== undefined && args['map-file'] !== undefined)
    throw new CliError('Give either --map or --map-file, not both.', ExitCode.Usage);
  const headerRow = args['header-row'];
  if (headerRow !== undefined && (!Number.isInteger(headerRow) || headerRow < 1))
    throw new CliError(
      `--header-row takes a row number (1 or more), not ${String(headerRow)}`,
      ExitCode.Usage,
    );
  let columnMap: ColumnMap | undefined;
  try {
    if (args.map !== undefined) columnMap = parseColumnMap(args.map);
    else if (args['map-file'] !== undefined)
      columnMap = readColumnMapFile(resolve(ctx.cwd, args['map-file']));
  } catch (error) {
    if (error instanceof ColumnMapError) throw new CliError(error.message, ExitCode.Usage);
    throw error;
  }
  let categoryMap: ReadonlyMap<string, readonly string[]> | undefined;
  if (args['category-map'] !== undefined) {
    const { readCategoryMapFile } = await import('../../formats/category-map.js');
    try {
      categoryMap = readCategoryMapFile(resolve(ctx.cwd, args['category-map']));
    } catch (error) {
      if (error instanceof ColumnMapError) throw new CliError(error.message, ExitCode.Usage);
      throw error;
    }
  }
  const given = args['stock-unknown'];
  const stockUnknown = parseStockUnknown(given === undefined ? [] : Array.isArray(given) ? given : [given]);
  if (typeof stockUnknown === 'string') throw new CliError(stockUnknown, ExitCode.Usage);
  const defaultCategory = args['default-category']?.trim();
  if (defaultCategory === '')
    throw new CliError('--default-category takes a store category id', ExitCode.Usage);
  const { categoryLines } = await import('../../plan/category-plan.js');
  const { printIssues, formatCounts, doneLabel } = await import('../run-summary.js');
  const out = ctx.out;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    kind: 'products',
    planFlags: PLAN_FLAGS,
    extraInputs: args.options === undefined ? undefined : [resolve(ctx.cwd, args.options)],
    planLabel: 'Plan products',
    plan: (basics) =>
      planProductImport({
        ...basics,
        read: { ...basics.read, ...(headerRow !== undefined ? { headerRow } : {}) },
        from: args.from as ProductSourceFormat | undefined,
        columnMap,
        ...(args.location !== undefined ? { location: args.location } : {}),
        optionsFile: args.options === undefined ? undefined : resolve(ctx.cwd, args.options),
        money: args.money as 'units' | 'minor',
        decimalComma: args['decimal-comma'],
        blank: args.blank as 'keep' | 'clear',
        replace,
        missing: args.missing as 'ignore' | 'hide' | 'delete',
        allowDeletes: args['allow-deletes'],
        allowPriceJumps: args['allow-price-jumps'],
        allowEmpty: args['allow-empty'],
        stock: args.stock === 'overwrite' ? 'overwrite' : 'protect',
        images: args.images === 'first-10' ? 'first-10' : undefined,
        stockUnknown: stockUnknown.mode,
        stockUnknownByProduct: stockUnknown.byProduct,
        duplicateSku: args['duplicate-sku'] === 'first' ? 'first' : undefined,
        categories: {
          map: categoryMap,
          defaultId: defaultCategory,
          none: args.category === false,
        },
      }),
    show: (planned, target) => {
      const { plan } = planned.file;
      const counts = productCounts(planned.file);
      const src = planned.file.source;
      if (src !== undefined) {
        out.line(
          `Format: ${src.label}${src.detected ? '' : ' (--from)'}${src.headerRow > 1 ? ` · header on row ${src.headerRow}` : ''}`,
        );
        if (src.hint) out.warn(`hint: ${src.hint}`);
        const amounts = amountsNote(planned.file);
        if (amounts !== undefined) out.line(`Amounts: ${amounts}`);
        if (src.format !== 'mbulk' || src.columns.some((c) => c.field === null)) {
          const { imported, notImported } = summarizeColumns(src.columns);
          out.line(`Columns imported: ${imported}`);
          out.line(`Columns not imported: ${notImported}`);
        }
        const leftOut = planned.file.skippedRows?.length ?? 0;
        if (leftOut > 0)
          out.line(
            `Rows left out: ${leftOut} (rows the conversion does not import, each noted below; results.csv marks them left_out)`,
          );
      }
      // Said before anything else about the plan: an apply would otherwise make stock up.
      if (plan.stockUnknown !== undefined) {
        const line = `Stock unknown: ${stockUnknownMessage(plan.stockUnknown)}`;
        if (!stockUnknownSettled(plan.stockUnknown)) out.warn(line);
        else out.line(line);
      }
      // Said before the plan as well: new products without a category are not on the storefront.
      if (plan.categories !== undefined) {
        const { lines, warnings } = categoryLines(plan.categories);
        for (const line of lines) out.line(line);
        for (const line of warnings) out.warn(line);
      }
      out.line(`Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id})`);
      out.line(`Rows: ${formatRowTally(productRowTally(planned.file))}`);
      out.line(`Plan: ${formatCounts(counts)}`);
      // Deletes and hides first, each naming the product (not only its reference code).
      const writes = deletesFirst(plan.entries).filter((e) =>
        ['create', 'update', 'hide', 'delete'].includes(e.action),
      );
      let shown = 0;
      for (const e of writes) {
        if (shown >= 30) break;
        const lines =
          e.action === 'create'
            ? [summarizeCreate(e, plan.decimals)]
            : describeProductEntry(e, plan.decimals, liveName(planned.file, e));
        for (const line of lines.slice(0, 8)) {
          out.planLine(`  ${line}`);
          shown++;
        }
      }
      if (shown >= 30 || writes.length > 0) out.line(`  (every change: ${planned.run.file('report')})`);
      if (plan.missingSkipped) out.warn(`warning: ${plan.missingSkipped}`);
      if (plan.replaceSkipped) out.warn(`warning: ${plan.replaceSkipped}`);
      if (plan.stockChoicesUnused) out.warn(`warning: ${plan.stockChoicesUnused}`);
      if (plan.stockSpared) out.warn(`warning: ${plan.stockSpared}`);
      const jumps = planned.file.priceJumps ?? [];
      if (jumps.length > 0) {
        out.warn(
          `warning: ${jumps.length} suspicious price change${jumps.length === 1 ? '' : 's'} (×10 or more of the live price, or over 10× the catalog's median price)${args['allow-price-jumps'] ? '' : '; --apply refuses them unless --allow-price-jumps'}:`,
        );
        for (const j of jumps.slice(0, 20)) out.warn(`  suspicious price: ${j.message}`);
        if (jumps.length > 20) out.warn(`  … and ${jumps.length - 20} more (${planned.run.file('report')})`);
      }
      const allIssues = [...planned.file.issues, ...plan.entries.flatMap((e) => e.issues)];
      printIssues(out, allIssues);
      if (args.report) {
        const reportFile = resolve(ctx.cwd, args.report);
        writeFullProductReport(planned.run, planned.file, reportFile);
        out.line(`Report: ${reportFile}`);
      }
      invalid = counts['invalid rows'] ?? 0;
      const jumpFlag = jumps.length > 0 && !args['allow-price-jumps'] ? ' --allow-price-jumps' : '';
      return {
        base: {
          runId: planned.run.id,
          runDir: planned.run.dir,
          target: target.describe,
          ...(src ? { format: src.format, headerRow: src.headerRow, columns: src.columns } : {}),
          currency: planned.file.store.currency,
          ...(amountsNote(planned.file) !== undefined ? { amounts: amountsNote(planned.file) } : {}),
          counts,
          rows: productRowTally(planned.file),
          summary: plan.summary,
          ...(planned.file.priceJumps ? { priceJumps: planned.file.priceJumps } : {}),
          ...(plan.stockSpared ? { stockSpared: plan.stockSpared } : {}),
          ...(plan.stockUnknown
            ? { stockUnknown: { ...plan.stockUnknown, message: stockUnknownMessage(plan.stockUnknown) } }
            : {}),
          ...(plan.categories ? { categories: plan.categories } : {}),
        },
        invalid,
        invalidRows: { key: 'failedRows', rows: invalidRows(allIssues, true) },
        writes: writes.length,
        // Price jumps refuse an apply without the flag: the way to write names it.
        dryRun: `Dry run: nothing was written. ${writeThisPlanHint('write', planned.run.id, args, ctx, jumpFlag)}`,
        nothing: 'Nothing to write.',
        confirm: `Write ${writes.length} product changes (${formatCounts({ create: plan.summary.create, update: plan.summary.update, hide: plan.summary.hide, delete: plan.summary.delete })}) to ${planned.store.name}?`,
        refused: (refusal) => refusal,
      };
    },
    applyLabel: 'Apply products',
    summarize: (applied: ProductApplySummary) => {
      out.line(
        `${doneLabel('Applied', applied.status)}: ${applied.created} created · ${applied.updated} updated · ${applied.hidden} hidden · ${applied.deleted} deleted · ${applied.failed} failed · ${invalid} invalid rows · ${applied.requests} write requests`,
      );
      for (const f of applied.failedOperations.slice(0, 20)) {
        out.line(
          `  failed ${f.label}: ${f.code}: ${f.message}${f.requestId ? ` (request ${f.requestId})` : ''}`,
        );
      }
      return {
        fields: {
          created: applied.created,
          updated: applied.updated,
          hidden: applied.hidden,
          deleted: applied.deleted,
          failed: applied.failed,
          writeRequests: applied.requests,
          failedOperations: applied.failedOperations,
        },
        alsoFailed: applied.failed > 0,
      };
    },
    failedFile: true,
  });
}

export const registerImportProducts: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'products <file>',
    'Catalog sheet (one row per variant; options in an `options` sheet or --options FILE): plan, then --apply',
    (y) =>
      importHelpGroups(
        y
          .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
          .option('options', {
            type: 'string',
            describe: 'Options sheet as a separate file (default: the workbook sheet named options)',
          })
          .option('money', {
            type: 'string',
            choices: ['units', 'minor'],
            default: 'units',
            describe: 'Money cells in currency units (12.90) or minor units (1290)',
          })
          .option('decimal-comma', {
            type: 'boolean',
            default: false,
            describe: 'Accept 12,90 as a decimal comma',
          })
          .option('blank', {
            type: 'string',
            choices: ['keep', 'clear'],
            default: 'keep',
            describe: 'A blank cell keeps the live value (keep) or clears fields that can be empty (clear)',
          })
          .option('replace', {
            type: 'string',
            describe:
              'Comma-separated: variants, options, images. Those lists on the sheet replace the live ones (default: variants, options and images absent from the sheet are kept)',
          })
          .option('missing', {
            type: 'string',
            choices: ['ignore', 'hide', 'delete'],
            default: 'ignore',
            describe: 'What happens to live products absent from the sheet',
          })
          .option('allow-deletes', {
            type: 'boolean',
            default: false,
            describe: 'Allow hiding/deleting more than 10% of the catalog or more than 50 products',
          })
          .option('allow-price-jumps', {
            type: 'boolean',
            default: false,
            describe:
              'Allow --apply to write prices ×10 or more (or ÷10 or more) of the live price, or over 10× the catalog median (default: refused, exit 3)',
          })
          .option('stock', {
            type: 'string',
            choices: ['protect', 'overwrite'],
            default: 'protect',
            describe:
              "Stock of a sheet exported by mbulk (mbulk_exported_at): protect leaves alone items whose stock changed after the export; overwrite writes the sheet's quantities anyway",
          })
          .option('report', { type: 'string', describe: 'Write the whole report to FILE (.md or .json)' })
          .option('from', {
            type: 'string',
            choices: ['shopify', 'woocommerce', 'etsy', 'wix', 'square', 'bigcommerce', 'mbulk'],
            describe:
              'The sheet format: a Shopify or WooCommerce product export, an Etsy listings download, a Wix Stores product export, a Square item library export, a BigCommerce products export, or the merchant-bulk sheet (default: recognised from the header)',
          })
          .option('map', {
            type: 'string',
            describe:
              'Read other columns as product fields: "Header=field,…", e.g. "Title=name,Barcode=variant_sku" (default: headers are field names or their aliases)',
          })
          .option('map-file', {
            type: 'string',
            describe:
              'The column map as JSON: {"columns": {"Header": "field"}} (see templates/column-map.json)',
          })
          .option('header-row', {
            type: 'number',
            describe:
              'The row holding the column names (default: found: the first row that names two or more columns, below any title row)',
          })
          .option('stock-unknown', {
            type: 'string',
            describe:
              'Products that track stock the sheet does not give (a platform export without a quantity column, a blank quantity): untracked creates them without stock tracking, zero with stock 0, keep leaves existing stock alone and creates new ones untracked (default: the plan says so and --apply refuses, exit 3). KEY=MODE (repeatable) chooses for one product, by its reference_id or SKU as the plan names it',
          })
          .option('location', {
            type: 'string',
            describe:
              "A Square export's stock from one location (the NAME of its Current Quantity NAME column) instead of the sum over its locations",
          })
          .option('images', {
            type: 'string',
            choices: ['first-10'],
            describe:
              'A product with more than 10 images (the API limit): first-10 keeps the first ten in position order and lists every other URL in the plan and results.csv (default: the product is invalid)',
          })
          .option('duplicate-sku', {
            type: 'string',
            choices: ['first', 'refuse'],
            describe:
              'A variant SKU already held by another variant or product: first keeps it where it is first and creates the later variants without a SKU (listed in the plan and results.csv); refuse makes the product invalid, one error naming it (default: refuse)',
          })
          .option('category-map', {
            type: 'string',
            describe:
              'New products\' categories: a JSON file {"categories": {"source category": "store category id"}} (or a CSV of the two) mapping the export\'s categories (WooCommerce Categories, Shopify Type and Product Category, Etsy section, Wix collection, Square and BigCommerce categories) to store category ids; the plan lists the store\'s ids and a map suggested by name (default: none)',
          })
          .option('default-category', {
            type: 'string',
            describe:
              'The store category id a new product gets when nothing else gives it one (default: none)',
          })
          .option('category', {
            type: 'boolean',
            default: true,
            describe:
              "A product with no category is not listed on the storefront: for another platform's export or a mapped sheet, --apply refuses (exit 3) while a new product would have none, until --category-map, --default-category, or --no-category (create them unlisted)",
          })
          .example('$0 import products samples/catalog.csv', 'plan only: what would change')
          .example('$0 import products catalog.xlsx --apply --yes', 'write it, unattended')
          .example('$0 import products products_export_1.csv', 'a Shopify export, as it is')
          .example(
            '$0 import products supplier.xlsx --map "Title=name,Barcode=variant_sku"',
            'any other sheet',
          )
          .example(
            '$0 import products catalog.csv --options options.csv --missing hide',
            'hide what the sheet omits',
          ),
        {
          safety: ['allow-price-jumps', 'stock-unknown', 'category', 'allow-deletes', 'missing', 'stock'],
          format: FORMAT_OPTIONS,
          output: ['report'],
        },
      ),
    async (argv) => {
      setExit(await importProducts(argv as unknown as ProductsArgs, ctx));
    },
  );
