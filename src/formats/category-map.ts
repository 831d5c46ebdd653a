import Papa from 'papaparse';
import { categoryKey } from '../plan/category-plan.js';
import { readRegularFile } from '../sheets/read-regular-file.js';
import { ColumnMapError } from './column-map.js';

/** `--category-map`: source category (compared by categoryKey) → store category ids. */
export type CategoryMap = ReadonlyMap<string, readonly string[]>;

function ids(value: unknown): string[] | undefined {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split('|') : undefined;
  if (list === undefined || !list.every((v) => typeof v === 'string')) return undefined;
  const out = (list as string[]).map((v) => v.trim()).filter((v) => v !== '');
  return out.length === 0 ? undefined : [...new Set(out)];
}

/**
 * Reads `--category-map FILE`: JSON `{"categories": {"Clothing > Hoodies": "cat_apparel", "Music":
 * ["cat_music", "cat_sale"]}}` (or the bare object), or a CSV of two columns, the source category
 * and its store category id(s) (several joined with `|`), under a header row. A WooCommerce path
 * (`Clothing > Hoodies`) is matched whole, else by its last name. Throws ColumnMapError (exit 2)
 * naming the file and the entry.
 */
export function readCategoryMapFile(file: string): CategoryMap {
  const text = readRegularFile(file)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const where = `--category-map ${file}`;
  const entries: [string, unknown][] = [];
  if (/^\s*[{[]/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ColumnMapError(`${where}: ${(error as Error).message}`);
    }
    const obj =
      typeof parsed === 'object' && parsed !== null && 'categories' in parsed
        ? (parsed as { categories: unknown }).categories
        : parsed;
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
      throw new ColumnMapError(`${where}: expected {"categories": {"source category": "category id", …}}`);
    entries.push(...Object.entries(obj));
  } else {
    const rows = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' }).data;
    for (const [i, row] of rows.slice(1).entries()) {
      if (row.length < 2)
        throw new ColumnMapError(`${where}: row ${i + 2} needs the source category and its category id`);
      entries.push([row[0] ?? '', row[1]]);
    }
  }
  const map = new Map<string, string[]>();
  for (const [name, value] of entries) {
    const list = ids(value);
    if (name.trim() === '' || list === undefined)
      throw new ColumnMapError(
        `${where}: "${name}" needs a category id (a string, or a list of them), not ${JSON.stringify(value)}`,
      );
    const key = categoryKey(name);
    const seen = map.get(key);
    if (seen !== undefined && seen.join('|') !== list.join('|'))
      throw new ColumnMapError(
        `${where}: "${name}" is mapped twice, to ${seen.join('|')} and to ${list.join('|')}`,
      );
    map.set(key, list);
  }
  if (map.size === 0) throw new ColumnMapError(`${where}: the map is empty`);
  return map;
}
