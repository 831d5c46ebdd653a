import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { isEtsyListingsHeader } from './etsy/etsy-product-converter.js';
import { isWixCatalogHeader } from './wix/wix-product-converter.js';
import { isSquareItemsHeader } from './square/square-product-converter.js';
import { isBigCommerceHeader, isBigCommerceItemHeader } from './bigcommerce/bigcommerce-product-converter.js';
import type { ProductSourceFormat } from './source-format.js';
import { readWooHeader, type WooHeaderReading } from './woocommerce/woo-header-reading.js';

export interface DetectedFormat {
  format: ProductSourceFormat;
  /** Set when the header resembles a known export without matching it: what to check. */
  hint?: string;
  /** A WooCommerce export's header as read (in any language). */
  woo?: WooHeaderReading;
}

function keysOf(columns: readonly SheetColumn[]): Set<string> {
  return new Set(columns.map((c) => c.key.trim()));
}

const SHOPIFY_SIGNS = [
  'body (html)',
  'variant price',
  'variant sku',
  'option1 name',
  'option1 value',
  'image src',
  'variant inventory qty',
  'variant compare at price',
  'product image url',
  'compare-at price',
  'inventory quantity',
  'gift card',
];
const WOO_SIGNS = [
  'regular price',
  'sale price',
  'parent',
  'is featured?',
  'visibility in catalog',
  'short description',
  'in stock?',
  'attribute 1 name',
  'attribute 1 value(s)',
  'tax status',
];

function count(keys: Set<string>, signs: readonly string[]): number {
  let n = 0;
  for (const s of signs) if (keys.has(s)) n++;
  return n;
}

/** Whether a header read as WooCommerce's has the exporter's Type and Name and two of its own columns. */
export function isWooHeader(reading: WooHeaderReading): boolean {
  const keys = keysOf(reading.columns);
  return reading.typeValues && keys.has('type') && keys.has('name') && count(keys, WOO_SIGNS) >= 2;
}

/**
 * Which product format a header is: a Shopify product export has `Handle` (or the current
 * `URL handle`) and `Title` and at least two of its own columns; a WooCommerce export, in any
 * admin language (its header read by readWooHeader, with the first rows' values in `sample`), has
 * `Type`, `Name` and at least two of its own columns. Anything else is the merchant-bulk sheet,
 * with a hint when it resembles one of the two (a renamed or trimmed export).
 */
export function detectProductFormat(
  columns: readonly SheetColumn[],
  sample: readonly SheetRow[] = [],
): DetectedFormat {
  const keys = keysOf(columns);
  const shopify = count(keys, SHOPIFY_SIGNS);
  const hasHandle = keys.has('handle') || keys.has('url handle');
  if (hasHandle && keys.has('title') && shopify >= 2) return { format: 'shopify' };
  if (isEtsyListingsHeader(columns)) return { format: 'etsy' };
  if (isWixCatalogHeader(columns)) return { format: 'wix' };
  if (isSquareItemsHeader(columns)) return { format: 'square' };
  if (isBigCommerceHeader(columns)) return { format: 'bigcommerce' };
  if (isBigCommerceItemHeader(columns))
    return {
      format: 'mbulk',
      hint: "the header looks like BigCommerce's current products export (Item, ID, Name, Type, SKU, Options: Product and Variant rows), which is not read as BigCommerce's; export with the Bulk Edit or Default template instead (Products \u2192 Export)",
    };
  const reading = readWooHeader(columns, sample);
  if (isWooHeader(reading)) return { format: 'woocommerce', woo: reading };
  const wooKeys = keysOf(reading.columns);
  const woo = count(wooKeys, WOO_SIGNS);
  if (shopify >= 2 || (hasHandle && shopify >= 1)) {
    return {
      format: 'mbulk',
      hint: `the header looks like a Shopify product export, but ${hasHandle ? 'Title' : 'Handle'} is missing; add it, or import with --from shopify`,
    };
  }
  if (woo >= 2) {
    return {
      format: 'mbulk',
      hint: `the header looks like a WooCommerce product export, but ${wooKeys.has('type') ? 'Name' : 'Type'} is missing; add it, or import with --from woocommerce`,
    };
  }
  return { format: 'mbulk' };
}

/** True when a customers header is a Shopify customer export. */
export function isShopifyCustomerExport(columns: readonly SheetColumn[]): boolean {
  const keys = keysOf(columns);
  return (
    keys.has('first name') &&
    keys.has('last name') &&
    (keys.has('default address phone') ||
      keys.has('accepts email marketing') ||
      keys.has('accepts marketing') ||
      keys.has('total spent'))
  );
}
