import { nearestHeader } from '../mapping/near-column.js';
import type { RowIssue } from '../mapping/row-issue.js';
import { cellText } from '../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';

/** The product sheet formats `mbulk import products` reads (`--from`). */
export const PRODUCT_SOURCE_FORMATS = [
  'mbulk',
  'shopify',
  'woocommerce',
  'etsy',
  'wix',
  'square',
  'bigcommerce',
] as const;
export type ProductSourceFormat = (typeof PRODUCT_SOURCE_FORMATS)[number];

/** How the plan names each format on its first line (`Format: Shopify product export`). */
export const FORMAT_LABELS: Readonly<Record<ProductSourceFormat | 'map' | 'shopify-customers', string>> = {
  mbulk: 'merchant-bulk product sheet',
  map: 'product sheet read through a column map',
  shopify: 'Shopify product export',
  woocommerce: 'WooCommerce product export',
  etsy: 'Etsy listings download',
  wix: 'Wix Stores product export',
  square: 'Square item library export',
  bigcommerce: 'BigCommerce products export',
  'shopify-customers': 'Shopify customer export',
};

/** What became of one source column: the field it feeds, or why it is not imported. */
export interface ColumnUse {
  header: string;
  letter: string;
  /** Canonical field(s) it feeds (`reference_id`, `variant_name`…); null: not imported. */
  field: string | null;
  /** Why it is not imported, or how it is read. */
  note?: string;
}

/** A source row the conversion leaves out on purpose (results.csv: skipped, with the reason). */
export interface SkippedRow {
  rowNumber: number;
  code: string;
  message: string;
}

/** A source sheet turned into canonical product rows (docs/architecture.md, "Sheet formats"). */
export interface ConvertedProducts {
  /** Canonical columns: header and key are the field name, letter is the source column's. */
  columns: SheetColumn[];
  /** Canonical rows; each keeps the sheet label and row number of its source row. */
  rows: SheetRow[];
  /** Notes and errors of the conversion (rows skipped, content lost, orphan rows…). */
  issues: RowIssue[];
  /** Rows left out on purpose (gift cards, grouped products, repeated rows): each also has a note. */
  skipped: SkippedRow[];
  columnUses: ColumnUse[];
  /** Columns that look like a known column the file lacks: warned about, named by errors. */
  nearColumns: NearColumn[];
  /**
   * Each product's categories as the platform names them, by the row number of its first row
   * (DesiredProduct.sourceCategories; `--category-map` gives them store ids).
   */
  categories?: ReadonlyMap<number, string[]>;
}

/** The note on a column whose categories feed `--category-map`. */
export const CATEGORY_NOTE = 'source categories: store category ids through --category-map';

/**
 * A list of category names as a platform writes it: comma-separated, a comma inside a name written
 * `\,` (WooCommerce), each name once, blanks left out.
 */
