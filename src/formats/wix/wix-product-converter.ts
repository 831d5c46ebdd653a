import type { RowIssue } from '../../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { CATEGORY_NOTE, priceOrder, pushIssue, SourceColumns } from '../source-format.js';
import type { ColumnUse, ConvertedProducts, ProductConverter } from '../source-format.js';

/** Where Wix serves a product's media by id (`productImageUrl` holds ids such as `a47bec_…~mv2.jpg`). */
export const WIX_MEDIA_BASE = 'https://static.wixstatic.com/media/';

/** Whether a header is Wix Stores' product export (`catalog_products.csv`). */
export function isWixCatalogHeader(columns: readonly SheetColumn[]): boolean {
  const keys = new Set(columns.map((c) => c.key));
  return keys.has('handleid') && keys.has('fieldtype') && keys.has('name') && keys.has('surcharge');
}

/**
 * The columns read, each under its one header: its key (the export's headers in lower case:
 * `handleId` is `handleid`), a product's options 1 to 6 included.
 */
const HEADERS = {
  handleid: ['handleid'],
  fieldtype: ['fieldtype'],
  name: ['name'],
  description: ['description'],
  visible: ['visible'],
  productimageurl: ['productimageurl'],
  collection: ['collection'],
  sku: ['sku'],
  price: ['price'],
  surcharge: ['surcharge'],
  weight: ['weight'],
  inventory: ['inventory'],
  productoptionname1: ['productoptionname1'],
  productoptiondescription1: ['productoptiondescription1'],
  productoptionname2: ['productoptionname2'],
  productoptiondescription2: ['productoptiondescription2'],
  productoptionname3: ['productoptionname3'],
  productoptiondescription3: ['productoptiondescription3'],
  productoptionname4: ['productoptionname4'],
  productoptiondescription4: ['productoptiondescription4'],
  productoptionname5: ['productoptionname5'],
  productoptiondescription5: ['productoptiondescription5'],
  productoptionname6: ['productoptionname6'],
  productoptiondescription6: ['productoptiondescription6'],
} as const satisfies Readonly<Record<string, readonly string[]>>;
type WixColumn = keyof typeof HEADERS;
/** A product's option columns: `productOptionName1` … `productOptionName6`. */
const OPTION_NUMBERS = [1, 2, 3, 4, 5, 6] as const;

interface WixRow {
  row: SheetRow;
  cell: (key: WixColumn) => string;
}

const OUTPUT: readonly [string, WixColumn | undefined][] = [
  ['reference_id', 'handleid'],
  ['name', 'name'],
  ['description', 'description'],
  ['status', 'visible'],
  ['sku', 'sku'],
  ['price', 'price'],
  ['weight', 'weight'],
  ['inventory_enabled', 'inventory'],
  ['inventory_quantity', 'inventory'],
  ['images', 'productimageurl'],
  ['variant_name', undefined],
  ['variant_sku', 'sku'],
  ['variant_price', 'surcharge'],
  ['variant_weight', 'weight'],
  ['variant_inventory_quantity', 'inventory'],
];

