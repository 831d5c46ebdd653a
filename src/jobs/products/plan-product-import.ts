import type { RunDirectory } from '../../apply/run-directory.js';
import type { ColumnMap } from '../../formats/column-map.js';
import type { ProductSourceFormat } from '../../formats/source-format.js';
import { checkGuardrail } from '../../plan/check-guardrail.js';
import { planProducts, type PlanProductsOptions } from '../../plan/plan-products.js';
import { findPriceJumps, priceJumpRefusal } from '../../plan/price-jumps.js';
import { stockUnknownRefusal, type StockUnknownMode } from '../../plan/stock-unknown.js';
import { categoryRefusal, type CategoryChoice } from '../../plan/category-plan.js';
import { currencyDecimals, type Store } from '../../schema/index.js';
import { keepRunInput } from '../../apply/run-input.js';
import { planFromSheet, type PlanFromSheetOptions, type SheetRead } from '../runner/plan-from-sheet.js';
import { imageMemoryFile, readImageMemory } from './image-memory.js';
import { LiveCatalogRead, sortAgainstSheet } from './live-catalog-read.js';
import type { ProductPlanFile } from './product-plan-file.js';
import { productCounts, writeProductReport, WRITES } from './product-report.js';
import { looseIssues, readProductSheets, type ProductSheets } from './product-sheets.js';
import { handOverPlanRead } from './product-write-check.js';

export interface PlanProductsImportOptions extends PlanFromSheetOptions {
  /** A separate options file (`--options FILE`); default: the workbook's `options` sheet, if any. */
  optionsFile?: string | undefined;
  money?: 'units' | 'minor';
  decimalComma?: boolean;
  blank?: 'keep' | 'clear';
  replace?: { variants?: boolean; options?: boolean; images?: boolean };
  missing?: 'ignore' | 'hide' | 'delete';
  allowDeletes?: boolean;
  /**
   * Without `allowDeletes`, the plan is refused when it hides and deletes more than this share of
   * the live catalog or this many products (default: 10% and 50; Infinity turns one off).
   */
  removalLimit?: { fraction?: number | undefined; count?: number | undefined } | undefined;
  /** The products sheet's format (`--from`); default: detected from its header. */
  from?: ProductSourceFormat | undefined;
  /** `--map` / `--map-file`: source headers → canonical fields. */
  columnMap?: ColumnMap | undefined;
  /** `--location NAME`: a Square export's stock from that location alone (default: summed). */
  location?: string | undefined;
  /**
   * `protect` (default): when the sheet is an `mbulk export products` (its `mbulk_exported_at`), an
   * item whose stock changed in the store after the export keeps its live stock. `overwrite`: the
   * sheet's quantities are written anyway (`--stock overwrite`).
   */
  stock?: 'protect' | 'overwrite';
  /** Let `--apply` write price changes of ×10 or more, or over 10× the median price (default false). */
  allowPriceJumps?: boolean;
  /** `first-10`: a product with more than 10 images keeps the first ten (default: it is invalid). */
  images?: 'first-10' | undefined;
  /**
   * Stock the sheet tracks without giving it (`--stock-unknown`, see readUnknownStock). Default:
   * the plan says so and `--apply` refuses (exit 3, nothing written) until one is chosen.
   */
  stockUnknown?: StockUnknownMode | undefined;
  /** `--stock-unknown KEY=MODE`: one product's own choice (see planProducts). */
  stockUnknownByProduct?: ReadonlyMap<string, StockUnknownMode> | undefined;
  /**
   * New products' categories (see CategoryChoice): `--category-map`, `--default-category`,
   * `--no-category`. For another platform's export or a mapped sheet, `--apply` refuses while a new
   * product would have no category and none of them says what to do.
   */
  categories?: Omit<CategoryChoice, 'required'> | undefined;
  /** A variant SKU held twice (`--duplicate-sku`, see ProductMappingOptions.duplicateSku); default refuse. */
  duplicateSku?: 'first' | 'refuse' | undefined;
}

/** The products sheet (and options) as read: the empty-sheet check counts the products sheet's rows. */
interface ProductsRead extends SheetRead {
  sheets: ProductSheets;
}

