import { UsageError } from '../../errors/usage-error.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { cellText } from '../../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { CATEGORY_NOTE, categoryList, priceOrder } from '../source-format.js';
import type { ColumnUse, ConvertedProducts, ProductConverter } from '../source-format.js';

/** `Current Quantity Main St`: a location's stock column (one per location in the export). */
const QUANTITY_PREFIX = 'current quantity ';

/** Whether a header is Square's item library export (`Token`, `Item Name`, `Variation Name`, `Price`). */
export function isSquareItemsHeader(columns: readonly SheetColumn[]): boolean {
  const keys = new Set(columns.map((c) => c.key.trim()));
  return keys.has('token') && keys.has('item name') && keys.has('variation name') && keys.has('price');
}

/** Grams per unit of a `Weight (lb)` / `Weight (kg)` / `Weight (oz)` / `Weight (g)` header. */
const GRAMS_PER: Readonly<Record<string, number>> = { lb: 453.59237, kg: 1000, oz: 28.349523125, g: 1 };

/** Variation names Square gives the one variation of an item without variations. */
const SINGLE_NAMES = new Set(['', 'regular', 'default title']);

interface SquareRow {
  row: SheetRow;
  cell: (key: string) => string;
}

export interface SquareOptions {
  /** `--location NAME`: one location's `Current Quantity` instead of the sum of all of them. */
  location?: string | undefined;
}

/**
 * Square's item library export (Items → Actions → Export library, CSV or XLSX): one row per
 * variation, the variations of an item sharing its `Item Name` (the export has no item id, so the
 * key is the name: reference_id `square:ITEM NAME`, said once in the plan). An item whose only
 * variation is unnamed (`Regular`, `Default Title`, blank) is a product without variants; other
 * items' variations are variants named by their `Option Value N` (joined with ` / `), else by
 * `Variation Name`. `Price` → price (with `Online Sale Price`: that is the price and `Price` the
 * original price); `Default Unit Cost` → cost; `Weight (lb|kg|oz|g)` → grams; `SKU`; `Description`
 * (HTML) → Markdown; `Archived` Y or `Square Online Item Visibility` hidden/unavailable → HIDDEN,
 * visible → VISIBLE; `Item Type` Digital good → DIGITAL; `Categories` (else `Category`, else
 * `Reporting Category`) → source categories. Stock: each location's `Current Quantity LOCATION`,
 * summed over the locations (or the one `--location` names); a variation without a number in any
 * of them has no count (stock unknown when its item tracks stock). The export has no images.
 */
export class SquareProductConverter implements ProductConverter {
  private readonly columns: readonly SheetColumn[];
  private readonly byKey: Map<string, SheetColumn>;
  private readonly sheet: string;
  private readonly items = new Map<string, SquareRow[]>();
  /** The name of the last row's item and the row its run began on (an item's rows are contiguous). */
  private run: { name: string; firstRow: number; clash: number | undefined } | undefined;
  private readonly issues: RowIssue[] = [];
  private readonly categories = new Map<number, string[]>();
  /** The stock columns read: every location's, or the one --location names. */
  private readonly stockColumns: SheetColumn[];
  private readonly locations: string[];
  private readonly weight: { column: SheetColumn; grams: number } | undefined;
  private readonly categoryColumn: SheetColumn | undefined;

  constructor(columns: readonly SheetColumn[], sheet: string, options: SquareOptions = {}) {
    this.columns = columns;
    this.byKey = new Map(columns.map((c) => [c.key.trim(), c]));
    this.sheet = sheet;
    const stock = columns.filter((c) => c.key.trim().startsWith(QUANTITY_PREFIX));
    this.locations = stock.map((c) => c.header.trim().slice(QUANTITY_PREFIX.length).trim());
    const wanted = options.location?.trim();
    if (wanted !== undefined) {
      const at = this.locations.findIndex((l) => l.toLowerCase() === wanted.toLowerCase());
      if (at < 0)
        throw new UsageError(
          `--location "${wanted}" is not a location of this Square export; its locations: ${this.locations.map((l) => `"${l}"`).join(', ') || 'none (no Current Quantity column)'}`,
          'location',
        );
      this.stockColumns = [stock[at] as SheetColumn];
    } else this.stockColumns = stock;
    this.weight = columns
      .map((c) => {
        const m = /^weight \((lb|kg|oz|g)\)$/.exec(c.key.trim());
        return m === null ? undefined : { column: c, grams: GRAMS_PER[m[1] as string] as number };
      })
      .find((w) => w !== undefined);
    this.categoryColumn =
      this.byKey.get('categories') ?? this.byKey.get('category') ?? this.byKey.get('reporting category');
  }

