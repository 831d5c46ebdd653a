import type { RowIssue } from '../../mapping/row-issue.js';
import { cellText } from '../../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { descriptionToMarkdown } from '../html-to-markdown.js';
import { CATEGORY_NOTE, categoryList, commaList, pushIssue } from '../source-format.js';
import type { ColumnUse, ConvertedProducts, ProductConverter } from '../source-format.js';

/**
 * Etsy's listings download (Shop Manager → Settings → Options → Download Data → Currently for Sale
 * Listings: `EtsyListingsDownload.csv`). Its columns come in one fixed order, their headers in the
 * shop's language (`TITLE` / `TITOLO`, `PRICE` / `PREZZO`, `IMAGE1` / `IMMAGINE1`…) except
 * `CURRENCY_CODE` and `SKU`, so they are read by position: title, description, price, currency
 * code, quantity, tags, materials, ten images, two variations of three columns (type, name,
 * values), then SKU. A `SECTION` column, where an export has one, is read by name.
 */
const POSITION = {
  title: 0,
  description: 1,
  price: 2,
  currency: 3,
  quantity: 4,
  tags: 5,
  materials: 6,
} as const;
const FIRST_IMAGE = 7;
const IMAGES = 10;

/** Whether a header is Etsy's listings download, in any language (CURRENCY_CODE 4th, IMAGE1…10 after MATERIALS). */
export function isEtsyListingsHeader(columns: readonly SheetColumn[]): boolean {
  if (columns[POSITION.currency]?.key !== 'currency_code') return false;
  for (let i = 0; i < IMAGES; i++) {
    if (!(columns[FIRST_IMAGE + i]?.key.endsWith(String(i + 1)) ?? false)) return false;
  }
  return columns.some((c) => c.key === 'sku');
}

/** Canonical columns the conversion writes, with the source position each comes from. */
const OUTPUT: readonly [string, number | undefined][] = [
  ['reference_id', POSITION.title],
  ['name', POSITION.title],
  ['description', POSITION.description],
  ['sku', undefined],
  ['price', POSITION.price],
  ['inventory_enabled', POSITION.quantity],
  ['inventory_quantity', POSITION.quantity],
  ['tags', POSITION.tags],
  ['images', FIRST_IMAGE],
];

/**
 * An Etsy listings download as canonical product rows: one product per listing. Etsy writes no
 * listing id, so the key is the SKU (`etsy:SKU`) when the listing has one SKU, else the title
 * (`etsy:title:TITLE`, said once in the plan). `PRICE` with `CURRENCY_CODE` → price (a currency
 * other than the store's is an error on the cell); `QUANTITY` → tracked stock; `TAGS` split on
 * commas; `IMAGE1…10` in order; `DESCRIPTION` as plain text with its line breaks. Variations are
 * not imported: the download gives their values but no price, SKU or stock of each (a listing with
 * variations lists all their SKUs, comma-separated, in `SKU`), noted per listing.
 */
export class EtsyProductConverter implements ProductConverter {
  private readonly columns: readonly SheetColumn[];
  private readonly sheet: string;
  private readonly sku: SheetColumn | undefined;
  private readonly section: SheetColumn | undefined;
  private readonly rows: SheetRow[] = [];
  private readonly issues: RowIssue[] = [];
  private readonly categories = new Map<number, string[]>();
  private byTitle = 0;

  constructor(columns: readonly SheetColumn[], sheet: string) {
    this.columns = columns;
    this.sheet = sheet;
    this.sku = columns.find((c) => c.key === 'sku');
    this.section = columns.find((c) => c.key === 'section' || c.key === 'section_title');
  }

  private text(row: SheetRow, col: SheetColumn | undefined): string {
    return col === undefined ? '' : cellText(row.cells[col.key] as CellValue | undefined).trim();
  }

  private at(row: SheetRow, position: number): string {
    return this.text(row, this.columns[position]);
  }

  private note(rowNumber: number, code: string, message: string, col?: SheetColumn): void {
    pushIssue(this.issues, this.sheet, rowNumber, 'warning', code, message, col);
  }

