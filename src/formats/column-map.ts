import { readRegularFile } from '../sheets/read-regular-file.js';
import { PRODUCT_SHEET_COLUMNS } from '../mapping/column-aliases.js';
import { headerKey } from '../sheets/sheet-table.js';
import type { SheetColumn } from '../sheets/sheet-row.js';
import { MbulkError } from '../errors/mbulk-error.js';

/** A column map: source header (as written, matched case-insensitively) → canonical field. */
export type ColumnMap = Readonly<Record<string, string>>;

/** A bad `--map` / `--map-file` (a usage error: exit 2). */
export class ColumnMapError extends MbulkError {
  static override readonly errorName: string = 'ColumnMapError';
  constructor(message: string) {
    super('usage', message);
  }
}

const FIELDS = new Set<string>(PRODUCT_SHEET_COLUMNS);

function checkFields(map: Record<string, string>, where: string): ColumnMap {
  for (const [header, field] of Object.entries(map)) {
    if (!FIELDS.has(field)) {
      throw new ColumnMapError(
        `${where}: "${header}" is mapped to "${field}", which is not a product column. Use one of: ${PRODUCT_SHEET_COLUMNS.join(', ')}`,
      );
    }
  }
  return map;
}

/** `--map "Title=name,Barcode=variant_sku"`: pairs separated by commas, header before `=`. */
export function parseColumnMap(text: string): ColumnMap {
  const map: Record<string, string> = {};
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
    map[header] = field;
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
  const map: Record<string, string> = {};
  for (const [header, field] of Object.entries(obj)) {
    if (header.startsWith('$') || header === '_comment') continue;
    if (typeof field !== 'string')
      throw new ColumnMapError(`--map-file ${file}: "${header}" must map to a field name`);
    map[header] = field;
  }
  return checkFields(map, `--map-file ${file}`);
}

/**
 * The sheet's columns with mapped headers renamed to their field (the cell keys stay, so rows are
 * read unchanged). A mapped header the sheet does not have is an error.
 */
export function applyColumnMap(columns: readonly SheetColumn[], map: ColumnMap, file: string): SheetColumn[] {
  const byKey = new Map<string, string>();
  for (const [header, field] of Object.entries(map)) byKey.set(headerKey(header), field);
  const found = new Set<string>();
  const out = columns.map((c) => {
    const field = byKey.get(c.key);
    if (field === undefined) return c;
    found.add(c.key);
    return { ...c, header: field };
  });
  const missing = Object.keys(map).filter((h) => !found.has(headerKey(h)));
  if (missing.length > 0) {
    throw new ColumnMapError(
      `${file}: the column map names ${missing.map((h) => `"${h}"`).join(', ')}, not in the header (${columns.map((c) => c.header).join(', ')})`,
    );
  }
  return out;
}