  private issue(
    rowNumber: number,
    severity: 'error' | 'warning',
    code: string,
    message: string,
    column?: SheetColumn,
  ): void {
    this.issues.push({
      severity,
      code,
      message,
      sheet: this.sheet,
      rowNumber,
      ...(column ? { column: column.letter, header: column.header } : {}),
    });
  }

  addRow(row: SheetRow): void {
    const cell = (key: string) => {
      const c = this.byKey.get(key);
      return c === undefined ? '' : cellText(row.cells[c.key] as CellValue | undefined).trim();
    };
    const name = cell('item name');
    if (name === '') {
      if (Object.values(row.cells).some((v) => v !== '' && v !== null && v !== undefined))
        this.issue(
          row.rowNumber,
          'error',
          'missing_item_name',
          'a Square row needs its Item Name (the variations of an item share it)',
          this.byKey.get('item name'),
        );
      return;
    }
    if (this.run?.name !== name) {
      const earlier = this.items.get(name)?.[0]?.row.rowNumber;
      this.run = { name, firstRow: row.rowNumber, clash: earlier };
    }
    if (this.run.clash !== undefined) {
      // A name coming back after other items' rows: a second Square item of the same name.
      this.issue(
        row.rowNumber,
        'error',
        'square_duplicate_item_name',
        `two Square items are named "${name}" (rows ${this.run.clash} and ${this.run.firstRow}); rename one in Square, or use --map`,
        this.byKey.get('item name'),
      );
      return;
    }
    const rows = this.items.get(name) ?? [];
    rows.push({ row, cell });
    this.items.set(name, rows);
  }

  finish(): ConvertedProducts {
    const out: SheetRow[] = [];
    for (const [name, rows] of this.items) this.convert(name, rows, out);
    out.sort((a, b) => a.rowNumber - b.rowNumber);
    const first = out[0];
    if (first !== undefined) {
      // Said first: it holds for the whole file.
      const stockNote =
        this.stockColumns.length > 1
          ? `; stock is the sum of ${this.stockColumns.length} locations (${this.locations.join(', ')}): --location NAME takes one location's`
          : '';
      this.issues.unshift({
        severity: 'warning',
        code: 'square_key_from_name',
        sheet: this.sheet,
        rowNumber: first.rowNumber,
        message: `${this.items.size} item${this.items.size === 1 ? '' : 's'} keyed by Item Name (reference_id square:ITEM NAME: Square's export has no item id), so renaming one in Square makes it a new product on the next import${stockNote}`,
      });
    }
    const letter = (key: string | undefined) => (key === undefined ? undefined : this.byKey.get(key));
    const output: [string, SheetColumn | undefined][] = [
      ['reference_id', letter('item name')],
      ['name', letter('item name')],
      ['description', letter('description')],
      ['status', letter('square online item visibility')],
      ['type', letter('item type')],
      ['sku', letter('sku')],
      ['price', letter('price')],
      ['original_price', letter('online sale price')],
      ['cost', letter('default unit cost')],
      ['weight', this.weight?.column],
      ['inventory_enabled', this.stockColumns[0]],
      ['inventory_quantity', this.stockColumns[0]],
      ['variant_name', letter('variation name')],
      ['variant_sku', letter('sku')],
      ['variant_price', letter('price')],
      ['variant_original_price', letter('online sale price')],
      ['variant_cost', letter('default unit cost')],
      ['variant_weight', this.weight?.column],
      ['variant_inventory_quantity', this.stockColumns[0]],
    ];
    return {
      columns: output.map(([field, c], i) => ({
        header: field,
        key: field,
        letter: c?.letter ?? '',
        index: c?.index ?? i,
      })),
      rows: out,
      issues: this.issues,
      skipped: [],
      columnUses: this.uses(),
      nearColumns: [],
      categories: this.categories,
    };
  }

