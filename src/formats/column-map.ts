import { readRegularFile } from '../sheets/read-regular-file.js';
import { PRODUCT_SHEET_COLUMNS } from '../mapping/column-aliases.js';
import { headerKey } from '../sheets/sheet-table.js';
import { cellText } from '../sheets/cell-result.js';
import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { MbulkError } from '../errors/mbulk-error.js';

/**
 * A column map: source header (as written, matched case-insensitively) → canonical field, or
 * fields (one column may feed two: `TITLE=reference_id,TITLE=name`).
 */
export type ColumnMap = Readonly<Record<string, string | readonly string[]>>;

/** The fields a column map entry feeds. */
function fieldsOf(value: string | readonly string[]): readonly string[] {
  return typeof value === 'string' ? [value] : value;
}

/** List fields: a `+` join writes `a|b`, and a cell with commas and no `|` is split on its commas. */
const LIST_FIELDS = new Set(['tags', 'links', 'category_ids', 'images']);

/** A bad `--map` / `--map-file` (a usage error: exit 2). */
export class ColumnMapError extends MbulkError {
  static override readonly errorName: string = 'ColumnMapError';
  constructor(message: string) {
    super('usage', message);
  }
}

const FIELDS = new Set<string>(PRODUCT_SHEET_COLUMNS);

function checkFields(map: Record<string, string | string[]>, where: string): ColumnMap {
  for (const [header, value] of Object.entries(map)) {
    for (const field of fieldsOf(value))
      if (!FIELDS.has(field)) {
        throw new ColumnMapError(
          `${where}: "${header}" is mapped to "${field}", which is not a product column. Use one of: ${PRODUCT_SHEET_COLUMNS.join(', ')}`,
        );
      }
  }
  return map;
}

/**
 * `--map "Title=name,Barcode=variant_sku"`: pairs separated by commas, header before `=`;
 * `"Colour+Size=variant_name"` joins columns (see applyColumnMap).
 */
export function parseColumnMap(text: string): ColumnMap {
  const map: Record<string, string | string[]> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.lastIndexOf('=');
    const header = eq < 0 ? '' : part.slice(0, eq).trim();
    const field = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (header === '' || field === '') {
      throw new ColumnMapError(
        `--map: "${part.trim()}" is not Header=field (for example "Title=name,Barcode=variant_sku")`,
      );
    }
    // One header may feed two fields; said twice for one field, it is once.
    const seen = map[header];
    if (seen === undefined) map[header] = field;
    else {
      const list = fieldsOf(seen);
      if (!list.includes(field)) map[header] = [...list, field];
    }
  }
  return checkFields(map, '--map');
}

/**
 * `--map-file map.json`: `{ "columns": { "Header": "field", … } }` (or the bare object). See
 * templates/column-map.json.
 */
export function readColumnMapFile(file: string): ColumnMap {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegularFile(file).toString('utf8'));
  } catch (error) {
    throw new ColumnMapError(`--map-file ${file}: ${(error as Error).message}`);
  }
  const obj =
    typeof parsed === 'object' && parsed !== null && 'columns' in parsed
      ? (parsed as { columns: unknown }).columns
      : parsed;
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new ColumnMapError(`--map-file ${file}: expected {"columns": {"Header": "field", …}}`);
  }
  const map: Record<string, string | string[]> = {};
  for (const [header, field] of Object.entries(obj)) {
    if (header.startsWith('$') || header === '_comment') continue;
    if (typeof field === 'string') map[header] = field;
    else if (Array.isArray(field) && field.length > 0 && field.every((f) => typeof f === 'string'))
      map[header] = field as string[];
    else
      throw new ColumnMapError(
        `--map-file ${file}: "${header}" must map to a field name (or a list of them)`,
      );
  }
  return checkFields(map, `--map-file ${file}`);
}

/** Separates the columns of a join: `Colour+Size=variant_name`. */
const JOIN = '+';
/** The cell key of a join's column starts so: no header can make it (`\u0000Colour+Size`). */
export const JOIN_KEY_PREFIX = '\u0000';
/** What the values of joined columns are joined with (`Red / S`, as variants are named). */
export const JOIN_SEPARATOR = ' / ';

/** A sheet read through a column map. */
export interface MappedColumns {
  /** The sheet's columns, plus one per join (its letter the first joined column's). */
  columns: SheetColumn[];
  /**
   * Cell key → the field it feeds, for every mapped column (headers stay the user's); '' for a
   * column read only as part of a join.
   */
  fields: Map<string, string>;
  /** Cell key of each joined column → the join it is part of (`Colour+Size`). */
  joinedInto: Map<string, string>;
  /** Adds each join's cell to a row (the row unchanged when the map has no join). */
  row: (row: SheetRow) => SheetRow;
  /** List cells split on their commas so far (`tags` of `a, b`), and the first of them. */
  commaSplit: CommaSplit;
}

