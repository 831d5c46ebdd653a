import { PRODUCT_STATUSES, PRODUCT_TYPES, PRODUCT_UNITS } from '../schema/product.js';
import { parseBooleanCell } from '../sheets/boolean-cell.js';
import { cellText, isBlank } from '../sheets/cell-result.js';
import type { CellResult } from '../sheets/cell-result.js';
import { parseEnumCell } from '../sheets/enum-cell.js';
import { excelScientificError, isExcelScientific } from '../sheets/excel-scientific.js';
import { parseIntegerCell } from '../sheets/integer-cell.js';
import { parseListCell } from '../sheets/list-cell.js';
import { parseDescriptionCell } from '../sheets/markdown-cell.js';
import { parseMoney } from '../sheets/money.js';
import type { CellValue } from '../sheets/sheet-row.js';
import type { ProductSheetColumn } from './column-aliases.js';
import { PRODUCT_COMMANDS } from './product-desired.js';
import type { ProductMappingOptions } from './product-desired.js';

/** A cell that could not be decoded: a stable code and a message saying what to write instead. */
export class CellFailure {
  constructor(
    readonly code: string,
    readonly message: string,
  ) {}
}

/**
 * A cell decoder: `undefined` for a blank cell (not mentioned), a CellFailure, or the decoded value.
 * (Plain values rather than CellResult objects: this runs for every cell of every row.)
 */
export type CellDecoder = (value: CellValue) => unknown;

/** Adapts a codec's CellResult to the decoder convention. */
export function unwrap<T>(r: CellResult<T>): T | CellFailure {
  return r.ok ? r.value : new CellFailure(r.code, r.message);
}

export type ColumnLevel = 'command' | 'key' | 'product' | 'variant';

export interface ColumnSpec {
  column: ProductSheetColumn;
  level: ColumnLevel;
  /** Field name on DesiredProductFields / DesiredVariantFields (variant prefix removed). */
  field: string;
  decode: CellDecoder;
  /** Value written for a blank cell with `blank: 'clear'` (undefined: the field has no empty value). */
  clear?: unknown;
}

const URL_RE = /^https?:\/\/\S+$/i;

/** Text with surrounding whitespace removed (ids, skus, names). */
const trimmedText: CellDecoder = (value) => {
  if (typeof value === 'string') {
    const t = value.trim();
    return t === '' ? undefined : t;
  }
  if (isBlank(value)) return undefined;
  return cellText(value).trim();
};

/**
 * Markdown as written (descriptions keep their spacing and line breaks); a link or image to an
 * address other than http(s) is an invalid cell.
 */
const description: CellDecoder = (value) => {
  if (isBlank(value)) return undefined;
  return unwrap(parseDescriptionCell(value));
};

const BOOL_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['TRUE', true],
  ['FALSE', false],
  ['yes', true],
  ['no', false],
  ['1', true],
  ['0', false],
]);

/** A SKU: trimmed text, except a number Excel turned into `3.65275E+11` (its digits are lost). */
const skuText: CellDecoder = (value) => {
  const t = trimmedText(value);
  return typeof t === 'string' && typeof value === 'string' && isExcelScientific(t)
    ? unwrap(excelScientificError(t))
    : t;
};

const bool: CellDecoder = (value) => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const hit = BOOL_WORDS.get(value);
    if (hit !== undefined) return hit;
  }
  return isBlank(value) ? undefined : unwrap(parseBooleanCell(value));
};

const SMALL_UINT = /^\d{1,15}$/;

function integer(min?: number): CellDecoder {
  const opts = min === undefined ? {} : { min };
  const minimum = min ?? Number.NEGATIVE_INFINITY;
  return (value) => {
    // fast path: plain digits (what CSV gives) or an integral XLSX number in range
    if (typeof value === 'string' ? SMALL_UINT.test(value) : Number.isSafeInteger(value)) {
      const n = Number(value);
      if (n >= minimum) return n;
    }
    return isBlank(value) ? undefined : unwrap(parseIntegerCell(value, opts));
  };
}

/** Case-insensitive enum; the fast path is one Map lookup, the codec gives the error message. */
function enumeration(allowed: readonly string[]): CellDecoder {
  const byFolded = new Map(allowed.map((a) => [a.toLowerCase(), a]));
  return (value) => {
    if (isBlank(value)) return undefined;
    if (typeof value === 'string') {
      const hit = byFolded.get(value.trim().toLowerCase());
      if (hit !== undefined) return hit;
    }
    return unwrap(parseEnumCell(value, allowed));
  };
}

function money(options: ProductMappingOptions): CellDecoder {
  const decimals = options.decimals;
  const codecOptions = {
    decimalComma: options.decimalComma ?? false,
    minor: options.money === 'minor',
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
  };
  return (value) => {
    if (isBlank(value)) return undefined;
    return unwrap(parseMoney(value, decimals, codecOptions));
  };
}