  /** A row's stock: the sum of its locations' numbers ('' when none gives one), oversold as 0. */
  private quantity(r: SquareRow, item: string): string {
    let total: number | undefined;
    for (const c of this.stockColumns) {
      const t = cellText(r.row.cells[c.key] as CellValue | undefined).trim();
      if (t === '') continue;
      const n = Number(t);
      if (!Number.isFinite(n)) return t; // the decoder names the cell
      total = (total ?? 0) + n;
    }
    if (total === undefined) return '';
    if (total < 0) {
      this.issue(
        r.row.rowNumber,
        'warning',
        'negative_stock',
        `"${item}" has stock ${total} (oversold); imported as 0`,
        this.stockColumns[0],
      );
      return '0';
    }
    return String(total);
  }

  private grams(r: SquareRow): string {
    if (this.weight === undefined) return '';
    const t = cellText(r.row.cells[this.weight.column.key] as CellValue | undefined).trim();
    if (t === '') return '';
    const n = Number(t);
    return Number.isFinite(n) ? String(Math.round(n * this.weight.grams)) : t;
  }

  /** Price, original price and cost of a row into `cells` under `prefix` ('' or 'variant_'). */
  private money(r: SquareRow, cells: Record<string, CellValue>, prefix: string): void {
    const price = r.cell('price');
    const sale = r.cell('online sale price');
    if (sale !== '') {
      cells[`${prefix}price`] = sale;
      if (price !== '') cells[`${prefix}original_price`] = price;
    } else if (price !== '') cells[`${prefix}price`] = price;
    const cost = r.cell('default unit cost');
    if (cost !== '') cells[`${prefix}cost`] = cost;
    const g = this.grams(r);
    if (g !== '') cells[`${prefix}weight`] = g;
  }

  private convert(name: string, rows: SquareRow[], out: SheetRow[]): void {
    const p = rows[0] as SquareRow;
    const key = `square:${name}`;
    const cells: Record<string, CellValue> = { reference_id: key, name };
    const description = p.cell('description');
    if (description !== '') {
      const { markdown, lost } = descriptionToMarkdown(description);
      cells['description'] = markdown;
      if (lost.length > 0)
        this.issue(
          p.row.rowNumber,
          'warning',
          'description_content_lost',
          `the description of "${name}" lost what the API cannot show: ${lost.join(', ')}`,
          this.byKey.get('description'),
        );
    }
    const visibility = p.cell('square online item visibility').toLowerCase();
    if (p.cell('archived').toUpperCase() === 'Y') cells['status'] = 'HIDDEN';
    else if (visibility === 'visible') cells['status'] = 'VISIBLE';
    else if (visibility === 'hidden' || visibility === 'unavailable') cells['status'] = 'HIDDEN';
    const type = p.cell('item type').toLowerCase();
    if (type === 'digital good') cells['type'] = 'DIGITAL';
    else if (type === 'physical good') cells['type'] = 'PHYSICAL';
    if (this.categoryColumn !== undefined) {
      const names = categoryList(cellText(p.row.cells[this.categoryColumn.key] as CellValue | undefined));
      if (names.length > 0) this.categories.set(p.row.rowNumber, names);
    }
    const quantities = rows.map((r) => this.quantity(r, name));
    if (quantities.some((q) => q !== '')) cells['inventory_enabled'] = 'true';
    if (rows.length === 1 && SINGLE_NAMES.has(p.cell('variation name').toLowerCase())) {
      if (p.cell('sku') !== '') cells['sku'] = p.cell('sku');
      this.money(p, cells, '');
      if (quantities[0] !== '') cells['inventory_quantity'] = quantities[0] as string;
      out.push({ sheet: this.sheet, rowNumber: p.row.rowNumber, cells });
      return;
    }
    // The product's own price: its lowest variation price (what "from" shows), required on create.
    let lowest: SquareRow | undefined;
    let lowestPrice = Number.POSITIVE_INFINITY;
    for (const r of rows) {
      const n = priceOrder(r.cell('online sale price') || r.cell('price'));
      if (Number.isFinite(n) && n < lowestPrice) {
        lowestPrice = n;
        lowest = r;
      }
    }
    if (lowest !== undefined) cells['price'] = lowest.cell('online sale price') || lowest.cell('price');
    const seen = new Map<string, number>();
    rows.forEach((r, i) => {
      const vc: Record<string, CellValue> = i === 0 ? cells : { reference_id: key };
      const values = [1, 2, 3].map((n) => r.cell(`option value ${n}`)).filter((v) => v !== '');
      const vname =
        values.join(' / ') || r.cell('variation name') || r.cell('sku') || `Variation ${r.row.rowNumber}`;
      const same = seen.get(vname);
      if (same !== undefined) {
        this.issue(
          r.row.rowNumber,
          'error',
          'repeated_variation',
          `"${name}" already has the variation "${vname}" (row ${same})`,
          this.byKey.get('variation name'),
        );
        return;
      }
      seen.set(vname, r.row.rowNumber);
      vc['variant_name'] = vname;
      if (r.cell('sku') !== '') vc['variant_sku'] = r.cell('sku');
      this.money(r, vc, 'variant_');
      if (quantities[i] !== '') vc['variant_inventory_quantity'] = quantities[i] as string;
      out.push({ sheet: this.sheet, rowNumber: r.row.rowNumber, cells: vc });
    });
  }

