import type { ColumnRefs, DesiredProduct, DesiredVariant } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { LiveProduct, LiveVariant } from './live-catalog.js';

/**
 * What to do with stock a sheet tracks but does not give (`--stock-unknown`):
 * - `untracked`: such products are left without stock tracking (created so, or switched off);
 * - `zero`: their stock is 0;
 * - `keep`: existing items' stock is left as it is, new products are created untracked.
 */
export const STOCK_UNKNOWN_MODES = ['untracked', 'zero', 'keep'] as const;
export type StockUnknownMode = (typeof STOCK_UNKNOWN_MODES)[number];

/** Products whose stock the sheet tracks without giving it (plan.json `stockUnknown`). */
export interface StockUnknown {
  products: number;
  /** Inventory items among them (a variant, or a product without variants). */
  items: number;
  /** How they were planned; absent: not chosen, and `--apply` refuses (unless every product has its own choice). */
  mode?: StockUnknownMode;
  /** Labels of up to 20 of those products. */
  examples: string[];
  /** Products planned by their own choice (`--stock-unknown KEY=MODE`), each with its mode. */
  byProduct?: { product: string; mode: StockUnknownMode }[];
  /** With `byProduct` and no `mode`: products left without a choice (`--apply` refuses while any is). */
  unchosen?: number;
}

/** Whether every product of unknown stock was given a way to read it (a mode, or one of its own). */
export function stockUnknownSettled(s: StockUnknown): boolean {
  return s.mode !== undefined || (s.byProduct !== undefined && s.byProduct.length > 0 && s.unchosen === 0);
}

const MODE_TEXT: Readonly<Record<StockUnknownMode, string>> = {
  untracked: 'without stock tracking',
  zero: 'stock 0',
  keep: 'existing stock left alone, new products untracked',
};

/**
 * `--stock-unknown` as given (once or more): a MODE for every product, and `KEY=MODE` for the
 * product whose reference_id, SKU or key is KEY (the key as the plan names it). A string: why the
 * value is not one of those.
 */
export function parseStockUnknown(
  values: readonly string[],
): { mode?: StockUnknownMode; byProduct: Map<string, StockUnknownMode> } | string {
  const isMode = (t: string): t is StockUnknownMode => (STOCK_UNKNOWN_MODES as readonly string[]).includes(t);
  let mode: StockUnknownMode | undefined;
  const byProduct = new Map<string, StockUnknownMode>();
  for (const raw of values) {
    const v = raw.trim();
    if (isMode(v)) {
      if (mode !== undefined && mode !== v)
        return `--stock-unknown is given twice for every product (${mode} and ${v}); give one MODE, and KEY=MODE for single products`;
      mode = v;
      continue;
    }
    const at = v.lastIndexOf('=');
    const key = at < 0 ? '' : v.slice(0, at).trim();
    const m = at < 0 ? '' : v.slice(at + 1).trim();
    if (key === '' || !isMode(m))
      return `--stock-unknown takes untracked, zero or keep (every product), or KEY=MODE for one product (its reference_id or SKU as the plan names it, e.g. "woo:45=zero"), not "${v}"`;
    if (byProduct.has(key) && byProduct.get(key) !== m)
      return `--stock-unknown gives "${key}" two modes (${byProduct.get(key) ?? ''} and ${m})`;
    byProduct.set(key, m);
  }
  return mode === undefined ? { byProduct } : { mode, byProduct };
}

/** How a product's stock is read when its quantities are missing. */
export interface UnknownStockReading {
  /** The product to plan (a copy with the mode applied, or the same one). */
  product: DesiredProduct;
  /** Inventory items whose stock the sheet does not give. */
  items: number;
}

interface Item {
  variant?: DesiredVariant;
  known: boolean;
  /** The item exists in the store (its stock is live data). */
  existing: boolean;
}