  addRow(row: SheetRow): void {
    const title = this.at(row, POSITION.title);
    const skus = commaList(this.text(row, this.sku));
    if (title === '' && skus.length === 0) return; // a blank line
    const cells: Record<string, CellValue> = {};
    const single = skus.length === 1 ? skus[0] : undefined;
    if (single !== undefined) {
      cells['reference_id'] = `etsy:${single}`;
      cells['sku'] = single;
    } else {
      cells['reference_id'] = `etsy:title:${title}`;
      this.byTitle++;
    }
    if (title !== '') cells['name'] = title;
    const description = this.at(row, POSITION.description);
    if (description !== '') {
      const { markdown, lost } = descriptionToMarkdown(description);
      cells['description'] = markdown;
      if (lost.length > 0)
        this.note(
          row.rowNumber,
          'description_content_lost',
          `the description of "${title}" lost: ${lost.join(', ')}`,
        );
    }
    const price = this.at(row, POSITION.price);
    const currency = this.at(row, POSITION.currency);
    // The currency goes with the amount: the money decoder refuses one that is not the store's.
    if (price !== '') cells['price'] = currency === '' ? price : `${price} ${currency}`;
    const quantity = this.at(row, POSITION.quantity);
    if (quantity !== '') {
      cells['inventory_enabled'] = 'true';
      cells['inventory_quantity'] = quantity;
    }
    const tags = commaList(this.at(row, POSITION.tags));
    if (tags.length > 0) cells['tags'] = tags.join('|');
    const images: string[] = [];
    for (let i = 0; i < IMAGES; i++) {
      const url = this.at(row, FIRST_IMAGE + i);
      if (url !== '' && !images.includes(url)) images.push(url);
    }
    if (images.length > 0) cells['images'] = images.join('|');
    const section = categoryList(this.text(row, this.section));
    if (section.length > 0) this.categories.set(row.rowNumber, section);
    const variations = [18, 21]
      .map((p) => [this.at(row, p), this.at(row, p + 1)] as const)
      .filter(([name, values]) => name !== '' || values !== '');
    if (variations.length > 0 || skus.length > 1)
      this.note(
        row.rowNumber,
        'etsy_variations_not_imported',
        `"${title}": its variations (${variations.map(([n, v]) => `${n}: ${v}`).join('; ') || `${skus.length} SKUs`}) are not imported: Etsy's listings download gives no price, SKU or stock per variation; the listing is one product${skus.length > 1 ? ' keyed by its title, its SKUs not imported' : ''}`,
        this.columns[18],
      );
    this.rows.push({ sheet: this.sheet, rowNumber: row.rowNumber, cells });
  }

  finish(): ConvertedProducts {
    if (this.byTitle > 0) {
      const first = this.rows.find((r) => String(r.cells['reference_id']).startsWith('etsy:title:'));
      // Said first: it holds for the whole file.
      this.issues.unshift({
        severity: 'warning',
        code: 'etsy_key_from_title',
        sheet: this.sheet,
        rowNumber: first?.rowNumber ?? 1,
        message: `${this.byTitle} listing${this.byTitle === 1 ? ' has' : 's have'} no single SKU: keyed by title (reference_id etsy:title:TITLE), so renaming one on Etsy makes it a new product on the next import`,
      });
    }
    const columns = OUTPUT.map(([field, position], i) => {
      const c = position === undefined ? this.sku : this.columns[position];
      return { header: field, key: field, letter: c?.letter ?? '', index: c?.index ?? i };
    });
    return {
      columns,
      rows: this.rows,
      issues: this.issues,
      skipped: [],
      columnUses: this.uses(),
      nearColumns: [],
      categories: this.categories,
    };
  }

  private uses(): ColumnUse[] {
    const feeds: Record<number, [string, string?]> = {
      [POSITION.title]: ['name, reference_id', 'the key when the listing has no single SKU'],
      [POSITION.description]: ['description', 'plain text, line breaks kept'],
      [POSITION.price]: ['price'],
      [POSITION.currency]: ['price', "checked against the store's currency"],
      [POSITION.quantity]: ['inventory_quantity', 'tracked'],
      [POSITION.tags]: ['tags', 'comma-separated'],
    };
    return this.columns.map((c, i) => {
      const base = { header: c.header, letter: c.letter };
      const f = feeds[i];
      if (f !== undefined) return { ...base, field: f[0], ...(f[1] ? { note: f[1] } : {}) };
      if (i >= FIRST_IMAGE && i < FIRST_IMAGE + IMAGES) return { ...base, field: 'images', note: 'in order' };
      if (c === this.sku)
        return {
          ...base,
          field: 'sku, reference_id',
          note: 'one SKU: the key; several: variations, not imported',
        };
      if (c === this.section) return { ...base, field: 'category_ids', note: CATEGORY_NOTE };
      if (i === POSITION.materials)
        return { ...base, field: null, note: 'materials: no such field in the API' };
      if (i >= 17 && i < 23)
        return {
          ...base,
          field: null,
          note: 'variations: no price, SKU or stock per variation in this download',
        };
      return { ...base, field: null };
    });
  }
}
