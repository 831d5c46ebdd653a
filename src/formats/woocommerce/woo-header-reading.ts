import { cellText } from '../../sheets/cell-result.js';
import type { SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { WOO_EXPORTER_HEADERS, WOO_FIXED_COLUMNS, WOO_HEADER_TRANSLATIONS } from './woo-localized-headers.js';

/**
 * A header read as WooCommerce's product exporter wrote it, in whatever language the store's admin
 * used: each recognised column gets the English header as its key (`regular price`,
 * `attribute 1 value(s)`, `weight (kg)`), so the converter reads every language alike, while its
 * header and letter stay the file's own (messages name the user's columns).
 */
export interface WooHeaderReading {
  /** The file's columns; recognised ones keyed by their English header, lower-case. */
  columns: SheetColumn[];
  /** The file's cell key → the English key, for every recognised column whose key differs. */
  rename: ReadonlyMap<string, string>;
  /** The language whose headers matched (`Russian`); undefined for English or none. */
  language?: string;
  /** Headers recognised by their place in the exporter's fixed order or by their values. */
  byOrder: string[];
  /** False when the rows looked at hold other values than the exporter's in the Type column. */
  typeValues: boolean;
}

const ENGLISH = 'en';

/** Case, spacing and the spaces some translations put before `?` or inside `( )` do not count. */
function normalize(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*([?:()])\s*/g, '$1')
    .trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Dictionary {
  /** Normalised header → [template index, locale] for every locale that writes it. */
  exact: Map<string, [number, string][]>;
  /** The repeated headers (`Attribute %d name`) as patterns. */
  patterns: { re: RegExp; template: number; locale: string }[];
}

let dictionary: Dictionary | undefined;

/** Every language's headers, built once. */
function headerDictionary(): Dictionary {
  if (dictionary !== undefined) return dictionary;
  const exact = new Map<string, [number, string][]>();
  const patterns: Dictionary['patterns'] = [];
  const add = (locale: string, headers: readonly string[]) => {
    headers.forEach((header, template) => {
      if (header === '') return;
      const norm = normalize(header);
      if (/%[sd]/.test(header)) {
        const source = escapeRegExp(norm).replace(/%s/g, '(.+?)').replace(/%d/g, '(\\d+)');
        patterns.push({ re: new RegExp(`^${source}$`), template, locale });
        return;
      }
      const list = exact.get(norm);
      if (list === undefined) exact.set(norm, [[template, locale]]);
      else list.push([template, locale]);
    });
  };
  add(ENGLISH, WOO_EXPORTER_HEADERS);
  for (const [locale, t] of Object.entries(WOO_HEADER_TRANSLATIONS)) add(locale, t.headers);
  dictionary = { exact, patterns };
  return dictionary;
}

/** The English header of template `index` with its placeholder filled (`Weight (kg)`). */
function english(index: number, value: string | undefined): string {
  const template = WOO_EXPORTER_HEADERS[index] as string;
  return value === undefined ? template : template.replace(/%[sd]/, value);
}

interface Candidate {
  template: number;
  locale: string;
  value?: string;
}

function candidates(header: string): Candidate[] {
  const dict = headerDictionary();
  const norm = normalize(header);
  const out: Candidate[] = (dict.exact.get(norm) ?? []).map(([template, locale]) => ({ template, locale }));
  for (const p of dict.patterns) {
    const m = p.re.exec(norm);
    if (m === null) continue;
    // The placeholder's text as the file writes it (a unit keeps its case: `kg`, `lbs`).
    const value = originalCase(header, m[1] ?? '');
    out.push({ template: p.template, locale: p.locale, value });
  }
  return out;
}

/** `m` (found in the lower-cased header) as the header writes it. */
function originalCase(header: string, m: string): string {
  const at = header.toLowerCase().lastIndexOf(m);
  return at < 0 ? m : header.slice(at, at + m.length);
}

const TYPE_VALUE =
  /^(simple|variable|variation|grouped|external)(\s*,\s*(simple|variable|variation|grouped|external|virtual|downloadable))*$/i;
const PUBLISHED_VALUE = /^(1|0|-1)$/;
const PARENT_VALUE = /^id:\d+$/i;
const INTEGER_VALUE = /^\d+$/;

/** Whether every non-blank sample value of a column matches (and at least one is there). */
function allValues(sample: readonly SheetRow[], column: SheetColumn, re: RegExp): boolean {
  let seen = 0;
  for (const row of sample) {
    const v = cellText(row.cells[column.key]).trim();
    if (v === '') continue;
    if (!re.test(v)) return false;
    seen++;
  }
  return seen > 0;
}

const T = (header: (typeof WOO_EXPORTER_HEADERS)[number]) => WOO_EXPORTER_HEADERS.indexOf(header);

/**
 * Reads a header as a WooCommerce product export in any language: each column by its header in
 * English or in one of the exporter's translations (WOO_HEADER_TRANSLATIONS, the language that
 * matches most preferred); then, because the exporter writes its columns in a fixed order, a column
 * between two recognised ones whose distance is the same in that order is the column of that place
 * (a header translated differently in an older version is still read); and from `sample` rows, a
 * column of `simple`/`variable`/`variation` values after an integer first column is Type, the first
 * column after it holding only 1/0/-1 is Published, and one of `id:NN` values is Parent.
 */
export function readWooHeader(
  columns: readonly SheetColumn[],
  sample: readonly SheetRow[] = [],
): WooHeaderReading {
  const found = columns.map((c) => candidates(c.header));
  const votes = new Map<string, number>();
  for (const list of found) {
    for (const locale of new Set(list.map((c) => c.locale))) votes.set(locale, (votes.get(locale) ?? 0) + 1);
  }
  // English ties win (many headers are the same in English and in other languages).
  let best = ENGLISH;
  for (const [locale, n] of votes) if (n > (votes.get(best) ?? 0)) best = locale;

  const keys: (string | undefined)[] = columns.map(() => undefined);
  const fixedAt: (number | undefined)[] = columns.map(() => undefined);
  const usedFixed = new Set<number>();
  found.forEach((list, i) => {
    const pick = list.find((c) => c.locale === best) ?? list[0];
    if (pick === undefined) return;
    if (pick.template < WOO_FIXED_COLUMNS) {
      if (usedFixed.has(pick.template)) return;
      usedFixed.add(pick.template);
      fixedAt[i] = pick.template;
    }
    keys[i] = english(pick.template, pick.value).toLowerCase();
  });

  const byOrder: string[] = [];
  const place = (i: number, template: number) => {
    if (keys[i] !== undefined || usedFixed.has(template)) return;
    usedFixed.add(template);
    fixedAt[i] = template;
    const column = columns[i] as SheetColumn;
    keys[i] = english(template, unitOf(column)).toLowerCase();
    byOrder.push(column.header);
  };

  // The values say what the headers could not: Type (and ID before it), Published, Parent.
  if (sample.length > 0) {
    const typeAt = columns.findIndex((c, i) => keys[i] === undefined && allValues(sample, c, TYPE_VALUE));
    if (typeAt >= 0) {
      place(typeAt, T('Type'));
      if (typeAt === 1 && allValues(sample, columns[0] as SheetColumn, INTEGER_VALUE)) place(0, T('ID'));
      const publishedAt = columns.findIndex(
        (c, i) => i > typeAt && keys[i] === undefined && allValues(sample, c, PUBLISHED_VALUE),
      );
      if (publishedAt >= 0) place(publishedAt, T('Published'));
    }
    const parentAt = columns.findIndex((c, i) => keys[i] === undefined && allValues(sample, c, PARENT_VALUE));
    if (parentAt >= 0) place(parentAt, T('Parent'));
  }

  // The fixed order: between two recognised columns as far apart as in the exporter's order (the
  // start of the header and the first repeated column, or its end, bound the first and last runs).
  const firstRepeated = keys.findIndex((k, i) => k !== undefined && fixedAt[i] === undefined);
  const anchors: [number, number][] = [];
  fixedAt.forEach((t, i) => {
    if (t !== undefined && (firstRepeated < 0 || i < firstRepeated)) anchors.push([i, t]);
  });
  if (anchors.length >= 2) {
    anchors.unshift([-1, -1]);
    anchors.push([firstRepeated < 0 ? columns.length : firstRepeated, WOO_FIXED_COLUMNS]);
    for (let a = 1; a < anchors.length; a++) {
      const [i1, t1] = anchors[a - 1] as [number, number];
      const [i2, t2] = anchors[a] as [number, number];
      if (i2 - i1 !== t2 - t1 || i2 - i1 < 2) continue;
      for (let k = 1; k < i2 - i1; k++) place(i1 + k, t1 + k);
    }
  }

  const rename = new Map<string, string>();
  const taken = new Set(keys.filter((k): k is string => k !== undefined));
  const out = columns.map((c, i) => {
    let key = keys[i];
    // An unrecognised column keeps its own key, unless that is a recognised column's English key.
    if (key === undefined) key = taken.has(c.key) ? `#${c.key}` : c.key;
    if (key !== c.key) rename.set(c.key, key);
    return { ...c, key };
  });
  // A Type column whose values are not the exporter's (PHYSICAL, DIGITAL…) is not its Type.
  const typeAt = keys.indexOf('type');
  const typeValues =
    typeAt < 0 ||
    sample.every((row) => {
      const v = cellText(row.cells[(columns[typeAt] as SheetColumn).key]).trim();
      return v === '' || TYPE_VALUE.test(v);
    });
  const reading: WooHeaderReading = { columns: out, rename, byOrder, typeValues };
  const language = best === ENGLISH ? undefined : WOO_HEADER_TRANSLATIONS[best]?.language;
  if (language !== undefined) reading.language = language;
  return reading;
}

/** The unit in a weight or dimension header placed by order (`Вес (kg)` → `kg`), if it has one. */
function unitOf(column: SheetColumn): string | undefined {
  return /\(([^)]+)\)\s*$/.exec(column.header)?.[1]?.trim();
}