function matchVariant(live: LiveProduct, dv: DesiredVariant): LiveVariant | undefined {
  const f = dv.fields;
  return (
    (f.id !== undefined ? live.variants.find((v) => v.id === f.id) : undefined) ??
    (f.sku !== undefined ? live.variants.find((v) => v.sku === f.sku) : undefined) ??
    (f.name !== undefined ? live.variants.find((v) => v.name === f.name) : undefined)
  );
}

/**
 * A product's inventory items that track stock without a quantity on the sheet. New items (a new
 * product, a new variant, tracking switched on) would be created at 0 by the service: stock made
 * up. Existing items count only for a platform export (`platform`): its blank quantity means "not
 * exported", not "leave alone" as in the project's own sheets.
 */
function itemsOf(dp: DesiredProduct, live: LiveProduct | undefined, platform: boolean): Item[] | undefined {
  const tracked = dp.fields.inventory_enabled ?? live?.inventory_enabled ?? false;
  if (!tracked) return undefined;
  const liveTracked = live?.inventory_enabled === true;
  const items: Item[] = [];
  if (dp.variants.length === 0) {
    // Variants the sheet does not list are not its to stock.
    if (live !== undefined && live.variants.length > 0) return undefined;
    items.push({ known: dp.fields.inventory_quantity !== undefined, existing: liveTracked });
  } else {
    for (const v of dp.variants) {
      const lv = live === undefined ? undefined : matchVariant(live, v);
      items.push({
        variant: v,
        known: v.fields.inventory_quantity !== undefined,
        existing: liveTracked && lv !== undefined,
      });
    }
  }
  const unknown = items.filter((i) => !i.known && (!i.existing || platform));
  return unknown.length === 0 ? undefined : items;
}

/** The product as the plan names it: `"woo:45" (Hoodie)`. */
function productLabel(dp: DesiredProduct): string {
  const f = dp.fields;
  const key = f.reference_id ?? f.sku ?? dp.key.value;
  return `"${key}"${f.name !== undefined && f.name !== key ? ` (${f.name})` : ''}`;
}

/** The error on the first item without a quantity: its row and its quantity cell. */
function issue(dp: DesiredProduct, first: Item | undefined, message: string, refs: ColumnRefs): RowIssue {
  const row = first?.variant?.row ?? dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  const out: RowIssue = {
    severity: 'error',
    code: 'stock_unknown_mixed',
    message,
    sheet: row.sheet,
    rowNumber: row.rowNumber,
  };
  const ref = refs[first?.variant !== undefined ? 'variant_inventory_quantity' : 'inventory_quantity'];
  if (ref !== undefined && ref.letter !== '') {
    out.column = ref.letter;
    out.header = ref.header;
  }
  return out;
}

/**
 * Reads a product whose tracked stock the sheet does not give, as `mode` says (undefined: as it
 * is; the plan then says so and `--apply` refuses). Untracked and keep cannot leave one variant of
 * a product untracked (tracking is the product's): a product that gives some quantities and not
 * others is invalid, saying so.
 */