export function categoryList(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/(?<!\\),/)) {
    const t = part.replace(/\\,/g, ',').trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

/** A column of the file close to a known one that is missing (`Variant Prce`). */
export interface NearMiss<N extends string = string> {
  column: SheetColumn;
  /** The known header it likely means, as the platform writes it (`Variant Price`). */
  suggestion: string;
  name: N;
}

/** A near miss as the conversion reports it: with the canonical fields the missing column feeds. */
export interface NearColumn {
  column: SheetColumn;
  suggestion: string;
  fields: string[];
}

/** Adds an issue of a source row, naming its column (letter and header) when given. */
export function pushIssue(
  issues: RowIssue[],
  sheet: string,
  rowNumber: number,
  severity: 'error' | 'warning',
  code: string,
  message: string,
  column?: SheetColumn,
): void {
  issues.push({
    severity,
    code,
    message,
    sheet,
    rowNumber,
    ...(column ? { column: column.letter, header: column.header } : {}),
  });
}

/** Turns the rows of one source format into canonical product rows. */
export interface ProductConverter {
  addRow(row: SheetRow): void;
  finish(): ConvertedProducts;
  /**
   * As finish(), its rows made one product at a time while they are read (a million-row export is
   * never converted whole at once): the same rows in the same order, and the same issues once the
   * rows are all read. Converters without it are finished whole.
   */
  stream?(): StreamedProducts;
}

/** ConvertedProducts whose rows are made as they are read (ProductConverter.stream). */
export interface StreamedProducts extends Omit<ConvertedProducts, 'rows'> {
  rows: Iterable<SheetRow>;
}

/**
 * The source columns a converter reads, found by any of their known headers (case-insensitive;
 * headers differ between older and current exports). `key(name)` is the row cell key.
 */
export class SourceColumns<N extends string> {
  private readonly byName = new Map<N, SheetColumn>();
  private readonly used = new Map<string, { field: string | null; note?: string }>();
  readonly all: readonly SheetColumn[];

  private readonly headers: Readonly<Record<N, readonly string[]>>;

  /** `headers`: each column's headers as the platform writes them (matched case-insensitively). */
  constructor(columns: readonly SheetColumn[], headers: Readonly<Record<N, readonly string[]>>) {
    this.all = columns;
    this.headers = headers;
    const byKey = new Map(columns.map((c) => [c.key.trim(), c]));
    for (const name of Object.keys(headers) as N[]) {
      for (const h of headers[name]) {
        const c = byKey.get(h.toLowerCase());
        if (c !== undefined) {
          this.byName.set(name, c);
          break;
        }
      }
    }
  }

  /**
   * Columns of the file that are none of the known ones but close to one that is missing
   * (`Variant Prce` for `Variant Price`): the column, the header it likely means, and its name.
   * Columns `notImported` explains are not near misses.
   */
  nearMisses(notImported: (key: string) => string | undefined): NearMiss<N>[] {
    const matched = new Set(this.byName.values());
    const missing = (Object.keys(this.headers) as N[]).filter((n) => !this.byName.has(n));
    const known = missing.flatMap((n) => this.headers[n].map((h) => [h, n] as const));
    const out: NearMiss<N>[] = [];
    for (const c of this.all) {
      if (matched.has(c) || notImported(c.key) !== undefined) continue;
      const suggestion = nearestHeader(
        c.header,
        known.map(([h]) => h),
      );
      const name = known.find(([h]) => h === suggestion)?.[1];
      if (suggestion !== undefined && name !== undefined) out.push({ column: c, suggestion, name });
    }
    return out;
  }

  has(name: N): boolean {
    return this.byName.has(name);
  }

  column(name: N): SheetColumn | undefined {
    return this.byName.get(name);
  }

  /** The trimmed text of a cell ('' when blank or when the column is absent). */
  text(row: SheetRow, name: N): string {
    const c = this.byName.get(name);
    if (c === undefined) return '';
    return cellText(row.cells[c.key] as CellValue | undefined).trim();
  }

  /** Records that a source column feeds `field` (or is read for a reason given in `note`). */
  use(name: N, field: string | null, note?: string): void {
    const c = this.byName.get(name);
    if (c === undefined) return;
    const prev = this.used.get(c.key);
    if (prev?.field && field && !prev.field.split(', ').includes(field)) {
      this.used.set(c.key, { field: `${prev.field}, ${field}`, ...(note ? { note } : {}) });
    } else if (!prev?.field) this.used.set(c.key, note ? { field, note } : { field });
  }

  /** A canonical column fed by a source column: header/key = field, letter = source letter. */
  canonical(field: string, from: N | undefined, fallbackIndex: number): SheetColumn {
    const c = from === undefined ? undefined : this.byName.get(from);
    return { header: field, key: field, letter: c?.letter ?? '', index: c?.index ?? fallbackIndex };
  }

  /**
   * Every source column once, in sheet order: the field it feeds, or "not imported" (why, from
   * `notImported` of the column's key: its header lower-cased, or the English header a translated
   * one was read as).
   */
  uses(notImported: (key: string) => string | undefined): ColumnUse[] {
    return this.all.map((c) => {
      const u = this.used.get(c.key);
      if (u?.field)
        return { header: c.header, letter: c.letter, field: u.field, ...(u.note ? { note: u.note } : {}) };
      const note = u?.note ?? notImported(c.key);
      return { header: c.header, letter: c.letter, field: null, ...(note ? { note } : {}) };
    });
  }
}

/**
 * The near misses of a conversion with the canonical fields each missing column feeds (`output`:
 * canonical field → the source column name it comes from), and the column uses with a
 * "did you mean" note on those columns.
 */
export function nearColumnsOf<N extends string>(
  cols: SourceColumns<N>,
  notImported: (key: string) => string | undefined,
  output: readonly (readonly [string, N | undefined])[],
  uses: ColumnUse[],
): { nearColumns: NearColumn[]; columnUses: ColumnUse[] } {
  const nearColumns = cols.nearMisses(notImported).map((m) => ({
    column: m.column,
    suggestion: m.suggestion,
    fields: output.filter(([, from]) => from === m.name).map(([field]) => field),
  }));
  const byLetter = new Map(nearColumns.map((n) => [n.column.letter, n]));
  const columnUses = uses.map((u) => {
    const near = u.field === null ? byLetter.get(u.letter) : undefined;
    return near === undefined
      ? u
      : { ...u, note: `did you mean ${near.suggestion}? (not imported as written)` };
  });
  return { nearColumns, columnUses };
}

/**
 * A price cell's value, only to pick a product's lowest price: `1,234.50` and `1.234,50` are both
 * 1234.5 (a comma followed by one or two digits at the end is a decimal comma). The cell itself goes
 * to the money decoder as written, which honours --decimal-comma and the store's currency.
 */
export function priceOrder(text: string): number {
  const t = text.trim();
  const decimalComma = /,\d{1,2}$/.test(t);
  return Number(decimalComma ? t.replace(/\./g, '').replace(',', '.') : t.replace(/,/g, ''));
}

/** A comma-separated list (Shopify and WooCommerce tags, WooCommerce images) as the sheet's `a|b`. */
export function commaList(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',')) {
    const t = part.trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}
