import { formatMoney } from '../sheets/money.js';
import type { LiveCatalog, LiveProduct } from './live-catalog.js';
import type { PlanEntry, ProductPlan } from './product-plan.js';

/** A price the plan would write that looks like a typo (a forgotten or extra decimal point). */
export interface PriceJump {
  /** The plan entry's key (`update:<id>`, `create:ref:<ref>`). */
  key: string;
  /** `ERP-0000001 price`, `ERP-0000001 variants[S-1].price`. */
  label: string;
  sheet?: string;
  rowNumber?: number;
  /** Live price (minor units); null for a new product or variant. */
  before: number | null;
  after: number;
  /** `ratio`: ×10 or more (or ÷10 or more) of the live price; `median`: over 10× the catalog's median. */
  reason: 'ratio' | 'median';
  /** One line for people: `ERP-0000001 (row 4): price 11.90 → 1190.00 (×100)`. */
  message: string;
}

export interface PriceJumpOptions {
  /** Decimals of the store currency (for messages). */
  decimals: number;
  /** Median price of the live catalog (minor units), or undefined for an empty catalog. */
  median: number | undefined;
  /** The factor that makes a change suspicious (default 10). */
  factor?: number;
}

/**
 * The median price of the live catalog: one price per sellable item (each variant of a product
 * with variants, else the product's price). Undefined when the catalog is empty.
 */
export function medianCatalogPrice(catalog: Pick<LiveCatalog, 'products'>): number | undefined {
  const prices: number[] = [];
  for (const p of catalog.products) sellablePrices(p, prices);
  return medianPrice(prices);
}

/** The prices of a product's sellable items (each variant's, else the product's), added to `out`. */
export function sellablePrices(p: Pick<LiveProduct, 'price' | 'variants'>, out: number[]): void {
  if (p.variants.length === 0) out.push(p.price);
  else for (const v of p.variants) out.push(v.price);
}

/** The median of these prices (sorted in place), or undefined when there are none. */
export function medianPrice(prices: number[]): number | undefined {
  if (prices.length === 0) return undefined;
  prices.sort((a, b) => a - b);
  const mid = prices.length >> 1;
  return prices.length % 2 === 1
    ? (prices[mid] as number)
    : Math.round(((prices[mid - 1] as number) + (prices[mid] as number)) / 2);
}

const VARIANT_PRICE = /^variants\[.*\]\.price$/;

function ratioText(before: number, after: number): string {
  if (after === 0) return '→ 0';
  const r = after / before;
  const show = (n: number) => (n >= 100 ? n.toFixed(0) : n.toPrecision(2).replace(/\.0+$/, ''));
  return r >= 1 ? `×${show(r)}` : `÷${show(1 / r)}`;
}

/**
 * Prices a plan would write that are probably typos: a change that multiplies or divides the live
 * price by `factor` (10) or more, and any new or changed price above `factor` × the median price
 * of the live catalog. Product and variant prices of creates and updates. Pure.
 */
export function findPriceJumps(plan: Pick<ProductPlan, 'entries'>, options: PriceJumpOptions): PriceJump[] {
  const factor = options.factor ?? 10;
  const { decimals, median } = options;
  const money = (n: number) => formatMoney(n, decimals);
  const jumps: PriceJump[] = [];
  const add = (entry: PlanEntry, path: string, before: number | null, after: number): void => {
    const row = entry.rows[0];
    const where = row ? ` (row ${row.rowNumber})` : '';
    const base = {
      key: entry.key,
      label: `${entry.label} ${path}`,
      ...(row ? { sheet: row.sheet, rowNumber: row.rowNumber } : {}),
      before,
      after,
    };
    if (before !== null && before > 0 && (after >= before * factor || after * factor <= before)) {
      jumps.push({
        ...base,
        reason: 'ratio',
        message: `${entry.label}${where}: ${path} ${money(before)} → ${money(after)} (${ratioText(before, after)})`,
      });
    } else if (median !== undefined && median > 0 && after > median * factor) {
      jumps.push({
        ...base,
        reason: 'median',
        message: `${entry.label}${where}: ${path} ${before === null ? 'new' : money(before)} → ${money(after)} (over ${factor}× the catalog's median price ${money(median)})`,
      });
    }
  };
  for (const entry of plan.entries) {
    if (entry.action !== 'create' && entry.action !== 'update') continue;
    // Changed prices of live products and variants.
    for (const c of entry.changes) {
      if (
        c.money !== true ||
        c.before === null ||
        typeof c.before !== 'number' ||
        typeof c.after !== 'number'
      )
        continue;
      if (c.path === 'price' || VARIANT_PRICE.test(c.path)) add(entry, c.path, c.before, c.after);
    }
    // New prices: a created product's, and every new variant's (no id yet).
    const body = (entry.body ?? {}) as { price?: unknown; variants?: unknown };
    if (entry.action === 'create' && typeof body.price === 'number') add(entry, 'price', null, body.price);
    if (Array.isArray(body.variants)) {
      for (const v of body.variants as { id?: unknown; price?: unknown; sku?: unknown; name?: unknown }[]) {
        if (v.id !== undefined || typeof v.price !== 'number') continue;
        const name = typeof v.sku === 'string' && v.sku !== '' ? v.sku : String(v.name ?? '?');
        add(entry, `variants[${name}].price`, null, v.price);
      }
    }
  }
  return jumps;
}

/** The refusal message of a plan with price jumps (exit 3 on --apply). */
export function priceJumpRefusal(jumps: readonly PriceJump[]): string {
  return `refused: ${jumps.length} suspicious price change${jumps.length === 1 ? '' : 's'} (×10 or more of the live price, or over 10× the catalog's median price; a forgotten decimal point?): ${jumps
    .slice(0, 3)
    .map((j) => j.message)
    .join(
      '; ',
    )}${jumps.length > 3 ? `; … and ${jumps.length - 3} more` : ''}. Nothing was written. Fix the sheet, or pass --allow-price-jumps if the prices are right`;
}
