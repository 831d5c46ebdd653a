import { dirname } from 'node:path';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { ColumnMap } from '../../formats/column-map.js';
import type { ProductSourceFormat } from '../../formats/source-format.js';
import type { CategoryChoice } from '../../plan/category-plan.js';
import type { StockUnknownMode } from '../../plan/stock-unknown.js';
import type { JobCallbacks } from '../job-events.js';
import { runInputPath } from '../../apply/run-input.js';
import { planProductImport, type PlannedProductRun } from './plan-product-import.js';
import { readProductPlan } from './product-plan-file.js';

/** The runs root of a run directory (its parent). */
export function runsRootOf(run: RunDirectory): string {
  return dirname(run.dir);
}

export interface ReplanProductsOptions extends JobCallbacks {
  client: MerchantClient;
  /** Where the new run writes, for people (never the token). */
  target: string;
}

/**
 * Plans a saved run again against the store as it is now (`mbulk apply RUN --replan`): the run's
 * own copy of the input, with the options it was planned with, into a new run beside it.
 */
export async function replanProductRun(
  run: RunDirectory,
  options: ReplanProductsOptions,
): Promise<PlannedProductRun> {
  const file = readProductPlan(run);
  const o = run.meta.options;
  const optionsCopy =
    file.optionsInput && file.optionsInput.copy !== file.input.copy
      ? runInputPath(run, file.optionsInput)
      : undefined;
  const replace = o['replace'] as { variants?: boolean; options?: boolean; images?: boolean } | undefined;
  return planProductImport({
    client: options.client,
    file: runInputPath(run, file.input),
    runsRoot: runsRootOf(run),
    target: options.target,
    read: {
      ...(file.input.sheet ? { sheet: file.input.sheet } : {}),
      ...(file.input.headerRow ? { headerRow: file.input.headerRow } : {}),
    },
    optionsFile: optionsCopy,
    from: o['from'] as ProductSourceFormat | undefined,
    columnMap: o['columnMap'] as ColumnMap | undefined,
    ...(typeof o['location'] === 'string' ? { location: o['location'] } : {}),
    money: file.read.money,
    decimalComma: file.read.decimalComma,
    blank: file.read.blank,
    replace: replace ?? file.plan.options.replace,
    missing: file.plan.options.missing,
    allowDeletes: o['allowDeletes'] === true,
    removalLimit: removalLimitOf(o['removalLimit']),
    allowPriceJumps: o['allowPriceJumps'] === true,
    allowEmpty: o['allowEmpty'] === true,
    stock: o['stock'] === 'overwrite' ? 'overwrite' : 'protect',
    ...(o['images'] === 'first-10' ? { images: 'first-10' as const } : {}),
    stockUnknown: o['stockUnknown'] as StockUnknownMode | undefined,
    stockUnknownByProduct: savedStockChoices(o['stockUnknownByProduct']),
    ...(o['duplicateSku'] === 'first' ? { duplicateSku: 'first' as const } : {}),
    categories: savedCategoryChoice(o),
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    signal: options.signal,
  });
}

/** The removal limit a plan was made with (`removalLimit` of its options; JSON writes Infinity as null). */
function removalLimitOf(value: unknown): { fraction?: number; count?: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const limit = (v: unknown): number | undefined =>
    typeof v === 'number' ? v : v === null ? Number.POSITIVE_INFINITY : undefined;
  const { fraction, count } = value as { fraction?: unknown; count?: unknown };
  const f = limit(fraction);
  const c = limit(count);
  return { ...(f !== undefined ? { fraction: f } : {}), ...(c !== undefined ? { count: c } : {}) };
}

/** The category choices a run was planned with (`--category-map`, `--default-category`, `--no-category`). */
function savedCategoryChoice(o: Record<string, unknown>): Omit<CategoryChoice, 'required'> {
  const map = o['categoryMap'];
  const out: Omit<CategoryChoice, 'required'> = {};
  if (map !== null && typeof map === 'object') {
    const entries = Object.entries(map as Record<string, unknown>).map(
      ([k, v]) => [k, Array.isArray(v) ? v.map(String) : [String(v)]] as const,
    );
    out.map = new Map(entries);
  }
  if (typeof o['defaultCategory'] === 'string') out.defaultId = o['defaultCategory'];
  if (o['noCategory'] === true) out.none = true;
  return out;
}

/** plan.json's `--stock-unknown KEY=MODE` choices, as planProductImport takes them. */
function savedStockChoices(value: unknown): Map<string, StockUnknownMode> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out = new Map<string, StockUnknownMode>();
  for (const [key, mode] of Object.entries(value))
    if (mode === 'untracked' || mode === 'zero' || mode === 'keep') out.set(key, mode);
  return out;
}
