import { descriptionToMarkdown } from '../html-to-markdown.js';
import { PackedTexts } from '../../mapping/packed-texts.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { isExcelScientific } from '../../sheets/excel-scientific.js';
import { CATEGORY_NOTE, commaList, nearColumnsOf, priceOrder, SourceColumns } from '../source-format.js';
import type { ConvertedProducts, ProductConverter, SkippedRow, StreamedProducts } from '../source-format.js';
import {
  SHOPIFY_PRODUCT_HEADERS,
  shopifyNotImported,
  type ShopifyProductColumn,
} from './shopify-product-columns.js';

/** One source row, reduced to what the conversion needs (the full row is not kept). */
interface ShopifyRow {
  rowNumber: number;
  options: string[];
  sku: string;
  price: string;
  compareAt: string;
  cost: string;
  grams: string;
  tracker: string;
  quantity: string;
  image?: { src: string; position: number };
  isVariant: boolean;
}

/** The product-level cells of a product's first row (only these: the full row is not kept). */
interface ShopifyFirstRow {
  rowNumber: number;
  title: string;
  body: string;
  status: string;
  published: string;
  tags: string;
  giftCard: string;
  /** `Product Category` then `Type`: the product's categories as Shopify names them. */
  categories: string[];
}

interface ShopifyProduct {
  handle: string;
  first: ShopifyFirstRow;
  rows: ShopifyRow[];
}

/** Canonical columns this converter writes, each fed by one source column (for cell references). */
const OUTPUT: readonly [string, ShopifyProductColumn | undefined][] = [
  ['reference_id', 'handle'],
  ['name', 'title'],
  ['description', 'body'],
  ['status', 'status'],
  ['tags', 'tags'],
  ['images', 'imageSrc'],
  ['sku', 'sku'],
  ['price', 'price'],
  ['original_price', 'compareAt'],
  ['cost_enabled', 'cost'],
  ['cost', 'cost'],
  ['weight', 'grams'],
  ['inventory_enabled', 'tracker'],
  ['inventory_quantity', 'quantity'],
  ['variant_name', 'option1Value'],
  ['variant_sku', 'sku'],
  ['variant_price', 'price'],
  ['variant_original_price', 'compareAt'],
  ['variant_cost', 'cost'],
  ['variant_weight', 'grams'],
  ['variant_inventory_quantity', 'quantity'],
];

const DEFAULT_TITLE = 'default title';

/** `Variant Grams` (`145`, `0.0`) as whole grams; 0 or blank → '' (not stated). */
function gramsText(text: string): string {
  if (text === '') return '';
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  return n > 0 ? String(Math.round(n)) : '';
}

function inRowOrder(rows: readonly SheetRow[]): boolean {
  for (let i = 1; i < rows.length; i++) {
    if ((rows[i - 1] as SheetRow).rowNumber > (rows[i] as SheetRow).rowNumber) return false;
  }
  return true;
}

/** The variant name: option values joined with " / " ('' when it has none). */
function optionName(options: readonly string[]): string {
  let name = '';
  for (const o of options) {
    if (o === '') continue;
    name = name === '' ? o : `${name} / ${o}`;
  }
  return name;
}

function isTrue(text: string): boolean {
  return /^(true|yes|1)$/i.test(text);
}

function isFalse(text: string): boolean {
  return /^(false|no|0)$/i.test(text);
}

/**
 * A Shopify product export (admin → Products → Export, or the product_template.csv) as canonical
 * product rows: rows grouped by `Handle` (reference_id = the handle), variants named by their
 * option values joined with " / ", a lone `Default Title` variant folded into the product, images
 * from every `Image Src` in `Image Position` order, `Status`/`Published` → VISIBLE/HIDDEN, tags
 * from the comma list, `Body (HTML)` → the API's Markdown subset. Gift cards are skipped with a note.
 */
