import type { RowIssue } from '../../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { MAX_IMAGES } from '../../schema/product.js';
import { descriptionToMarkdown, looksLikeHtml } from '../html-to-markdown.js';
import {
  CATEGORY_NOTE,
  categoryList,
  commaList,
  nearColumnsOf,
  priceOrder,
  SourceColumns,
} from '../source-format.js';
import type { ConvertedProducts, ProductConverter, SkippedRow } from '../source-format.js';
import {
  WOO_PRODUCT_HEADERS,
  WOO_WEIGHT_GRAMS,
  wooNotImported,
  type WooProductColumn,
} from './woo-product-columns.js';

/** One source row, reduced to what the conversion needs. */
interface WooRow {
  rowNumber: number;
  id: string;
  types: string[];
  sku: string;
  name: string;
  published: string;
  description: string;
  sale: string;
  regular: string;
  tags: string;
  images: string;
  parent: string;
  position: number;
  stock: string;
  /** `In stock?`: 1, 0 (out of stock) or backorder. */
  inStock: string;
  /** `Categories`: `Clothing > Hoodies, Music`. */
  categories: string;
  weight: string;
  attributes: string[];
  /** Everything above, joined: two rows with one ID must say the same. */
  signature: string;
}

const OUTPUT: readonly [string, WooProductColumn | undefined][] = [
  ['reference_id', 'id'],
  ['name', 'name'],
  ['description', 'description'],
  ['status', 'published'],
  ['type', 'type'],
  ['tags', 'tags'],
  ['images', 'images'],
  ['sku', 'sku'],
  ['price', 'regularPrice'],
  ['original_price', 'regularPrice'],
  ['weight', 'weight'],
  ['inventory_enabled', 'stock'],
  ['inventory_quantity', 'stock'],
  ['variant_name', undefined],
  ['variant_sku', 'sku'],
  ['variant_price', 'regularPrice'],
  ['variant_original_price', 'regularPrice'],
  ['variant_weight', 'weight'],
  ['variant_inventory_quantity', 'stock'],
];

/** `virtual` or `downloadable` among a row's types: nothing to ship. */
function isDigital(types: readonly string[]): boolean {
  return types.includes('virtual') || types.includes('downloadable');
}

/** `In stock?` 0 without a Stock number: WooCommerce sells none of it (stock 0, not untracked). */
function outOfStock(r: WooRow): boolean {
  return r.stock === '' && r.inStock === '0';
}

/** Block tags a line break next to is layout, not a break (WordPress's wpautop skips them too). */
const BLOCK_TAG =
  '(?:p|div|ul|ol|li|dl|dt|dd|table|thead|tbody|tfoot|tr|td|th|h[1-6]|blockquote|pre|hr|br|section|article|figure|figcaption|header|footer)';
const ENDS_WITH_BLOCK = new RegExp(`</?${BLOCK_TAG}\\b[^<>]*>\\s*$`, 'i');
const STARTS_WITH_BLOCK = new RegExp(`^\\s*</?${BLOCK_TAG}\\b`, 'i');

/**
 * A description as WooCommerce's exporter writes it (`WC_Product_CSV_Exporter::
 * filter_description_field`, WooCommerce 3.5.4+): each line break as the two characters
 * backslash-n, and a backslash-n written in the text as two backslashes and n. Back to line breaks
 * and a literal backslash-n. In HTML, a line break shows as one on the WooCommerce storefront
 * (wpautop) unless it sits next to a block tag: elsewhere it becomes `<br>`.
 */
export function wooDescription(text: string): string {
  if (!text.includes('\\n')) return text;
  const decoded = text.replace(/\\\\n|\\n/g, (m) => (m.length === 3 ? '\\n' : '\n'));
  if (!looksLikeHtml(decoded)) return decoded;
  return decoded.replace(/\n/g, (nl, at: number) =>
    ENDS_WITH_BLOCK.test(decoded.slice(Math.max(0, at - 200), at)) ||
    STARTS_WITH_BLOCK.test(decoded.slice(at + 1, at + 40))
      ? nl
      : '<br>',
  );
}