/** List cells of a mapped sheet read as comma-separated (said once in the plan). */
export interface CommaSplit {
  cells: number;
  first?: { rowNumber: number; header: string; letter: string; field: string };
}

/**
 * The sheet's columns read through a column map: each mapped header feeds its field (the header
 * stays the user's, so every message names it); `A+B=field` joins the columns' values, in that
 * order, with " / " (blank ones left out) into one column headed `A+B`. A header that holds a `+`
 * itself is taken as it is. A mapped header the sheet does not have is an error naming it and the
 * headers the sheet has.
 */
export function applyColumnMap(columns: readonly SheetColumn[], map: ColumnMap, file: string): MappedColumns {
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const fields = new Map<string, string>();
  const joins: { key: string; parts: SheetColumn[]; separator: string }[] = [];
  const joinedInto = new Map<string, string>();
  const out = [...columns];
  const missing: string[] = [];
  for (const [header, value] of Object.entries(map)) {
    const whole = byKey.get(headerKey(header));
    const [field, ...more] = fieldsOf(value) as [string, ...string[]];
    if (whole !== undefined || !header.includes(JOIN)) {
      if (whole === undefined) missing.push(header);
      else {
        fields.set(whole.key, field);
        // The same column feeding another field: a copy of its cell under a key of its own.
        for (const other of more) {
          const key = `${JOIN_KEY_PREFIX}${whole.key}=${other}`;
          out.push({ header: whole.header, key, letter: whole.letter, index: whole.index });
          fields.set(key, other);
          joins.push({ key, parts: [whole], separator: JOIN_SEPARATOR });
        }
      }
      continue;
    }
    if (more.length > 0)
      throw new ColumnMapError(
        `${file}: the join "${header}" can feed one field, not ${fieldsOf(value).join(' and ')}`,
      );
    const names = header.split(JOIN).map((h) => h.trim());
    const parts: SheetColumn[] = [];
    for (const name of names) {
      const c = byKey.get(headerKey(name));
      if (c === undefined) missing.push(name);
      else parts.push(c);
    }
    if (parts.length !== names.length) continue;
    const joinHeader = parts.map((p) => p.header).join(JOIN);
    for (const p of parts) {
      if (!fields.has(p.key)) fields.set(p.key, '');
      joinedInto.set(p.key, joinHeader);
    }
    const first = parts[0] as SheetColumn;
    const key = `${JOIN_KEY_PREFIX}${names.join(JOIN)}`;
    out.push({ header: joinHeader, key, letter: first.letter, index: first.index });
    fields.set(key, field);
    joins.push({ key, parts, separator: LIST_FIELDS.has(field) ? '|' : JOIN_SEPARATOR });
  }
  if (missing.length > 0) {
    throw new ColumnMapError(
      `${file}: the column map names ${missing.map((h) => `"${h}"`).join(', ')}, not in the header (${columns.map((c) => c.header).join(', ')})`,
    );
  }
  // List columns whose cells may be comma-separated (`a, b` and no `|`): split on the commas.
  const lists = [...fields].filter(([, f]) => LIST_FIELDS.has(f)).map(([key]) => key);
  const commaSplit: CommaSplit = { cells: 0 };
  const splitCommas = (cells: Record<string, CellValue>, rowNumber: number) => {
    for (const key of lists) {
      const v = cells[key];
      if (typeof v !== 'string' || !v.includes(',') || v.includes('|')) continue;
      cells[key] = v
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
        .join('|');
      commaSplit.cells++;
      if (commaSplit.first === undefined) {
        const c = out.find((col) => col.key === key);
        commaSplit.first = {
          rowNumber,
          header: c?.header ?? key,
          letter: c?.letter ?? '',
          field: fields.get(key) ?? '',
        };
      }
    }
  };
  const row =
    joins.length === 0 && lists.length === 0
      ? (r: SheetRow) => r
      : (r: SheetRow): SheetRow => {
          const cells: Record<string, CellValue> = { ...r.cells };
          for (const j of joins) {
            const values = j.parts.map((p) => cellText(r.cells[p.key]).trim()).filter((v) => v !== '');
            cells[j.key] = values.join(j.separator);
          }
          splitCommas(cells, r.rowNumber);
          return { ...r, cells };
        };
  return { columns: out, fields, joinedInto, row, commaSplit };
}