function decimalNumber(decimalComma: boolean): CellDecoder {
  const re = decimalComma ? /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/ : /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
  return (value) => {
    if (isBlank(value)) return undefined;
    if (typeof value === 'number') {
      return Number.isFinite(value) ? value : new CellFailure('invalid_number', 'write a number such as 1.5');
    }
    const text = cellText(value).trim();
    if (!re.test(text)) return new CellFailure('invalid_number', 'write a number such as 1.5');
    return Number(text.replace(',', '.'));
  };
}

const plainList: CellDecoder = (value) => (isBlank(value) ? undefined : parseListCell(value));

/** `|`-separated http(s) URLs (how many a product may have is the mapper's check: it names the product). */
function urlList(): CellDecoder {
  return (value) => {
    if (isBlank(value)) return undefined;
    const list = parseListCell(value);
    for (const url of list) {
      if (!URL_RE.test(url)) {
        return new CellFailure(
          'invalid_url',
          `"${url}" is not a URL: write full http:// or https:// addresses separated by |`,
        );
      }
    }
    return list;
  };
}

/** Builds the decoder of every canonical products-sheet column, once per sheet. */
export function buildProductColumnSpecs(
  options: ProductMappingOptions,
): ReadonlyMap<ProductSheetColumn, ColumnSpec> {
  const m = money(options);
  const nonNeg = integer(0);
  const specs: ColumnSpec[] = [
    { column: 'command', level: 'command', field: 'command', decode: enumeration(PRODUCT_COMMANDS) },
    { column: 'id', level: 'key', field: 'id', decode: trimmedText },
    { column: 'reference_id', level: 'key', field: 'reference_id', decode: trimmedText },
    { column: 'sku', level: 'key', field: 'sku', decode: skuText },
    { column: 'name', level: 'product', field: 'name', decode: trimmedText },
    { column: 'description', level: 'product', field: 'description', decode: description, clear: '' },
    { column: 'status', level: 'product', field: 'status', decode: enumeration(PRODUCT_STATUSES) },
    { column: 'type', level: 'product', field: 'type', decode: enumeration(PRODUCT_TYPES) },
    { column: 'price', level: 'product', field: 'price', decode: m },
    { column: 'original_price', level: 'product', field: 'original_price', decode: m, clear: 0 },
    { column: 'cost_enabled', level: 'product', field: 'cost_enabled', decode: bool },
    { column: 'cost', level: 'product', field: 'cost', decode: m },
    { column: 'unit_enabled', level: 'product', field: 'unit_enabled', decode: bool },
    { column: 'unit', level: 'product', field: 'unit', decode: enumeration(PRODUCT_UNITS) },
    {
      column: 'unit_value',
      level: 'product',
      field: 'unit_value',
      decode: decimalNumber(options.decimalComma ?? false),
    },
    { column: 'weight', level: 'product', field: 'weight', decode: nonNeg },
    { column: 'tax_override', level: 'product', field: 'tax_override', decode: bool },
    { column: 'tax_rate', level: 'product', field: 'tax_rate', decode: nonNeg },
    { column: 'tags', level: 'product', field: 'tags', decode: plainList, clear: [] },
    { column: 'links', level: 'product', field: 'links', decode: urlList(), clear: [] },
    { column: 'category_ids', level: 'product', field: 'category_ids', decode: plainList, clear: [] },
    { column: 'daily_limit', level: 'product', field: 'daily_limit', decode: nonNeg },
    { column: 'cart_limit', level: 'product', field: 'cart_limit', decode: nonNeg },
    { column: 'cart_minimum', level: 'product', field: 'cart_minimum', decode: nonNeg },
    { column: 'inventory_enabled', level: 'product', field: 'inventory_enabled', decode: bool },
    { column: 'inventory_quantity', level: 'product', field: 'inventory_quantity', decode: nonNeg },
    { column: 'images', level: 'product', field: 'images', decode: urlList(), clear: [] },
    { column: 'variant_id', level: 'variant', field: 'id', decode: trimmedText },
    { column: 'variant_name', level: 'variant', field: 'name', decode: trimmedText },
    { column: 'variant_sku', level: 'variant', field: 'sku', decode: skuText },
    { column: 'variant_description', level: 'variant', field: 'description', decode: description, clear: '' },
    { column: 'variant_price', level: 'variant', field: 'price', decode: m },
    { column: 'variant_original_price', level: 'variant', field: 'original_price', decode: m, clear: 0 },
    { column: 'variant_cost', level: 'variant', field: 'cost', decode: m },
    { column: 'variant_weight', level: 'variant', field: 'weight', decode: nonNeg },
    { column: 'variant_inventory_quantity', level: 'variant', field: 'inventory_quantity', decode: nonNeg },
  ];
  return new Map(specs.map((s) => [s.column, s]));
}
