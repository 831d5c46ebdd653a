import type { DesiredOption, DesiredVariantFields, SourceRow } from './product-desired.js';
import type { PackedTexts } from './packed-texts.js';
import type { ProductGroup } from './product-group.js';

/** What a parked group's arrays are until it is unparked: frozen, so a write to one throws. */
const PARKED: never[] = Object.freeze([]) as unknown as never[];

/** A source row as packed: its number alone on the sheet the products are read from. */
type PackedRow = number | [string, number];

/** values, valueRows, variants, options (0: none), rows: a group's collected state, as packed. */
type PackedGroup = [
  (unknown | null)[],
  (number | null)[],
  [DesiredVariantFields, PackedRow][],
  DesiredOption[] | 0,
  PackedRow[],
];

function packRow(r: SourceRow, sheet: string): PackedRow {
  return r.sheet === sheet ? r.rowNumber : [r.sheet, r.rowNumber];
}

/** A packed row read back. */
export function unpackRow(r: PackedRow, sheet: string): SourceRow {
  return typeof r === 'number' ? { sheet, rowNumber: r } : { sheet: r[0], rowNumber: r[1] };
}

/**
 * Packs what a product collected from its rows (values, variants, options, rows) into one string,
 * JSON with the field names of the variants only: a sheet product of three variants is ~0.5 KB
 * packed against ~3 KB as objects. Its identifiers, command, issues and validity stay as they are.
 */
export function parkGroup(g: ProductGroup, sheet: string, texts: PackedTexts): void {
  const packed: PackedGroup = [
    g.values,
    g.valueRows,
    g.variants.map((v) => [v.fields, packRow(v.row, sheet)]),
    g.options ?? 0,
    g.rows.map((r) => packRow(r, sheet)),
  ];
  g.packed = texts.add(JSON.stringify(packed));
  g.values = PARKED;
  g.valueRows = PARKED;
  g.variants = PARKED;
  g.options = undefined;
  g.rows = PARKED;
}

/** A parked group's text read back: the same values as were packed (a hole comes back as undefined). */
export function readParked(text: string): PackedGroup {
  return JSON.parse(text) as PackedGroup;
}

/** Restores a parked group exactly as it was parked. */
export function unparkGroup(g: ProductGroup, sheet: string, texts: PackedTexts): void {
  const [values, valueRows, variants, options, rows] = readParked(texts.take(g.packed as number));
  g.packed = undefined;
  g.values = holes(values);
  g.valueRows = holes(valueRows) as number[];
  g.variants = variants.map(([fields, row]) => ({ fields, row: unpackRow(row, sheet) }));
  g.options = options === 0 ? undefined : options;
  g.rows = rows.map((r) => unpackRow(r, sheet));
}

/** JSON's null for an array's hole back to undefined (no decoded cell value is ever null). */
export function holes<T>(list: (T | null)[]): (T | undefined)[] {
  const out = new Array<T | undefined>(list.length);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (v !== null) out[i] = v as T;
  }
  return out;
}

/**
 * The products of a sheet being read, parked but for the most recently used: rows of one product
 * usually follow each other, so a product is parked once its rows have passed, and one whose rows
 * come back later (scattered in the sheet) is unparked, merged and parked again, as before.
 */
export class GroupParking {
  private readonly open = new Set<ProductGroup>();
  private last: ProductGroup | undefined;

  /**
   * @param sheet the products sheet's label (its rows are packed as numbers)
   * @param capacity how many products stay unparked
   * @param keep a product that is never parked (it is left as it is)
   * @param texts where parked products are kept
   */
  constructor(
    private readonly texts: PackedTexts,
    private readonly sheet: string,
    private readonly capacity: number,
    private readonly keep: (g: ProductGroup) => boolean,
  ) {}

  /** The group unparked, as the most recently used; the least recently used beyond capacity is parked. */
  touch(g: ProductGroup): ProductGroup {
    if (g === this.last) return g;
    this.last = g;
    if (g.packed !== undefined) unparkGroup(g, this.sheet, this.texts);
    else this.open.delete(g);
    this.open.add(g);
    if (this.open.size > this.capacity) {
      const oldest = this.open.values().next().value as ProductGroup;
      this.open.delete(oldest);
      if (!this.keep(oldest)) parkGroup(oldest, this.sheet, this.texts);
    }
    return g;
  }
}