/** The reference_id of a WooCommerce product: its id (`woo:123`), else its SKU. */
function referenceOf(r: WooRow): string | undefined {
  if (r.id !== '') return `woo:${r.id}`;
  if (r.sku !== '') return `woo-sku:${r.sku}`;
  return undefined;
}

/**
 * A WooCommerce product export (Products → Export) as canonical product rows: `simple` rows are
 * products; a `variable` row and its `variation` rows (parent by `Parent` = `id:NN` or the parent's
 * SKU, in any row order) are one product with variants named by the variation's attribute values
 * joined with " / ", in `Position` order. `Sale price` → price with `Regular price` as
 * original_price; `Stock` → inventory; `Published` 1 → VISIBLE, 0/-1 → HIDDEN; `Description`
 * (else `Short description`) → Markdown; reference_id `woo:ID`. Grouped and external products,
 * and rows repeating an ID, are skipped with a note.
 */
export class WooProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<WooProductColumn>;
  private readonly attributeKeys: string[];
  private readonly weightGrams: number;
  private readonly rows: WooRow[] = [];
  private readonly issues: RowIssue[] = [];
  private readonly skipped: SkippedRow[] = [];
  private readonly categories = new Map<number, string[]>();
  private readonly sheet: string;
  /** Cell keys of a translated header → their English keys (readWooHeader); empty for English. */
  private readonly rename: ReadonlyMap<string, string>;

  /**
   * `columns` keyed by their English headers, and `rename` the file's cell keys that differ (a
   * header in another language, read by readWooHeader); an English export needs neither.
   */
  constructor(
    columns: readonly SheetColumn[],
    sheet: string,
    rename: ReadonlyMap<string, string> = new Map(),
  ) {
    this.cols = new SourceColumns(columns, WOO_PRODUCT_HEADERS);
    this.sheet = sheet;
    this.rename = rename;
    this.attributeKeys = columns
      .map((c) => /^attribute (\d+) value\(s\)$/.exec(c.key))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(a[1]) - Number(b[1]))
      .map((m) => m[0]);
    const weight = this.cols.column('weight');
    this.weightGrams = weight ? (WOO_WEIGHT_GRAMS[weight.key] ?? 1) : 1;
  }

  addRow(source: SheetRow): void {
    const row = this.rename.size === 0 ? source : this.renamed(source);
    const c = this.cols;
    const position = Number.parseInt(c.text(row, 'position'), 10);
    const r: WooRow = {
      rowNumber: row.rowNumber,
      id: c.text(row, 'id'),
      types: commaList(c.text(row, 'type').toLowerCase()),
      sku: c.text(row, 'sku'),
      name: c.text(row, 'name'),
      published: c.text(row, 'published'),
      description: c.text(row, 'description') || c.text(row, 'shortDescription'),
      sale: c.text(row, 'salePrice'),
      regular: c.text(row, 'regularPrice'),
      tags: c.text(row, 'tags'),
      images: c.text(row, 'images'),
      parent: c.text(row, 'parent'),
      position: Number.isFinite(position) ? position : 0,
      stock: c.text(row, 'stock'),
      inStock: c.text(row, 'inStock'),
      categories: c.text(row, 'categories'),
      weight: c.text(row, 'weight'),
      attributes: this.attributeKeys.map((k) => String(row.cells[k] ?? '').trim()),
      signature: '',
    };
    r.signature = JSON.stringify([
      r.types,
      r.sku,
      r.name,
      r.published,
      r.description,
      r.sale,
      r.regular,
      r.tags,
      r.images,
      r.parent,
      r.position,
      r.stock,
      r.inStock,
      r.categories,
      r.weight,
      r.attributes,
    ]);
    this.rows.push(r);
  }

  /** A row of a translated header with its cells under the English keys. */
  private renamed(row: SheetRow): SheetRow {
    const cells: Record<string, CellValue> = {};
    for (const [key, value] of Object.entries(row.cells)) cells[this.rename.get(key) ?? key] = value;
    return { ...row, cells };
  }

  private ref(name: WooProductColumn | undefined): { column?: string; header?: string } {
    const col = name === undefined ? undefined : this.cols.column(name);
    return col ? { column: col.letter, header: col.header } : {};
  }

  private issue(
    r: WooRow,
    severity: 'error' | 'warning',
    code: string,
    message: string,
    col?: WooProductColumn,
  ): void {
    this.issues.push({
      severity,
      code,
      message,
      sheet: this.sheet,
      rowNumber: r.rowNumber,
      ...this.ref(col),
    });
  }

  private skip(r: WooRow, code: string, message: string, col?: WooProductColumn): void {
    this.issue(r, 'warning', code, message, col);
    this.skipped.push({ rowNumber: r.rowNumber, code, message });
  }

  finish(): ConvertedProducts {
    const out: SheetRow[] = [];
    // Rows repeating an ID: the same content is read once, different content is an error.
    const byId = new Map<string, WooRow>();
    const unique: WooRow[] = [];
    for (const r of this.rows) {
      const seen = r.id === '' ? undefined : byId.get(r.id);
      if (seen === undefined) {
        if (r.id !== '') byId.set(r.id, r);
        unique.push(r);
      } else if (seen.signature === r.signature) {
        this.skip(
          r,
          'repeated_row',
          `repeats row ${seen.rowNumber} (WooCommerce ID ${r.id}): read once`,
          'id',
        );
      } else {
        this.issue(
          r,
          'error',
          'duplicate_id',
          `WooCommerce ID ${r.id} is also on row ${seen.rowNumber} with other values: keep one of them`,
          'id',
        );
      }
    }
    const products: WooRow[] = [];
    const variations: WooRow[] = [];
    const bySku = new Map<string, WooRow>();
    for (const r of unique) {
      if (r.types.includes('variation')) variations.push(r);
      else {
        products.push(r);
        if (r.sku !== '' && !bySku.has(r.sku)) bySku.set(r.sku, r);
      }
    }
    const children = new Map<WooRow, WooRow[]>();
    for (const v of variations) {
      const parent = v.parent.toLowerCase().startsWith('id:')
        ? byId.get(v.parent.slice(3).trim())
        : bySku.get(v.parent);
      if (parent === undefined || parent.types.includes('variation')) {
        this.issue(
          v,
          'error',
          'variation_without_parent',
          v.parent === ''
            ? "a variation needs its parent product in Parent (id:NN or the parent's SKU)"
            : `the parent "${v.parent}" of this variation is not in the file: export the parent product with it`,
          'parent',
        );
        continue;
      }
      const list = children.get(parent);
      if (list) list.push(v);
      else children.set(parent, [v]);
    }
    for (const p of products) this.convert(p, children.get(p) ?? [], out);
    const c = this.cols;
    c.use('id', 'reference_id', 'woo:ID');
    c.use('type', 'type', 'simple / variable / variation; virtual → DIGITAL');
    c.use('sku', 'sku / variant_sku');
    c.use('name', 'name');
    c.use('published', 'status');
    c.use('description', 'description', 'HTML → the API Markdown subset');
    c.use('shortDescription', 'description', 'when Description is blank');
    c.use('salePrice', 'price / variant_price');
    c.use('regularPrice', 'price / original_price (variants too)');
    c.use('tags', 'tags');
    c.use('images', 'images');
    c.use('parent', 'variants', 'ties a variation to its product');
    c.use('position', 'variants', 'variant order');
    c.use('stock', 'inventory_quantity / variant_inventory_quantity');
    c.use('categories', 'category_ids', `${CATEGORY_NOTE} (\`Clothing > Hoodies\` or \`Hoodies\`)`);
    c.use(
      'inStock',
      'inventory_quantity / variant_inventory_quantity',
      'out of stock (0) without a Stock number: tracked, stock 0',
    );
    c.use('weight', 'weight / variant_weight', 'in grams');
    const columns = OUTPUT.map(([field, from], i) => c.canonical(field, from, i));
    const attributeLetters = new Set(
      c.all.filter((col) => this.attributeKeys.includes(col.key)).map((col) => col.letter),
    );
    const uses = c.uses(wooNotImported).map((u) =>
      attributeLetters.has(u.letter)
        ? {
            header: u.header,
            letter: u.letter,
            field: 'variant_name',
            note: "a variation's values name it",
          }
        : u,
    );
    return {
      columns,
      rows: out,
      issues: this.issues,
      skipped: this.skipped,
      ...nearColumnsOf(c, wooNotImported, OUTPUT, uses),
      categories: this.categories,
    };
  }

  private convert(p: WooRow, variations: WooRow[], out: SheetRow[]): void {
    const isVariable = p.types.includes('variable');
    if (p.types.includes('grouped')) {
      this.skip(
        p,
        'grouped_product',
        `grouped product "${p.name}" skipped: it has no price of its own (its products are imported on their own rows)`,
        'type',
      );
      return;
    }
    if (p.types.includes('external')) {
      this.skip(
        p,
        'external_product',
        `external product "${p.name}" skipped: it is sold on another site`,
        'type',
      );
      return;
    }
    const ref = referenceOf(p);
    if (ref === undefined) {
      this.issue(
        p,
        'error',
        'missing_id',
        'a WooCommerce row needs its ID (or SKU) so re-imports find the product',
        'id',
      );
      for (const v of variations)
        this.issue(
          v,
          'error',
          'parent_invalid',
          `its parent on row ${p.rowNumber} has no ID or SKU`,
          'parent',
        );
      return;
    }
    const priced = isVariable ? variations.filter((v) => (v.sale || v.regular) !== '') : [p];
    if ((p.sale || p.regular) === '' && (!isVariable || priced.length === 0)) {
      const why = isVariable ? 'variable product without priced variations' : 'product without a price';
      this.skip(
        p,
        'no_price',
        `"${p.name}" skipped: ${why} in WooCommerce, so it cannot be sold`,
        'regularPrice',
      );
      for (const v of variations)
        this.skip(v, 'no_price', `its product on row ${p.rowNumber} is skipped (no price)`, 'parent');
      return;
    }
    const cells: Record<string, CellValue> = { reference_id: ref };
    if (p.name !== '') cells['name'] = p.name;
    const categories = categoryList(p.categories);
    if (categories.length > 0) this.categories.set(p.rowNumber, categories);
    if (p.description !== '') {
      const { markdown, lost } = descriptionToMarkdown(wooDescription(p.description));
      cells['description'] = markdown;
      if (lost.length > 0)
        this.issue(
          p,
          'warning',
          'description_content_lost',
          `the description of "${p.name}" lost what the API cannot show: ${lost.join(', ')}`,
          'description',
        );
    }
    if (p.published === '1') cells['status'] = 'VISIBLE';
    else if (p.published === '0' || p.published === '-1') cells['status'] = 'HIDDEN';
    if (isDigital(p.types) || (isVariable && priced.length > 0 && priced.every((v) => isDigital(v.types))))
      cells['type'] = 'DIGITAL';
    const tags = commaList(p.tags);
    if (tags.length > 0) cells['tags'] = tags.join('|');
    const sorted = [...priced].sort((a, b) => a.position - b.position || a.rowNumber - b.rowNumber);
    const images = this.images(p, isVariable ? sorted : []);
    if (images.length > 0) cells['images'] = images.join('|');
    if (p.sku !== '') cells['sku'] = p.sku;
    const weight = this.grams(p.weight);
    if (weight !== '') cells['weight'] = weight;
    if (!isVariable || sorted.length === 0) {
      this.prices(cells, p, 'price', 'original_price');
      if (p.stock !== '' || outOfStock(p)) {
        cells['inventory_enabled'] = 'true';
        cells['inventory_quantity'] = this.stock(p);
      }
      out.push({ sheet: this.sheet, rowNumber: p.rowNumber, cells });
      return;
    }
    // The product's own price: its lowest variation price (required on create).
    const lowest = sorted.reduce((a, b) =>
      priceOrder(b.sale || b.regular) < priceOrder(a.sale || a.regular) ? b : a,
    );
    this.prices(cells, lowest, 'price', 'original_price');
    if (sorted.some((v) => v.stock !== '' || outOfStock(v))) cells['inventory_enabled'] = 'true';
    out.push({ sheet: this.sheet, rowNumber: p.rowNumber, cells });
    const names = new Map<string, WooRow>();
    for (const v of variations) {
      if (!sorted.includes(v)) {
        this.skip(
          v,
          'no_price',
          `variation "${v.name}" skipped: it has no price in WooCommerce`,
          'regularPrice',
        );
        continue;
      }
    }
    for (const v of sorted) {
      const name = v.attributes.filter((a) => a !== '').join(' / ') || v.sku || v.name || `Variation ${v.id}`;
      const same = names.get(name);
      if (same !== undefined) {
        this.skip(
          v,
          'repeated_variation',
          `"${p.name}" already has the variation "${name}" (row ${same.rowNumber}): read once`,
          'parent',
        );
        continue;
      }
      names.set(name, v);
      const vc: Record<string, CellValue> = { reference_id: ref, variant_name: name };
      if (v.sku !== '') vc['variant_sku'] = v.sku;
      this.prices(vc, v, 'variant_price', 'variant_original_price');
      const w = this.grams(v.weight);
      if (w !== '') vc['variant_weight'] = w;
      if (v.stock !== '' || outOfStock(v)) vc['variant_inventory_quantity'] = this.stock(v);
      out.push({ sheet: this.sheet, rowNumber: v.rowNumber, cells: vc });
    }
  }

  /** Sale price present: price = sale, original price = regular; else price = regular. */
  private prices(cells: Record<string, CellValue>, r: WooRow, price: string, original: string): void {
    if (r.sale !== '') {
      cells[price] = r.sale;
      if (r.regular !== '') cells[original] = r.regular;
    } else if (r.regular !== '') cells[price] = r.regular;
  }

  private grams(text: string): string {
    if (text === '') return '';
    const n = Number(text);
    if (!Number.isFinite(n)) return text;
    const g = Math.round(n * this.weightGrams);
    return g > 0 ? String(g) : '';
  }

  /**
   * The product's images, then its variations' (WooCommerce shows a variation's image when it is
   * chosen; the API has images on products only): in order, each once, up to the API's 10. The
   * variation images past the tenth are listed in a warning on the product's row.
   */
  private images(p: WooRow, variations: readonly WooRow[]): string[] {
    const images = commaList(p.images);
    if (images.length >= MAX_IMAGES) return images; // too many of its own: --images decides
    const dropped: string[] = [];
    for (const v of variations)
      for (const url of commaList(v.images)) {
        if (images.includes(url) || dropped.includes(url)) continue;
        if (images.length < MAX_IMAGES) images.push(url);
        else dropped.push(url);
      }
    if (dropped.length > 0)
      this.issue(
        p,
        'warning',
        'variation_images_dropped',
        `"${p.name}" has ${images.length + dropped.length} images with its variations' and a product has at most ${MAX_IMAGES}; ${dropped.length} variation image${dropped.length === 1 ? '' : 's'} not imported: ${dropped.join(' ')}`,
        'images',
      );
    return images;
  }

  private stock(r: WooRow): string {
    if (r.stock === '') return '0'; // out of stock without a number
    const n = Number(r.stock);
    if (Number.isInteger(n) && n < 0) {
      this.issue(r, 'warning', 'negative_stock', `stock ${n} (backordered) imported as 0`, 'stock');
      return '0';
    }
    return r.stock;
  }
}