export function readUnknownStock(
  dp: DesiredProduct,
  live: LiveProduct | undefined,
  mode: StockUnknownMode | undefined,
  platform: boolean,
  refs: ColumnRefs = {},
): UnknownStockReading {
  const items = itemsOf(dp, live, platform);
  if (items === undefined) return { product: dp, items: 0 };
  const unknown = items.filter((i) => !i.known && (!i.existing || platform));
  if (mode === undefined) return { product: dp, items: unknown.length };
  const product: DesiredProduct = {
    ...dp,
    fields: { ...dp.fields },
    variants: dp.variants.map((v) => ({ ...v, fields: { ...v.fields } })),
    issues: [...dp.issues],
  };
  const copyOf = (v: DesiredVariant | undefined) =>
    v === undefined ? undefined : product.variants[dp.variants.indexOf(v)];
  if (mode === 'zero') {
    for (const i of unknown) {
      const v = copyOf(i.variant);
      if (v !== undefined) v.fields.inventory_quantity = 0;
      else product.fields.inventory_quantity = 0;
    }
    return { product, items: unknown.length };
  }
  const newOnes = unknown.filter((i) => !i.existing);
  // keep: existing items' stock stays as it is; only new ones are made untracked.
  const settle = mode === 'keep' ? newOnes : unknown;
  if (settle.length === 0) return { product, items: unknown.length };
  const liveTracked = live?.inventory_enabled === true;
  if (settle.length < items.length || (mode === 'keep' && liveTracked)) {
    const known = items.filter((i) => i.known).length;
    const rowsOf = (list: readonly Item[]) => {
      const rows = list.map((i) => i.variant?.row.rowNumber).filter((r) => r !== undefined);
      return rows.length === 0
        ? ''
        : ` (row${rows.length === 1 ? '' : 's'} ${rows.slice(0, 10).join(', ')}${rows.length > 10 ? ', …' : ''})`;
    };
    const what =
      mode === 'keep' && liveTracked
        ? `the product tracks stock in the store, so its new variants without a quantity${rowsOf(settle)} cannot be left untracked`
        : `${settle.length} of its ${items.length} inventory items have no quantity${rowsOf(settle)} while the others ${known > 0 ? `have one${rowsOf(items.filter((i) => i.known))}` : 'keep their stock in the store'}, and tracking is per product`;
    product.issues.push(
      issue(
        dp,
        settle[0],
        `stock unknown for ${productLabel(dp)}: ${what}; give every quantity, or import with --stock-unknown zero (stock 0 for those without one)`,
        refs,
      ),
    );
    product.invalid = true;
    return { product, items: unknown.length };
  }
  product.fields.inventory_enabled = false;
  return { product, items: unknown.length };
}

/** The plan's line about unknown stock (terminal, report, review page). */
export function stockUnknownMessage(s: StockUnknown): string {
  const what = `${s.products} product${s.products === 1 ? '' : 's'} (${s.items} inventory item${s.items === 1 ? '' : 's'}) track stock but the sheet gives no quantity for them`;
  const own = s.byProduct ?? [];
  if (own.length > 0) {
    const listed = own
      .slice(0, 5)
      .map((c) => `${c.product}: ${MODE_TEXT[c.mode]}`)
      .join('; ');
    const ownText = `${own.length} by ${own.length === 1 ? 'its' : 'their'} own choice (--stock-unknown KEY=MODE: ${listed}${own.length > 5 ? '; …' : ''})`;
    if (s.mode !== undefined)
      return `${what}: ${ownText}; the others ${MODE_TEXT[s.mode]} (--stock-unknown ${s.mode})`;
    if ((s.unchosen ?? 0) === 0) return `${what}: ${ownText}`;
    return `${what}: ${ownText}; ${s.unchosen ?? 0} without a choice: --apply refuses (nothing is written) until you choose --stock-unknown untracked, zero or keep for them`;
  }
  if (s.mode === 'untracked') return `${what}: without stock tracking (--stock-unknown untracked)`;
  if (s.mode === 'zero') return `${what}: stock 0 (--stock-unknown zero)`;
  if (s.mode === 'keep')
    return `${what}: existing stock left alone, new products untracked (--stock-unknown keep)`;
  return `${what}: --apply refuses (nothing is written) until you choose --stock-unknown untracked (no stock tracking), zero (stock 0) or keep (existing stock left alone, new products untracked)`;
}

/** Why `--apply` refuses a plan with unknown stock and no `--stock-unknown` (undefined: it does not). */
export function stockUnknownRefusal(plan: { stockUnknown?: StockUnknown | undefined }): string | undefined {
  const s = plan.stockUnknown;
  return s === undefined || stockUnknownSettled(s) ? undefined : `stock unknown: ${stockUnknownMessage(s)}`;
}