/** A Wix option value as the variant row writes it: a colour's `#b81616:Red` is `Red`. */
function optionValue(text: string): string {
  const m = /^(?:#[0-9a-f]{3,8}|rgba?\([^)]*\)):(.+)$/i.exec(text);
  return (m?.[1] ?? text).trim();
}

/** `1.5` kg as grams (`1500`); '' when blank, the text itself when not a number (the decoder names it). */
function grams(text: string): string {
  if (text === '') return '';
  const n = Number(text);
  return Number.isFinite(n) ? String(Math.round(n * 1000)) : text;
}

/**
 * A Wix Stores product export (`catalog_products.csv`) as canonical product rows: a `Product` row
 * and the `Variant` rows of its `handleId` are one product (reference_id `wix:handleId`), the
 * variants named by their `productOptionDescriptionN` values (in option order, joined with ` / `),
 * priced the product's `price` plus their `surcharge`. `productImageUrl` media ids → URLs on
 * static.wixstatic.com; `collection` (`;`-separated) → source categories; `visible` → VISIBLE /
 * HIDDEN; `weight` in kg → grams; `inventory` a number → tracked stock, `InStock` → not tracked
 * (Wix has no count), `OutOfStock` → tracked, 0. Ribbons, discounts, additional info sections,
 * custom text fields and brand are not imported (no such fields in the API).
 */
export class WixProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<WixColumn>;
  private readonly sheet: string;
  private readonly products = new Map<string, { product: WixRow | undefined; variants: WixRow[] }>();
  private readonly issues: RowIssue[] = [];
  private readonly categories = new Map<number, string[]>();

  constructor(columns: readonly SheetColumn[], sheet: string) {
    this.cols = new SourceColumns(columns, HEADERS);
    this.sheet = sheet;
  }

  private issue(
    rowNumber: number,
    severity: 'error' | 'warning',
    code: string,
    message: string,
    key?: WixColumn,
  ): void {
    const c = key === undefined ? undefined : this.cols.column(key);
    pushIssue(this.issues, this.sheet, rowNumber, severity, code, message, c);
  }

  addRow(row: SheetRow): void {
    const cell = (key: WixColumn) => this.cols.text(row, key);
    const handle = cell('handleid');
    if (handle === '') {
      if (Object.values(row.cells).some((v) => v !== '' && v !== null))
        this.issue(row.rowNumber, 'error', 'missing_handle', 'a Wix row needs its handleId', 'handleid');
      return;
    }
    const entry = this.products.get(handle) ?? { product: undefined, variants: [] };
    this.products.set(handle, entry);
    const type = cell('fieldtype').toLowerCase();
    if (type === 'product') entry.product = { row, cell };
    else if (type === 'variant') entry.variants.push({ row, cell });
    else
      this.issue(
        row.rowNumber,
        'error',
        'wix_field_type',
        `fieldType "${cell('fieldtype')}" is neither Product nor Variant`,
        'fieldtype',
      );
  }

  finish(): ConvertedProducts {
    const out: SheetRow[] = [];
    for (const [handle, { product, variants }] of this.products) {
      if (product === undefined) {
        for (const v of variants)
          this.issue(
            v.row.rowNumber,
            'error',
            'variant_without_product',
            `no Product row has handleId ${handle}`,
            'handleid',
          );
        continue;
      }
      this.convert(handle, product, variants, out);
    }
    out.sort((a, b) => a.rowNumber - b.rowNumber);
    return {
      columns: OUTPUT.map(([field, key], i) => {
        const c = key === undefined ? undefined : this.cols.column(key);
        return { header: field, key: field, letter: c?.letter ?? '', index: c?.index ?? i };
      }),
      rows: out,
      issues: this.issues,
      skipped: [],
      columnUses: this.uses(),
      nearColumns: [],
      categories: this.categories,
    };
  }

  private convert(handle: string, p: WixRow, variants: WixRow[], out: SheetRow[]): void {
    const c = p.cell;
    const cells: Record<string, CellValue> = { reference_id: `wix:${handle}` };
    const name = c('name');
    if (name !== '') cells['name'] = name;
    const description = c('description');
    if (description !== '') {
      const { markdown, lost } = descriptionToMarkdown(description);
      cells['description'] = markdown;
      if (lost.length > 0)
        this.issue(
          p.row.rowNumber,
          'warning',
          'description_content_lost',
          `the description of "${name}" lost what the API cannot show: ${lost.join(', ')}`,
          'description',
        );
    }
    const visible = c('visible').toLowerCase();
    if (visible === 'true') cells['status'] = 'VISIBLE';
    else if (visible === 'false') cells['status'] = 'HIDDEN';
    const images = c('productimageurl')
      .split(';')
      .map((m) => m.trim())
      .filter((m) => m !== '')
      .map((m) => (/^https?:\/\//i.test(m) ? m : `${WIX_MEDIA_BASE}${m}`));
    if (images.length > 0) cells['images'] = [...new Set(images)].join('|');
    const collections = c('collection')
      .split(';')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    if (collections.length > 0) this.categories.set(p.row.rowNumber, [...new Set(collections)]);
    const base = c('price');
    if (base !== '') cells['price'] = base;
    const weight = grams(c('weight'));
    if (weight !== '') cells['weight'] = weight;
    if (variants.length === 0) {
      if (c('sku') !== '') cells['sku'] = c('sku');
      this.stock(cells, c('inventory'), 'inventory_quantity', p.row.rowNumber);
      out.push({ sheet: this.sheet, rowNumber: p.row.rowNumber, cells });
      return;
    }
    // The option columns the product names: each variant's values in that order name it.
    const options = OPTION_NUMBERS.filter((n) => c(`productoptionname${n}`) !== '');
    if (
      variants.some(
        (v) => /^\d+$/.test(v.cell('inventory')) || v.cell('inventory').toLowerCase() === 'outofstock',
      )
    )
      cells['inventory_enabled'] = 'true';
    out.push({ sheet: this.sheet, rowNumber: p.row.rowNumber, cells });
    const seen = new Map<string, number>();
    for (const v of variants) {
      const vc: Record<string, CellValue> = { reference_id: `wix:${handle}` };
      const vname =
        options
          .map((n) => optionValue(v.cell(`productoptiondescription${n}`)))
          .filter((t) => t !== '')
          .join(' / ') ||
        v.cell('sku') ||
        `Variant ${v.row.rowNumber}`;
      const same = seen.get(vname);
      if (same !== undefined) {
        this.issue(
          v.row.rowNumber,
          'error',
          'repeated_variation',
          `"${name}" already has the variant "${vname}" (row ${same})`,
          'productoptiondescription1',
        );
        continue;
      }
      seen.set(vname, v.row.rowNumber);
      vc['variant_name'] = vname;
      if (v.cell('sku') !== '') vc['variant_sku'] = v.cell('sku');
      const surcharge = v.cell('surcharge');
      if (base !== '') {
        const price = priceOrder(base) + (surcharge === '' ? 0 : priceOrder(surcharge));
        vc['variant_price'] = Number.isFinite(price) ? price.toFixed(2) : base;
      }
      const w = grams(v.cell('weight'));
      if (w !== '') vc['variant_weight'] = w;
      this.stock(vc, v.cell('inventory'), 'variant_inventory_quantity', v.row.rowNumber);
      out.push({ sheet: this.sheet, rowNumber: v.row.rowNumber, cells: vc });
    }
  }

  /** `inventory`: a number is the stock (tracked), OutOfStock is 0, InStock is no count. */
  private stock(cells: Record<string, CellValue>, text: string, field: string, rowNumber: number): void {
    const t = text.toLowerCase();
    if (/^\d+$/.test(text) || t === 'outofstock') {
      if (field === 'inventory_quantity') cells['inventory_enabled'] = 'true';
      cells[field] = t === 'outofstock' ? '0' : text;
    } else if (t !== '' && t !== 'instock')
      this.issue(
        rowNumber,
        'error',
        'wix_inventory',
        `inventory "${text}" is neither a number, InStock nor OutOfStock`,
        'inventory',
      );
  }

  private uses(): ColumnUse[] {
    const feeds: Record<string, [string | null, string?]> = {
      handleid: ['reference_id', 'wix:handleId; ties Variant rows to their product'],
      fieldtype: ['variants', 'Product / Variant rows'],
      name: ['name'],
      description: ['description', 'HTML → the API Markdown subset'],
      productimageurl: ['images', `media ids → ${WIX_MEDIA_BASE}…`],
      collection: ['category_ids', CATEGORY_NOTE],
      sku: ['sku / variant_sku'],
      price: ['price / variant_price'],
      surcharge: ['variant_price', 'price + surcharge'],
      visible: ['status'],
      inventory: [
        'inventory_quantity / variant_inventory_quantity',
        'a number is tracked stock; InStock: not tracked; OutOfStock: 0',
      ],
      weight: ['weight / variant_weight', 'kg → grams'],
    };
    return this.cols.all.map((c) => {
      const base = { header: c.header, letter: c.letter };
      const f = feeds[c.key];
      if (f !== undefined) return { ...base, field: f[0], ...(f[1] ? { note: f[1] } : {}) };
      if (/^productoption(name|type)\d$/.test(c.key))
        return { ...base, field: null, note: 'option names and types: variants are named by their values' };
      if (/^productoptiondescription\d$/.test(c.key))
        return { ...base, field: 'variant_name', note: "a Variant row's values name it" };
      return { ...base, field: null, note: 'no such field in the API' };
    });
  }
}
