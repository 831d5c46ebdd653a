import type { RowIssue } from '../../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { CATEGORY_NOTE, priceOrder, SourceColumns } from '../source-format.js';
import type { ColumnUse, ConvertedProducts, ProductConverter, SkippedRow } from '../source-format.js';

/** The columns read, by their headers in the Default and the Bulk Edit export templates. */
const HEADERS = {
  itemType: ['Item Type'],
  id: ['Product ID'],
  type: ['Product Type'],
  sku: ['Code', 'Product Code/SKU'],
  name: ['Name', 'Product Name'],
  description: ['Description', 'Product Description'],
  price: ['Price'],
  calculated: ['Calculated Price'],
  sale: ['Sale Price'],
  retail: ['Retail Price'],
  cost: ['Cost Price'],
  visible: ['Product Visible', 'Product Visible?'],
  inventoried: ['Product Inventoried', 'Track Inventory'],
  stock: ['Stock Level', 'Current Stock Level'],
  categoryDetails: ['Category Details'],
  category: ['Category'],
  images: ['Images'],
} as const;
type Name = keyof typeof HEADERS;

/** Whether a header is a BigCommerce products export (its legacy Default or Bulk Edit template). */
export function isBigCommerceHeader(columns: readonly SheetColumn[]): boolean {
  const keys = new Set(columns.map((c) => c.key.trim()));
  return (
    keys.has('product id') &&
    keys.has('product type') &&
    (keys.has('code') || keys.has('product code/sku')) &&
    (keys.has('name') || keys.has('product name')) &&
    (keys.has('calculated price') || keys.has('price'))
  );
}