export interface PlannedProductRun {
  run: RunDirectory;
  file: ProductPlanFile;
  store: Store;
  /** Set when the guardrail refuses the plan (exit 3); nothing may be applied. */
  refusal?: string;
  /** Set when the plan has price jumps and `allowPriceJumps` is off: `--apply` refuses (exit 3). */
  applyRefusal?: string;
  /** Seconds per phase: read+validate, live fetch (overlapping the read), plan. */
  timings: { read: number; fetch: number; plan: number };
}

/**
 * Reads the products sheet (and options), the live catalog and the image memory, and plans (dry
 * run). Creates the run directory with plan.json, the input copies and report.md.
 */
export async function planProductImport(options: PlanProductsImportOptions): Promise<PlannedProductRun> {
  const { client } = options;
  const money = options.money ?? 'units';
  const decimalComma = options.decimalComma ?? false;
  const blank = options.blank ?? 'keep';
  const allowPriceJumps = options.allowPriceJumps ?? false;
  const timings = { read: 0, fetch: 0, plan: 0 };
  // The live catalog is read while the sheet is (from its header on), and stopped if it is refused.
  let live: LiveCatalogRead | undefined;
  const planned = await planFromSheet<ProductsRead, ProductPlanFile>(options, {
    kind: 'products',
    read: async (store) => {
      const sheets = await readProductSheets({
        file: options.file,
        read: options.read,
        optionsFile: options.optionsFile,
        mapping: {
          decimals: currencyDecimals(store.currency),
          // Each sheet product stays packed until it is planned (against the live product it names).
          pack: true,
          money,
          decimalComma,
          blank,
          currency: store.currency,
          ...(options.images !== undefined ? { images: options.images } : {}),
          ...(options.duplicateSku !== undefined ? { duplicateSku: options.duplicateSku } : {}),
          ...(options.categories?.map !== undefined
            ? { categoryMap: Object.fromEntries(options.categories.map) }
            : {}),
          ...(options.categories?.defaultId !== undefined
            ? { defaultCategory: options.categories.defaultId }
            : {}),
          ...(options.categories?.none === true ? { noCategory: true } : {}),
        },
        from: options.from,
        columnMap: options.columnMap,
        ...(options.location !== undefined ? { location: options.location } : {}),
        onProgress: options.onProgress,
        onWarning: options.onWarning,
        signal: options.signal,
        onHeader: () => {
          live ??= new LiveCatalogRead(client, options);
        },
        letReadGo: () => live?.letReadGo(),
      });
      timings.read = sheets.seconds;
      // An empty products sheet is refused as a truncated file: its rows alone count.
      return { sheets, info: sheets.products, rows: sheets.productRows };
    },
    plan: async ({ sheets }, store) => {
      const decimals = currencyDecimals(store.currency);
      const { mapping } = sheets;
      const memoryFile = imageMemoryFile(options.runsRoot, store.id);
      const planOptions: PlanProductsOptions = {
        decimals,
        missing: options.missing ?? 'ignore',
        replace: options.replace ?? {},
        imageMemory: readImageMemory(memoryFile),
        columnRefs: mapping.columnRefs,
        unkeyedRows: mapping.unkeyedRows,
        unkeyedOptionRows: mapping.unkeyedOptionRows,
        ...(sheets.exportedAt !== undefined && options.stock !== 'overwrite'
          ? { stockSince: sheets.exportedAt }
          : {}),
        stockUnknown: options.stockUnknown,
        stockUnknownByProduct: options.stockUnknownByProduct,
        categories: { ...options.categories, required: sheets.source.format !== 'mbulk' },
        platformExport: sheets.source.format !== 'mbulk' && sheets.source.format !== 'map',
      };
      live ??= new LiveCatalogRead(client, options);
      // Only the live products the plan may write keep their full body (the backup's before-state);
      // those the sheet leaves unchanged are kept compact.
      live.sortBy(sortAgainstSheet(mapping.products, planOptions));
      const catalog = await live.complete();
      // The whole read, most of it while the sheet was read.
      timings.fetch = live.seconds;

      const planStart = performance.now();
      const plan = planProducts(mapping.products, catalog, planOptions);
      // The live products the plan writes, as read (the backup's before-states).
      const before = await live.takeBodies(
        plan.entries.flatMap((e) => (WRITES.has(e.action) && e.productId !== null ? [e.productId] : [])),
      );
      const guard = checkGuardrail(plan, plan.liveCount, {
        allowDeletes: options.allowDeletes ?? false,
        ...(options.removalLimit?.fraction !== undefined
          ? { maxFraction: options.removalLimit.fraction }
          : {}),
        ...(options.removalLimit?.count !== undefined ? { maxCount: options.removalLimit.count } : {}),
      });
      const priceJumps = findPriceJumps(plan, { decimals, median: live.medianPrice() });
      timings.plan = (performance.now() - planStart) / 1000;
      options.onProgress?.({ phase: 'plan', done: plan.entries.length });
      return {
        options: {
          ...(options.read?.sheet ? { sheet: options.read.sheet } : {}),
          ...(options.optionsFile ? { optionsFile: options.optionsFile } : {}),
          ...(options.from ? { from: options.from } : {}),
          ...(options.columnMap ? { columnMap: options.columnMap } : {}),
          ...(options.location !== undefined ? { location: options.location } : {}),
          money,
          decimalComma,
          blank,
          missing: plan.options.missing,
          replace: plan.options.replace,
          allowDeletes: options.allowDeletes ?? false,
          ...(options.removalLimit !== undefined ? { removalLimit: options.removalLimit } : {}),
          allowPriceJumps,
          ...(options.allowEmpty ? { allowEmpty: true } : {}),
          stock: options.stock ?? 'protect',
          ...(options.images !== undefined ? { images: options.images } : {}),
          ...(options.stockUnknown !== undefined ? { stockUnknown: options.stockUnknown } : {}),
          ...(options.stockUnknownByProduct !== undefined && options.stockUnknownByProduct.size > 0
            ? { stockUnknownByProduct: Object.fromEntries(options.stockUnknownByProduct) }
            : {}),
          ...(options.duplicateSku !== undefined ? { duplicateSku: options.duplicateSku } : {}),
          ...(options.categories?.map !== undefined
            ? { categoryMap: Object.fromEntries(options.categories.map) }
            : {}),
          ...(options.categories?.defaultId !== undefined
            ? { defaultCategory: options.categories.defaultId }
            : {}),
          ...(options.categories?.none === true ? { noCategory: true } : {}),
        },
        file: (head, run): ProductPlanFile => {
          const { input } = head;
          const src = sheets.options;
          const optionsInput =
            src.kind === 'workbook'
              ? { ...input, sheet: src.sheet }
              : src.kind === 'file'
                ? keepRunInput(run, src.file, 'options', src.sheet)
                : undefined;
          return {
            ...head,
            store: { id: store.id, name: store.name, currency: store.currency },
            ...(optionsInput ? { optionsInput } : {}),
            sheets: {
              products: sheets.productsLabel,
              ...(sheets.optionsLabel !== undefined ? { options: sheets.optionsLabel } : {}),
            },
            read: { money, decimalComma, blank },
            imageMemoryFile: memoryFile,
            rows: sheets.rows,
            plan,
            issues: looseIssues(mapping),
            source: sheets.source,
            ...(sheets.skipped.length > 0 ? { skippedRows: sheets.skipped } : {}),
            before,
            ...(guard.ok ? {} : { refusal: guard.message }),
            ...(priceJumps.length > 0 ? { priceJumps } : {}),
          };
        },
        refusal: guard.ok ? undefined : guard.message,
        // What `mbulk apply RUN` needs: --allow-deletes lifts the guard, --allow-price-jumps the
        // jumps; stock read without --stock-unknown is never applied (plan it again).
        needs: [
          ...(guard.ok ? [] : (['allowDeletes'] as const)),
          ...(priceJumps.length > 0 && !allowPriceJumps ? (['allowPriceJumps'] as const) : []),
          ...(stockUnknownRefusal(plan) !== undefined ? (['plan-again'] as const) : []),
        ],
      };
    },
    counts: productCounts,
    report: writeProductReport,
    extraInputs: options.optionsFile !== undefined ? [options.optionsFile] : [],
  }).catch((error: unknown) => {
    live?.stop();
    throw error;
  });
  // The plan's live read is the write-time check's first listing when this process applies the run.
  if (live !== undefined) handOverPlanRead(planned.run, live, planned.file.plan);
  const { priceJumps } = planned.file;
  const applyRefusal =
    priceJumps && priceJumps.length > 0 && !allowPriceJumps
      ? priceJumpRefusal(priceJumps)
      : (stockUnknownRefusal(planned.file.plan) ?? categoryRefusal(planned.file.plan));
  return { ...planned, ...(applyRefusal !== undefined ? { applyRefusal } : {}), timings };
}
