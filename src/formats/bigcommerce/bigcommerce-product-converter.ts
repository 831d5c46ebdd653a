import type { RowIssue } from '../../mapping/row-issue.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { CATEGORY_NOTE, priceOrder, SourceColumns } from '../source-format.js';
import { amountText, bigCommerceOptions, ruleAdjustment, ruleMatchesOptions } from './bigcommerce-options.js';
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
  allowPurchases: ['Allow Purchases?', 'Allow Purchases'],
  stopRules: ['Stop Processing Rules'],
  weight: ['Product Weight', 'Weight'],
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

/**
 * Whether a header is BigCommerce's current products export (an `Item` column of Product, Variant,
 * Image and Video rows beside `ID`, `Name`, `Type`, `SKU` and `Options` or `Inventory Tracking`),
 * which is not read as BigCommerce's: its variants' `Options` format is not documented in full.
 */
export function isBigCommerceItemHeader(columns: readonly SheetColumn[]): boolean {
  const keys = new Set(columns.map((c) => c.key.trim()));
  return (
    ['item', 'id', 'name', 'type', 'sku'].every((k) => keys.has(k)) &&
    (keys.has('options') || keys.has('inventory tracking'))
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

interface SkuRow {
  row: SheetRow;
  options: [string, string][];
  sku: string;
}

interface RuleRow {
  row: SheetRow;
  options: [string, string][];
  sku: string;
}

/** A Product row of the Bulk Edit template and the SKU and Rule rows under it. */
interface Pending {
  row: SheetRow;
  cells: Record<string, CellValue>;
  name: string;
  byOption: boolean;
  skus: SkuRow[];
  rules: RuleRow[];
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
 * Weights are not imported: the export does not say their unit (a store setting).
 *
 * The Bulk Edit template's `SKU` rows under a product are its variants (BigCommerce's documented
 * layout, support.bigcommerce.com "Importing Product Options (v2)" and "Complex Attributes": the
 * Product Name holds the option values, `[RB]Size=Small,[S]Color=Red`; the variant's own `Product
 * Code/SKU`, `Cost Price` and, when the product tracks stock by option, `Stock Level`), each named
 * by its values joined with ` / `; its price is the product's, changed by the `Rule` rows that
 * match it (by `Product Code/SKU`, else by their option values: every one the variant has), in
 * order: `[ADD]x`, `[REMOVE]x` or `[FIXED]x`, up to a rule with `Stop Processing Rules` Y. A
 * rule's weight, image and `Allow Purchases` are not imported (no such variant fields), said.
 */
export class BigCommerceProductConverter implements ProductConverter {
  private readonly cols: SourceColumns<Name>;
  private readonly sheet: string;
  private readonly rows: SheetRow[] = [];
  private readonly issues: RowIssue[] = [];
  private readonly skipped: SkippedRow[] = [];
  private readonly categories = new Map<number, string[]>();
  private pending: Pending | undefined;
  /** A Product row without ID or name: the row whose SKU and Rule rows follow, not imported. */
  private unnamedProduct: number | undefined;

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
    if (itemType === 'sku' || itemType === 'rule') {
      const p = this.pending;
      const entry = { row, options: bigCommerceOptions(t('name')), sku: t('sku') };
      if (p === undefined) {
        const message =
          this.unnamedProduct === undefined
            ? `a ${t('itemType')} row (${t('name') || t('sku') || 'no name'}) before any Product row: it belongs to no product`
            : `a ${t('itemType')} row (${t('name') || t('sku') || 'no name'}) of the Product row ${this.unnamedProduct}, which has no Product ID and no Product Name: not imported`;
        this.skipped.push({ rowNumber: row.rowNumber, code: 'bigcommerce_orphan_row', message });
        this.note(row.rowNumber, 'bigcommerce_orphan_row', message, 'itemType');
      } else if (itemType === 'sku') p.skus.push(entry);
      else p.rules.push(entry);
      return;
    }
    if (itemType !== '' && itemType !== 'product') {
      const message = `a ${t('itemType')} row (${t('name') || t('sku') || 'no name'}): not a product, a variant (SKU) or a price rule (Rule)`;
      this.skipped.push({ rowNumber: row.rowNumber, code: 'bigcommerce_other_row', message });
      this.note(row.rowNumber, 'bigcommerce_other_row', message, 'itemType');
      return;
    }
    this.flush();
    this.unnamedProduct = undefined;
    const id = t('id');
    const name = t('name');
    if (id === '' && name === '') {
      if (itemType === '') return; // a blank line
      this.unnamedProduct = row.rowNumber;
      const message =
        'a Product row without a Product ID or a Product Name: not imported, nor its SKU and Rule rows';
      this.skipped.push({ rowNumber: row.rowNumber, code: 'bigcommerce_unnamed_product', message });
      this.note(row.rowNumber, 'bigcommerce_unnamed_product', message, 'itemType');
      return;
    }
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
    else if (inventoried === 'by option') cells['inventory_enabled'] = 'true';
    const categories = this.categoriesOf(t);
    if (categories.length > 0) this.categories.set(row.rowNumber, categories);
    const images = this.imagesOf(row);
    if (images.length > 0) cells['images'] = images.join('|');
    this.pending = { row, cells, name, byOption: inventoried === 'by option', skus: [], rules: [] };
  }

  /** The pending product's rows: the product, then its variants (SKU rows) and its rules. */
  private flush(): void {
    const p = this.pending;
    if (p === undefined) return;
    this.pending = undefined;
    const ref = p.cells['reference_id'] as CellValue;
    const text = (r: SheetRow, name: Name) => this.cols.text(r, name);
    if (p.skus.length === 0) {
      if (p.byOption)
        this.note(
          p.row.rowNumber,
          'bigcommerce_stock_by_option',
          `"${p.name}" tracks stock by option but has no SKU rows: its stock is not in the export`,
          'inventoried',
        );
      this.rows.push({ sheet: this.sheet, rowNumber: p.row.rowNumber, cells: p.cells });
      for (const r of p.rules) this.ruleRow(p, r, { matched: 0, applied: 0 }, ref);
      return;
    }
    if (p.cells['inventory_enabled'] === 'true' && !p.byOption)
      this.note(
        p.row.rowNumber,
        'bigcommerce_stock_by_product',
        `"${p.name}" tracks stock by product, not by its ${p.skus.length} variants: their stock is not in the export`,
        'inventoried',
      );
    // Stock is the variants' (SKU rows), when the product tracks it by option.
    delete p.cells['inventory_quantity'];
    this.rows.push({ sheet: this.sheet, rowNumber: p.row.rowNumber, cells: p.cells });
    const base = typeof p.cells['price'] === 'string' ? p.cells['price'] : '';
    const was = typeof p.cells['original_price'] === 'string' ? p.cells['original_price'] : '';
    /** How many variants each rule matches, and how many of them it prices (no earlier stop). */
    const reach = new Map<RuleRow, { matched: number; applied: number }>();
    const seen = new Map<string, number>();
    for (const v of p.skus) {
      const vname = v.options.map(([, value]) => value).join(' / ') || v.sku || `Variant ${v.row.rowNumber}`;
      const same = seen.get(vname);
      if (same !== undefined) {
        this.issues.push({
          severity: 'error',
          code: 'repeated_variation',
          message: `"${p.name}" already has the variant "${vname}" (row ${same})`,
          sheet: this.sheet,
          rowNumber: v.row.rowNumber,
          ...this.at('name'),
        });
        continue;
      }
      seen.set(vname, v.row.rowNumber);
      const vc: Record<string, CellValue> = { reference_id: ref, variant_name: vname };
      if (v.sku !== '') vc['variant_sku'] = v.sku;
      let price = base === '' ? Number.NaN : priceOrder(base);
      let original = was === '' ? Number.NaN : priceOrder(was);
      // Every rule matching the variant is counted; those after one that stops processing are not applied.
      let stopped = false;
      for (const r of p.rules) {
        const applies = r.sku !== '' ? r.sku === v.sku : ruleMatchesOptions(r.options, v.options);
        if (!applies) continue;
        const count = reach.get(r) ?? { matched: 0, applied: 0 };
        reach.set(r, count);
        count.matched += 1;
        if (stopped) continue;
        count.applied += 1;
        const change = ruleAdjustment(text(r.row, 'price'));
        if (change?.kind === 'fixed') {
          price = change.amount;
          original = Number.NaN;
        } else if (change !== undefined) {
          price += change.amount;
          original += change.amount;
        }
        stopped = /^(y|yes|1)$/i.test(text(r.row, 'stopRules'));
      }
      if (Number.isFinite(price)) vc['variant_price'] = amountText(price);
      if (Number.isFinite(original) && original > price) vc['variant_original_price'] = amountText(original);
      const cost = text(v.row, 'cost');
      if (cost !== '' && priceOrder(cost) > 0) vc['variant_cost'] = cost;
      const stock = text(v.row, 'stock');
      if (p.byOption && stock !== '') vc['variant_inventory_quantity'] = stock;
      this.rows.push({ sheet: this.sheet, rowNumber: v.row.rowNumber, cells: vc });
    }
    for (const r of p.rules) this.ruleRow(p, r, reach.get(r) ?? { matched: 0, applied: 0 }, ref);
  }

  /**
   * A Rule row: one of its product's rows; what it does that the API cannot hold is said, and so is
   * a rule that prices no variant (it matches none, or an earlier rule stops processing for each),
   * and a Price that is not `[ADD]x`, `[REMOVE]x` or `[FIXED]x` (not applied).
   */
  private ruleRow(p: Pending, r: RuleRow, reach: { matched: number; applied: number }, ref: CellValue): void {
    const label = r.sku || r.options.map(([n, v]) => `${n}=${v}`).join(', ') || 'no SKU or option';
    const text = (name: Name) => this.cols.text(r.row, name);
    if (reach.matched === 0)
      this.note(
        r.row.rowNumber,
        'bigcommerce_rule_unmatched',
        `the price rule for ${label} of "${p.name}" matches none of its variants (SKU rows): not imported`,
        'name',
      );
    else if (reach.applied === 0)
      this.note(
        r.row.rowNumber,
        'bigcommerce_rule_stopped',
        `the price rule for ${label} of "${p.name}" comes after a rule with Stop Processing Rules Y for ${reach.matched === 1 ? 'the variant' : `each of the ${reach.matched} variants`} it matches: not applied`,
        'price',
      );
    const price = text('price');
    if (reach.applied > 0 && price !== '' && ruleAdjustment(price) === undefined)
      this.note(
        r.row.rowNumber,
        'bigcommerce_rule_price',
        `the price rule for ${label} of "${p.name}" gives the price "${price}", not [ADD]x, [REMOVE]x or [FIXED]x: not applied, its variants are priced without it`,
        'price',
      );
    const lost: string[] = [];
    if (/^(n|no|0)$/i.test(text('allowPurchases'))) lost.push('not purchasable');
    if (text('weight') !== '') lost.push(`weight ${text('weight')}`);
    if (this.imagesOf(r.row).length > 0) lost.push('an image');
    if (lost.length > 0)
      this.note(
        r.row.rowNumber,
        'bigcommerce_rule_not_imported',
        `the rule for ${label} of "${p.name}" also sets ${lost.join(', ')}: no such variant field in the API, not imported`,
        'itemType',
      );
    this.rows.push({ sheet: this.sheet, rowNumber: r.row.rowNumber, cells: { reference_id: ref } });
  }

  private at(name: Name): { column?: string; header?: string } {
    const c = this.cols.column(name);
    return c ? { column: c.letter, header: c.header } : {};
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
    this.flush();
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
      ['variant_name', 'name'],
      ['variant_sku', 'sku'],
      ['variant_price', 'price'],
      ['variant_original_price', 'price'],
      ['variant_cost', 'cost'],
      ['variant_inventory_quantity', 'stock'],
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
    c.use('name', 'name / variant_name', "a SKU row's option values name the variant");
    c.use('sku', 'sku / variant_sku');
    c.use('description', 'description', 'HTML → the API Markdown subset');
    c.use('calculated', 'price', 'the price charged (the sale price when one is set)');
    c.use(
      'price',
      'price / original_price / variant_price',
      "the original price under a sale; a Rule row's [ADD], [REMOVE] or [FIXED] amount changes its variants' price",
    );
    if (c.has('calculated')) c.use('sale', null, 'already in Calculated Price');
    else c.use('sale', 'price', 'when set');
    c.use('retail', 'original_price', 'the MSRP, when higher than the price');
    c.use('cost', 'cost / variant_cost');
    c.use('weight', null, 'its unit is a store setting the export does not give');
    c.use('visible', 'status', 'Y → VISIBLE, N → HIDDEN');
    c.use('type', 'type', 'P → PHYSICAL, D → DIGITAL');
    c.use('inventoried', 'inventory_enabled');
    c.use(
      'stock',
      'inventory_quantity / variant_inventory_quantity',
      "when the product is inventoried; a SKU row's when it tracks stock by option",
    );
    c.use('categoryDetails', 'category_ids', `${CATEGORY_NOTE}; paths with " > "`);
    c.use('category', 'category_ids', CATEGORY_NOTE);
    c.use('images', 'images', 'the Product Image URLs, in order');
    c.use(
      'itemType',
      null,
      'Product rows are products, SKU rows their variants, Rule rows their price rules',
    );
    c.use('allowPurchases', null, 'no such field in the API');
    c.use('stopRules', null, 'a Rule row: later rules left out for its variants');
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
