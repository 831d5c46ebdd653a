import { UsageError } from '../errors/usage-error.js';
import { parseStockUnknown, type StockUnknownMode } from '../plan/stock-unknown.js';
import { inToolTerms } from './tool-terms.js';

/**
 * plan_import's `stock_unknown` as planProductImport takes it: a mode for every product, or a list
 * of `KEY=MODE` (one product) and at most one mode (the others), read as the command line reads
 * `--stock-unknown` given once per entry. A value that is neither is a usage error in the tools' terms.
 */
export function stockUnknownArgument(value: string | readonly string[] | undefined): {
  mode?: StockUnknownMode;
  byProduct: Map<string, StockUnknownMode>;
} {
  const parsed = parseStockUnknown(value === undefined ? [] : typeof value === 'string' ? [value] : value);
  if (typeof parsed === 'string') throw new UsageError(inToolTerms(parsed), 'stock_unknown');
  return parsed;
}