export class ShopifyProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<ShopifyProductColumn>;
  /**
   * Products by handle, in order of their first row. A product whose rows have passed (the next
   * product's began) is parked as its JSON in `texts` (this number) until it is converted.
   */
  private readonly products = new Map<string, ShopifyProduct | number>();
  private readonly texts = new PackedTexts();
  /** The product the last row joined. */
  private current: ShopifyProduct | undefined;
  /** Set when a row joined a product other than the last one: its rows are not next to each other. */
  private scattered = false;
  private readonly issues: RowIssue[] = [];
  private readonly skipped: SkippedRow[] = [];
  private readonly categories = new Map<number, string[]>();
  private readonly sheet: string;
  private lastHandle: string | undefined;
  /** SKUs Shopify wrote with a leading `'` (so spreadsheets keep them text): how many, and the first. */
  private apostrophes = 0;
  private firstApostrophe: { rowNumber: number; sku: string } | undefined;
  /** Barcodes Excel turned into `3.65275E+11`: how many, and the first. */
  private scientificBarcodes = 0;
  private firstScientificBarcode: { rowNumber: number; text: string } | undefined;

  constructor(columns: readonly SheetColumn[], sheet: string) {
    this.cols = new SourceColumns(columns, SHOPIFY_PRODUCT_HEADERS);
    this.sheet = sheet;
  }

  addRow(row: SheetRow): void {
    const c = this.cols;
    // Continuation rows normally repeat the handle; a blank one continues the product above it.
    const handle = c.text(row, 'handle') || this.lastHandle;
    if (handle === undefined) {
      this.issues.push({
        severity: 'error',
        code: 'missing_handle',
        message: 'no Handle: each Shopify row needs the handle of its product',
        sheet: row.sheet,
        rowNumber: row.rowNumber,
        ...this.cellRef('handle'),
      });
      return;
    }
    this.lastHandle = handle;
    const options = [c.text(row, 'option1Value'), c.text(row, 'option2Value'), c.text(row, 'option3Value')];
    const r: ShopifyRow = {
      rowNumber: row.rowNumber,
      options,
      sku: this.skuOf(row),
      price: c.text(row, 'price'),
      compareAt: c.text(row, 'compareAt'),
      cost: c.text(row, 'cost'),
      grams: c.text(row, 'grams'),
      tracker: c.text(row, 'tracker'),
      quantity: c.text(row, 'quantity'),
      isVariant: false,
    };
    r.isVariant = options.some((o) => o !== '') || r.sku !== '' || r.price !== '';
    const barcode = c.text(row, 'barcode');
    if (barcode !== '' && isExcelScientific(barcode)) {
      this.scientificBarcodes++;
      this.firstScientificBarcode ??= { rowNumber: row.rowNumber, text: barcode };
    }
    const src = c.text(row, 'imageSrc');
    if (src !== '') {
      const position = Number.parseInt(c.text(row, 'imagePosition'), 10);
      r.image = { src, position: Number.isFinite(position) ? position : Number.MAX_SAFE_INTEGER };
    }
    const known = this.products.get(handle);
    if (known !== undefined && known !== this.current) this.scattered = true;
    const product = typeof known === 'number' ? this.unpark(handle, known) : known;
    if (product !== this.current && this.current !== undefined) {
      // The rows of the product before have passed (a later row of it unparks it).
      this.products.set(this.current.handle, this.texts.add(JSON.stringify(this.current)));
      this.current = undefined;
    }
    if (product === undefined) {
      const first: ShopifyFirstRow = {
        rowNumber: row.rowNumber,
        title: c.text(row, 'title'),
        body: c.text(row, 'body'),
        status: c.text(row, 'status'),
        published: c.text(row, 'published'),
        tags: c.text(row, 'tags'),
        giftCard: c.text(row, 'giftCard'),
        categories: [c.text(row, 'productCategory'), c.text(row, 'type')].filter(
          (t, i, all) => t !== '' && all.indexOf(t) === i,
        ),
      };
      this.current = { handle, first, rows: [r] };
      this.products.set(handle, this.current);
    } else {
      product.rows.push(r);
      this.current = product;
    }
  }

  /** A parked product back (its text taken). */
  private unpark(handle: string, packed: number): ShopifyProduct {
    const p = JSON.parse(this.texts.take(packed)) as ShopifyProduct;
    this.products.set(handle, p);
    return p;
  }

  /** Every product, unparked one at a time and let go as it is given. */
  private *eachProduct(): Generator<ShopifyProduct> {
    for (const [handle, p] of this.products) {
      this.products.delete(handle);
      yield typeof p === 'number' ? (JSON.parse(this.texts.take(p)) as ShopifyProduct) : p;
    }
    this.current = undefined;
  }

  /**
   * The SKU cell without the leading `'` Shopify writes before a number-like SKU (`'10`,
   * `'2794774`) so that spreadsheets keep it as text: it is not part of the SKU, and a stock sheet
   * says `10`.
   */
  private skuOf(row: SheetRow): string {
    const sku = this.cols.text(row, 'sku');
    if (!sku.startsWith("'")) return sku;
    this.apostrophes++;
    this.firstApostrophe ??= { rowNumber: row.rowNumber, sku };
    return sku.slice(1).trim();
  }

  private cellRef(name: ShopifyProductColumn): { column?: string; header?: string } {
    const col = this.cols.column(name);
    return col ? { column: col.letter, header: col.header } : {};
  }

  private note(rowNumber: number, code: string, message: string, name?: ShopifyProductColumn): void {
    this.issues.push({
      severity: 'warning',
      code,
      message,
      sheet: this.sheet,
      rowNumber,
      ...(name ? this.cellRef(name) : {}),
    });
  }

  finish(): ConvertedProducts {
    const rows: SheetRow[] = [];
    for (const p of this.eachProduct()) this.convert(p, rows);
    // An export grouped by handle (as Shopify writes it) comes out in row order already.
    if (!inRowOrder(rows)) rows.sort((a, b) => a.rowNumber - b.rowNumber);
    const described = this.describe();
    this.closingNotes();
    return { ...described, rows };
  }

  /**
   * finish(), its rows converted one product at a time as they are read, when each product's rows
   * were next to each other in the export (as Shopify writes it): then the rows come out in the
   * order finish() sorts them into, each product's sorted alone. The closing notes follow the
   * products' issues, as in finish(). An export with a product's rows apart is finished whole.
   */
  stream(): StreamedProducts {
    if (this.scattered) return this.finish();
    const described = this.describe();
    const rows = function* (self: ShopifyProductConverter): Generator<SheetRow> {
      for (const p of self.eachProduct()) {
        const out: SheetRow[] = [];
        self.convert(p, out);
        if (!inRowOrder(out)) out.sort((a, b) => a.rowNumber - b.rowNumber);
        yield* out;
      }
      self.closingNotes();
    };
    return { ...described, rows: rows(this) };
  }

  /** Which columns feed which fields, the canonical columns, the near columns, and the rest. */
  private describe(): Omit<ConvertedProducts, 'rows'> {
    const c = this.cols;
    c.use('handle', 'reference_id');
    c.use('title', 'name');
    c.use('body', 'description', 'HTML → the API Markdown subset');
    c.use('status', 'status');
    c.use('published', 'status');
    c.use('tags', 'tags');
    c.use('imageSrc', 'images');
    c.use('imagePosition', 'images', 'image order');
    for (const [n, f] of [
      ['option1Value', 'variant_name'],
      ['option2Value', 'variant_name'],
      ['option3Value', 'variant_name'],
      ['sku', 'sku / variant_sku'],
      ['price', 'price / variant_price'],
      ['compareAt', 'original_price / variant_original_price'],
      ['cost', 'cost / variant_cost'],
      ['grams', 'weight / variant_weight'],
      ['tracker', 'inventory_enabled'],
      ['quantity', 'inventory_quantity / variant_inventory_quantity'],
    ] as const) {
      c.use(n, f);
    }
    c.use('option1Name', null, 'option names: variants are named by their values');
    c.use('option2Name', null, 'option names: variants are named by their values');
    c.use('option3Name', null, 'option names: variants are named by their values');
    c.use('giftCard', null, 'gift card products are skipped');
    c.use('productCategory', 'category_ids', CATEGORY_NOTE);
    c.use('type', 'category_ids', `${CATEGORY_NOTE} (not the API's product type)`);
    const columns = OUTPUT.map(([field, from], i) => c.canonical(field, from, i));
    return {
      columns,
      issues: this.issues,
      skipped: this.skipped,
      ...nearColumnsOf(c, shopifyNotImported, OUTPUT, c.uses(shopifyNotImported)),
      categories: this.categories,
    };
  }

  /** The sheet's closing notes: SKUs without Shopify's apostrophe, barcodes Excel turned into numbers. */
  private closingNotes(): void {
    if (this.firstApostrophe !== undefined) {
      const { rowNumber, sku } = this.firstApostrophe;
      const n = this.apostrophes;
      this.note(
        rowNumber,
        'shopify_apostrophe_removed',
        `Shopify's leading ' removed from ${n} SKU${n === 1 ? '' : 's'} (first ${sku} → ${sku.slice(1).trim()} here): Shopify adds it so that spreadsheets keep number-like SKUs as text`,
        'sku',
      );
    }
    if (this.firstScientificBarcode !== undefined) {
      const { rowNumber, text } = this.firstScientificBarcode;
      const n = this.scientificBarcodes;
      this.note(
        rowNumber,
        'excel_scientific',
        `Excel turned ${n === 1 ? 'this barcode' : `${n} barcodes`} into numbers such as ${text}; barcodes are not imported, but if you need them elsewhere, format the column as text and export again`,
        'barcode',
      );
    }
  }

  private convert(p: ShopifyProduct, out: SheetRow[]): void {
    const c = this.cols;
    const first = p.first;
    const cells: Record<string, CellValue> = { reference_id: p.handle };
    const firstRow = first.rowNumber;
    if (isTrue(first.giftCard)) {
      const message = `gift card "${p.handle}" skipped: the API has no gift cards`;
      this.note(firstRow, 'gift_card_skipped', message, 'giftCard');
      for (const r of p.rows) this.skipped.push({ rowNumber: r.rowNumber, code: 'gift_card', message });
      return;
    }
    const title = first.title;
    if (title !== '') cells['name'] = title;
    if (first.categories.length > 0) this.categories.set(firstRow, first.categories);
    const body = first.body;
    if (body !== '') {
      const { markdown, lost } = descriptionToMarkdown(body);
      cells['description'] = markdown;
      if (lost.length > 0) {
        this.note(
          firstRow,
          'description_content_lost',
          `the description of "${p.handle}" lost what the API cannot show: ${lost.join(', ')}`,
          'body',
        );
      }
    }
    const status = first.status.toLowerCase();
    const published = first.published;
    if (status === 'active') cells['status'] = isFalse(published) ? 'HIDDEN' : 'VISIBLE';
    else if (status === 'draft' || status === 'archived') cells['status'] = 'HIDDEN';
    else if (status !== '')
      cells['status'] = status; // the canonical decoder names the bad value
    else if (isFalse(published)) cells['status'] = 'HIDDEN';
    else if (c.has('published')) cells['status'] = 'VISIBLE';
    const tags = commaList(first.tags);
    if (tags.length > 0) cells['tags'] = tags.join('|');

    // Images: every Image Src of the product (image-only rows too), in Image Position order.
    const images = p.rows
      .filter((r) => r.image !== undefined)
      .map((r, order) => ({ ...(r.image as { src: string; position: number }), order }))
      .sort((a, b) => a.position - b.position || a.order - b.order);
    const urls: string[] = [];
    for (const i of images) if (!urls.includes(i.src)) urls.push(i.src);
    if (urls.length > 0) cells['images'] = urls.join('|');

    const variants = p.rows.filter((r) => r.isVariant);
    const tracked =
      variants.some((v) => v.tracker.toLowerCase() === 'shopify') || (!c.has('tracker') && c.has('quantity'));
    const single = variants.length === 1 ? variants[0] : undefined;
    const defaultTitle =
      single !== undefined && single.options.every((o) => o === '' || o.toLowerCase() === DEFAULT_TITLE);
    if (variants.length > 0 && c.has('tracker')) cells['inventory_enabled'] = tracked ? 'true' : 'false';
    if (variants.some((v) => v.cost !== '')) cells['cost_enabled'] = 'true';

    const byRow = new Map<number, Record<string, CellValue>>();
    byRow.set(firstRow, cells);
    if (single !== undefined && defaultTitle) {
      // One "Default Title" variant: price, sku and stock belong to the product itself.
      this.productValues(cells, single, tracked);
    } else if (variants.length > 0) {
      // The product's own price: the lowest variant price (what "from" shows), required on create.
      // The first variant at the lowest finite price (each price read once).
      let lowest: ShopifyRow | undefined;
      let min = Number.POSITIVE_INFINITY;
      for (const v of variants) {
        const n = priceOrder(v.price);
        if (Number.isFinite(n) && n < min) {
          min = n;
          lowest = v;
        }
      }
      if (lowest !== undefined && lowest.price !== '') cells['price'] = lowest.price;
      // Two variants with one name: the product is not imported (each of its rows says why).
      const seen = new Map<string, number>();
      const names = variants.map((v, index) => optionName(v.options) || v.sku || `Variant ${index + 1}`);
      for (const [index, v] of variants.entries()) {
        const name = names[index] as string;
        const first = seen.get(name);
        if (first === undefined) {
          seen.set(name, v.rowNumber);
          continue;
        }
        for (const r of p.rows) {
          this.issues.push({
            severity: 'error',
            code: 'duplicate_variant',
            message: `"${p.handle}" has two variants named "${name}" (rows ${first} and ${v.rowNumber}): each combination of option values must be different`,
            sheet: this.sheet,
            rowNumber: r.rowNumber,
            ...this.cellRef('option1Value'),
          });
        }
        return;
      }
      variants.forEach((v, index) => {
        const target = byRow.get(v.rowNumber) ?? { reference_id: p.handle };
        byRow.set(v.rowNumber, target);
        target['variant_name'] = names[index] as string;
        if (v.sku !== '') target['variant_sku'] = v.sku;
        if (v.price !== '') target['variant_price'] = v.price;
        if (v.compareAt !== '') target['variant_original_price'] = v.compareAt;
        if (v.cost !== '') target['variant_cost'] = v.cost;
        const g = gramsText(v.grams);
        if (g !== '') target['variant_weight'] = g;
        if (tracked && v.quantity !== '') target['variant_inventory_quantity'] = this.quantity(v, p.handle);
      });
    }
    // Every source row ends up in results.csv: rows with nothing of their own (image-only rows)
    // join their product by its reference_id.
    for (const r of p.rows) {
      const cellsOf = byRow.get(r.rowNumber) ?? { reference_id: p.handle };
      out.push({ sheet: this.sheet, rowNumber: r.rowNumber, cells: cellsOf });
    }
  }

  private productValues(cells: Record<string, CellValue>, v: ShopifyRow, tracked: boolean): void {
    if (v.sku !== '') cells['sku'] = v.sku;
    if (v.price !== '') cells['price'] = v.price;
    if (v.compareAt !== '') cells['original_price'] = v.compareAt;
    if (v.cost !== '') cells['cost'] = v.cost;
    const g = gramsText(v.grams);
    if (g !== '') cells['weight'] = g;
    if (tracked && v.quantity !== '')
      cells['inventory_quantity'] = this.quantity(v, String(cells['reference_id']));
  }

  /** Shopify allows oversold (negative) stock; the API does not: 0, with a note. */
  private quantity(v: ShopifyRow, handle: string): string {
    const n = Number(v.quantity);
    if (Number.isInteger(n) && n < 0) {
      this.note(
        v.rowNumber,
        'negative_stock',
        `"${handle}" has stock ${n} (oversold); imported as 0`,
        'quantity',
      );
      return '0';
    }
    return v.quantity;
  }
}