  private uses(): ColumnUse[] {
    const stock = new Set(this.stockColumns);
    const feeds: Record<string, [string | null, string?]> = {
      token: [null, "Square's variation id: not the store's"],
      'item name': ['name, reference_id', 'square:ITEM NAME; the rows of one item share it'],
      'variation name': ['variant_name', 'when no Option Value names the variation'],
      sku: ['sku / variant_sku'],
      description: ['description', 'HTML → the API Markdown subset'],
      price: ['price / variant_price', 'the original price when Online Sale Price is set'],
      'online sale price': ['price / variant_price', 'Price becomes the original price'],
      'default unit cost': ['cost / variant_cost'],
      archived: ['status', 'Y → HIDDEN'],
      'square online item visibility': ['status', 'visible → VISIBLE; hidden, unavailable → HIDDEN'],
      'item type': ['type', 'Digital good → DIGITAL, Physical good → PHYSICAL'],
    };
    return this.columns.map((c) => {
      const base = { header: c.header, letter: c.letter };
      const k = c.key.trim();
      if (c === this.categoryColumn) return { ...base, field: 'category_ids', note: CATEGORY_NOTE };
      if (c === this.weight?.column) return { ...base, field: 'weight / variant_weight', note: '→ grams' };
      if (stock.has(c))
        return {
          ...base,
          field: 'inventory_quantity / variant_inventory_quantity',
          note:
            this.stockColumns.length > 1
              ? `summed over the ${this.stockColumns.length} locations (--location NAME for one)`
              : 'tracked when a number',
        };
      if (k.startsWith(QUANTITY_PREFIX))
        return { ...base, field: null, note: 'another location than --location' };
      const f = feeds[k];
      if (f !== undefined) return { ...base, field: f[0], ...(f[1] ? { note: f[1] } : {}) };
      if (/^option value \d$/.test(k)) return { ...base, field: 'variant_name', note: 'joined with " / "' };
      if (/^option name \d$/.test(k))
        return { ...base, field: null, note: 'option names: variants are named by their values' };
      if (k === 'category' || k === 'reporting category' || k === 'categories')
        return { ...base, field: null, note: `categories read from "${this.categoryColumn?.header ?? ''}"` };
      return { ...base, field: null, note: 'no such field in the API' };
    });
  }
}
