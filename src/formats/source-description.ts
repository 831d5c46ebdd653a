import { PRODUCT_COLUMN_ALIASES, PRODUCT_SHEET_COLUMNS, resolveColumns } from '../mapping/column-aliases.js';
import type { SheetColumn } from '../sheets/sheet-row.js';
import { JOIN_KEY_PREFIX, type MappedColumns } from './column-map.js';
import type { ColumnUse, ProductSourceFormat } from './source-format.js';

/** What the products sheet was read as (plan.json `source`; the plan's first lines). */
export interface SourceDescription {
  format: ProductSourceFormat | 'map';
  /** `Shopify product export`, … */
  label: string;
  /** True when the format was recognised from the header (not forced with --from). */
  detected: boolean;
  /** Set when the header resembles a known export without matching it. */
  hint?: string;
  /** The row the header was read from (1 unless a title row or --header-row said otherwise). */
  headerRow: number;
  /** Every source column once: the field it feeds, or not imported. */
  columns: ColumnUse[];
}

/**
 * The column uses of a canonical (or `--map`ped) sheet: resolved fields, or "not imported". With a
 * column map, `mapped` says which field each column feeds and which columns a join reads.
 */
export function describeSheetColumns(
  columns: readonly SheetColumn[],
  mapped?: Pick<MappedColumns, 'fields' | 'joinedInto'>,
): ColumnUse[] {
  const resolved = resolveColumns(columns, PRODUCT_SHEET_COLUMNS, PRODUCT_COLUMN_ALIASES, mapped?.fields);
  const fieldOf = new Map<string, string>();
  for (const [field, column] of resolved.byField) fieldOf.set(column.header, field);
  const out: ColumnUse[] = [];
  for (const c of columns) {
    if (c.key.startsWith(JOIN_KEY_PREFIX)) continue; // a join: shown on the columns it joins
    const join = mapped?.joinedInto.get(c.key);
    const field = fieldOf.get(join ?? c.header);
    out.push(
      field === undefined
        ? { header: c.header, letter: c.letter, field: null, note: 'not a product column' }
        : join === undefined
          ? { header: c.header, letter: c.letter, field }
          : { header: c.header, letter: c.letter, field, note: `joined: ${join}` },
    );
  }
  return out;
}

/** `Handle → reference_id, Title → name` and `Vendor, Type` lines for people. */
export function summarizeColumns(columns: readonly ColumnUse[]): { imported: string; notImported: string } {
  const imported = columns.filter((c) => c.field !== null).map((c) => `${c.header} → ${c.field}`);
  const not = columns
    .filter((c) => c.field === null)
    .map((c) => (c.note?.startsWith('did you mean') ? `${c.header} (${c.note})` : c.header));
  return { imported: imported.join(', ') || 'none', notImported: not.join(', ') || 'none' };
}