/** `Products/Sensaphones` (BigCommerce writes a `/` inside a name as `\/`) as `Products > Sensaphones`. */
function categoryPath(path: string): string {
  return path
    .split(/(?<!\\)\//)
    .map((p) => p.replace(/\\\//g, '/').trim())
    .filter((p) => p !== '')
    .join(' > ');
}

/**
 * A BigCommerce products export (Products → Export, the legacy Default or Bulk Edit template) as
 * canonical product rows: one product per `Product` row, keyed by its `Product ID`
 * (reference_id `bigcommerce:ID`). `Code` / `Product Code/SKU` → sku; the price is `Calculated
 * Price` (what the storefront charges: the sale price when one is set) or, in the Bulk Edit
 * template, `Sale Price` when set, else `Price`; the original price is `Price` under a sale, else
 * `Retail Price` (the MSRP) when higher; `Cost Price` → cost; `Product Visible` → status; `Product
 * Type` P / D → PHYSICAL / DIGITAL; `Product Inventoried` Y (or `Track Inventory` by product) →
 * tracked stock of `Stock Level`; `Category Details` (or `Category`) → source categories, their
 * paths with ` > `; `Images` (`Product Image URL: …`, `|`-separated) → image URLs in order.
 * Weights are not imported: the export does not say their unit (a store setting). Bulk Edit's
 * `SKU` and `Rule` rows (variants and their price rules) are left out, each listed.
 */
export class BigCommerceProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<Name>;
  private readonly sheet: string;
  private readonly rows: SheetRow[] = [];
  private readonly issues: RowIssue[] = [];
  private readonly skipped: SkippedRow[] = [];
  private readonly categories = new Map<number, string[]>();

  constructor(columns: readonly SheetColumn[], sheet: string) {
    this.cols = new SourceColumns(columns, HEADERS);
    this.sheet = sheet;
  }

  private note(rowNumber: number, code: string, message: string, name?: Name): void {
    const c = name === undefined ? undefined : this.cols.column(name);
    this.issues.push({
      severity: 'warning',
      code,
      message,
      sheet: this.sheet,
      rowNumber,
      ...(c ? { column: c.letter, header: c.header } : {}),
    });
  }

  addRow(row: SheetRow): void {
    const t = (name: Name) => this.cols.text(row, name);
    const itemType = t('itemType').toLowerCase();
    if (itemType !== '' && itemType !== 'product') {
      const message = `a Bulk Edit ${t('itemType')} row (${t('name') || t('sku') || 'no name'}): variants and price rules of this template are not imported`;
      this.skipped.push({ rowNumber: row.rowNumber, code: 'bigcommerce_sku_row', message });
      this.note(row.rowNumber, 'bigcommerce_sku_row', message, 'itemType');
      return;
    }
    const id = t('id');
    const name = t('name');
    if (id === '' && name === '') return; // a blank line
    const cells: Record<string, CellValue> = {
      reference_id: id === '' ? `bigcommerce:name:${name}` : `bigcommerce:${id}`,
    };
    if (name !== '') cells['name'] = name;
    if (t('sku') !== '') cells['sku'] = t('sku');
    const description = t('description');
    if (description !== '') {
      const { markdown, lost } = descriptionToMarkdown(description);
      cells['description'] = markdown;
      if (lost.length > 0)
        this.note(
          row.rowNumber,
          'description_content_lost',
          `the description of "${name}" lost what the API cannot show: ${lost.join(', ')}`,
          'description',
        );
    }
    this.prices(cells, t);
    const visible = t('visible').toUpperCase();
    if (visible === 'Y' || visible === '1') cells['status'] = 'VISIBLE';
    else if (visible === 'N' || visible === '0') cells['status'] = 'HIDDEN';
    const type = t('type').toUpperCase();
    if (type === 'P' || type === 'PHYSICAL') cells['type'] = 'PHYSICAL';
    else if (type === 'D' || type === 'DIGITAL') cells['type'] = 'DIGITAL';
    const inventoried = t('inventoried').toLowerCase();
    if (inventoried === 'y' || inventoried === 'by product') {
      cells['inventory_enabled'] = 'true';
      if (t('stock') !== '') cells['inventory_quantity'] = t('stock');
    } else if (inventoried === 'n' || inventoried === 'none') cells['inventory_enabled'] = 'false';
    else if (inventoried === 'by option')
      this.note(
        row.rowNumber,
        'bigcommerce_stock_by_option',
        `"${name}" tracks stock by option: its variants' stock is on SKU rows, not imported`,
        'inventoried',
      );
    const categories = this.categoriesOf(t);
    if (categories.length > 0) this.categories.set(row.rowNumber, categories);
    const images = this.imagesOf(row);
    if (images.length > 0) cells['images'] = images.join('|');
    this.rows.push({ sheet: this.sheet, rowNumber: row.rowNumber, cells });
  }

  /** Price, original price and cost (see the class doc); a 0.00 is no price. */
  private prices(cells: Record<string, CellValue>, t: (name: Name) => string): void {
    const set = (text: string) => text !== '' && priceOrder(text) > 0;
    const sale = t('sale');
    const listed = t('price');
    const price = this.cols.has('calculated') ? t('calculated') : set(sale) ? sale : listed;
    if (price !== '') cells['price'] = price;
    const was = [set(sale) ? listed : '', t('retail')].find(
      (p) => set(p) && priceOrder(p) > priceOrder(price),
    );
    if (was !== undefined) cells['original_price'] = was;
    if (set(t('cost'))) cells['cost'] = t('cost');
  }

  /** `Category Name: Men, Category Path: Skin/Men|…` (Default) or `Skin/Men;Gifts` (Bulk Edit). */
  private categoriesOf(t: (name: Name) => string): string[] {
    const out: string[] = [];
    const add = (path: string) => {
      const p = categoryPath(path);
      if (p !== '' && !out.includes(p)) out.push(p);
    };
    const details = t('categoryDetails');
    if (details !== '') {
      for (const part of details.split('|')) {
        const m = /Category Path:\s*(.*)$/.exec(part);
        add(m?.[1] ?? part.replace(/^Category Name:\s*/, ''));
      }
    } else for (const part of t('category').split(';')) add(part);
    return out;
  }

  /** `Product Image File: a.jpg, Product Image URL: https://…|…`, or Bulk Edit's `Product Image URL - N` columns. */
  private imagesOf(row: SheetRow): string[] {
    const out: string[] = [];
    const add = (url: string) => {
      const u = url.trim();
      if (u !== '' && !out.includes(u)) out.push(u);
    };
    const images = this.cols.text(row, 'images');
    for (const part of images === '' ? [] : images.split('|')) {
      const m = /Product Image URL:\s*(\S+)/.exec(part);
      if (m?.[1] !== undefined) add(m[1]);
    }
    for (const c of this.cols.all) {
      if (!/^product image url - \d+$/.test(c.key.trim())) continue;
      const v = row.cells[c.key];
      if (typeof v === 'string') add(v);
    }
    return out;
  }

  finish(): ConvertedProducts {
    const output: [string, Name | undefined][] = [
      ['reference_id', 'id'],
      ['name', 'name'],
      ['sku', 'sku'],
      ['description', 'description'],
      ['price', this.cols.has('calculated') ? 'calculated' : 'price'],
      ['original_price', 'retail'],
      ['cost', 'cost'],
      ['status', 'visible'],
      ['type', 'type'],
      ['inventory_enabled', 'inventoried'],
      ['inventory_quantity', 'stock'],
      ['images', 'images'],
    ];
    return {
      columns: output.map(([field, from], i) => this.cols.canonical(field, from, i)),
      rows: this.rows,
      issues: this.issues,
      skipped: this.skipped,
      columnUses: this.uses(),
      nearColumns: [],
      categories: this.categories,
    };
  }

  private uses(): ColumnUse[] {
    const c = this.cols;
    c.use('id', 'reference_id', 'bigcommerce:ID');
    c.use('name', 'name');
    c.use('sku', 'sku');
    c.use('description', 'description', 'HTML → the API Markdown subset');
    c.use('calculated', 'price', 'the price charged (the sale price when one is set)');
    c.use('price', 'price / original_price', 'the original price under a sale');
    if (c.has('calculated')) c.use('sale', null, 'already in Calculated Price');
    else c.use('sale', 'price', 'when set');
    c.use('retail', 'original_price', 'the MSRP, when higher than the price');
    c.use('cost', 'cost');
    c.use('visible', 'status', 'Y → VISIBLE, N → HIDDEN');
    c.use('type', 'type', 'P → PHYSICAL, D → DIGITAL');
    c.use('inventoried', 'inventory_enabled');
    c.use('stock', 'inventory_quantity', 'when the product is inventoried');
    c.use('categoryDetails', 'category_ids', `${CATEGORY_NOTE}; paths with " > "`);
    c.use('category', 'category_ids', CATEGORY_NOTE);
    c.use('images', 'images', 'the Product Image URLs, in order');
    c.use('itemType', null, 'Product rows are products; SKU and Rule rows are not imported');
    return c
      .uses((key) => {
        if (/^product image url - \d+$/.test(key)) return undefined;
        if (/^weight$|^product weight$/.test(key))
          return 'its unit is a store setting the export does not give';
        return 'no such field in the API';
      })
      .map((u) =>
        /^product image url - \d+$/i.test(u.header) ? { ...u, field: 'images', note: 'in order' } : u,
      );
  }
}
