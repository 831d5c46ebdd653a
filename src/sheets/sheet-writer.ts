/**
 * How a column's values are given to `SheetHandle.write` and how they are written:
 * - `text`: string (numbers/booleans are turned into text; a string[] is joined with `|`). Always a text cell
 *   (ids, SKUs, phones keep leading zeros and all digits). Formula-neutralised: in CSV every text starting
 *   with `=`, `+`, `-`, `@`, tab or CR (`neutralizeFormula`); in XLSX, where a text cell is never evaluated,
 *   only a formula risk (`neutralizeXlsxText`).
 * - `integer` / `number`: a finite number (integer for `integer`), written as a number.
 * - `money`: integer MINOR units (1999). XLSX: the number 19.99 with a `#,##0.00` format on the column
 *   (decimals from `currencyDecimals`); CSV: the exact text `19.99` (`formatMoney`, no float).
 * - `date` / `datetime`: a Date or an ISO 8601 string. Instants are converted to the wall-clock time in
 *   `timezone`; a date-only string ('2026-01-05') is taken as that calendar date. XLSX: a real date
 *   (`yyyy-mm-dd` / `yyyy-mm-dd hh:mm:ss`); CSV: '2026-01-05' / '2026-01-05 14:03:00'.
 * - `boolean`: a boolean. XLSX: a boolean cell; CSV: `true` / `false`.
 * `null`, `undefined` and '' are a blank cell in every type. A value of the wrong type throws a TypeError
 * naming the sheet, column and row (a programming error: exports build their rows in code).
 */
export type ColumnType = 'text' | 'integer' | 'number' | 'money' | 'date' | 'datetime' | 'boolean';

export interface ColumnSpec {
  /** Key of the value in the row objects given to `write`. */
  key: string;
  /** Header text (row 1). */
  header: string;
  type: ColumnType;
  /** XLSX column width in characters. Default: from the header and the type (8..60). */
  width?: number;
  /** XLSX: a cell note (comment) on the header cell, e.g. the API field the column holds. CSV: ignored. */
  note?: string;
}

export interface SheetSpec {
  /** Sheet name (XLSX: at most 31 characters, none of `[]:*?/\`). Also names the extra CSV files. */
  name: string;
  columns: ColumnSpec[];
  /**
   * XLSX: show this sheet's tab first, whatever the order sheets were added in. Sheets are still
   * written in the order added, so a small sheet computed at the end (a summary) can be added last
   * (no spooling of the large sheets before it) and still open first. CSV: ignored.
   */
  firstTab?: boolean;
  /**
   * XLSX: how the sheet prints: landscape, scaled to one page wide (and `onePage`: one page tall as
   * well), with `title` as the page header. CSV: ignored. Default: the spreadsheet's own.
   */
  print?: { landscape?: boolean; onePage?: boolean; title?: string };
}

export interface SheetWriterOptions {
  format: 'csv' | 'xlsx';
  /** Decimals of the store currency (2 for MYR, 0 for JPY, 3 for KWD): money formats and conversion. */
  currencyDecimals: number;
  /** IANA time zone in which dates are shown (the store's). Default 'UTC'. */
  timezone?: string;
  /**
   * CSV only: the file of each sheet. Default: the first sheet is `path`, the others
   * `<path without .csv>-<sheet name>.csv`. A path given to `addSheet` wins.
   */
  csvPathForSheet?: (sheetName: string, index: number) => string;
  /** CSV only: start each file with a UTF-8 BOM so Excel reads accented text as UTF-8. Default true. */
  csvBom?: boolean;
  /** CSV only: the field delimiter (one character, not a quote or line break). Default ','. */
  csvDelimiter?: string;
  /**
   * CSV only: write decimals with a comma (`12,90`) for spreadsheets set to a European locale. Use
   * with a delimiter other than ','. Default false.
   */
  decimalComma?: boolean;
  /**
   * CSV only: neutralise text that a spreadsheet would take for a formula (`'=…`, see
   * neutralizeFormula). Default true. Turn it off only for files another program imports as data
   * (an accounting import), where the apostrophe would become part of the value.
   */
  formulaGuard?: boolean;
  /**
   * XLSX: write the workbook (exceljs, the zip and its CRC-32, the spool files) in a worker thread,
   * the calling thread making only the rows' XML (xlsx-thread-writer.ts); the same bytes. Default
   * false. Without the worker's module beside this one (a bundler that left it out) it is ignored.
   */
  thread?: boolean;
}

export interface SheetHandle {
  /**
   * Append one row (values keyed by `ColumnSpec.key`; missing keys are blank). Returns a promise when
   * the writer wants the caller to wait (output backpressure, yielding to the event loop): always
   * `await` it, or memory grows with the output.
   */
  write(row: Readonly<Record<string, unknown>>): void | Promise<void>;
  /**
   * Finish this sheet (optional: `SheetWriter.close` ends every sheet). XLSX writes one sheet at a time:
   * rows of a later sheet written before the earlier ones end are spooled to a temporary file and
   * copied in when their turn comes, so ending a sheet early saves that copy.
   */
  end(): Promise<void>;
  /** Data rows written so far (the header not counted). */
  readonly rowsWritten: number;
  /** The file this sheet goes to (XLSX: the workbook). */
  readonly path: string;
}

export interface SheetWriter {
  /** Add a sheet (XLSX) or open its file (CSV: `path` overrides `csvPathForSheet`; ignored for XLSX). */
  addSheet(spec: SheetSpec, path?: string): Promise<SheetHandle>;
  /**
   * End every sheet and finish the file(s). The output is complete only when this resolves. Each
   * file is written to a temporary sibling and renamed over its target when complete, so a killed
   * or failed export never leaves a truncated file in place of the previous one.
   */
  close(): Promise<void>;
  /**
   * Give up (the export failed): discard the temporary files and leave the target files as they
   * were. Call it instead of `close()` on failure; `close()` would publish the partial rows.
   */
  abort(): Promise<void>;
}

/** Throws on a spec no writer can honour: no columns, or two columns with one key. */
export function assertSheetSpec(spec: SheetSpec): void {
  if (spec.columns.length === 0) throw new RangeError(`sheet ${spec.name} has no columns`);
  const keys = new Set<string>();
  for (const column of spec.columns) {
    if (keys.has(column.key))
      throw new RangeError(`sheet ${spec.name}: column key "${column.key}" appears twice`);
    keys.add(column.key);
  }
}

/** Default CSV file of a sheet: the first sheet is `path`, others `<base>-<name>.csv`. */
export function defaultCsvPath(path: string, sheetName: string, index: number): string {
  if (index === 0) return path;
  const base = path.replace(/\.csv$/i, '');
  const safe = sheetName.replace(/[^\w.-]+/g, '_');
  return `${base}-${safe}.csv`;
}

/** Where a cell is, for error messages (no closure per cell: this runs for every cell). */
export interface CellPlace {
  sheet: string;
  unit: 'row' | 'line';
  row: number;
}

/** A normalised cell: what both writers emit. Dates are wall-clock dates (their UTC fields are the local time). */
export type OutCell = string | number | boolean | Date | null;

/**
 * Turn a row's value into the cell to write for a column (shared by both writers). Money stays in minor
 * units here; each writer formats it. Throws TypeError on a value of the wrong type.
 */
export function normalizeCell(
  value: unknown,
  column: ColumnSpec,
  timezone: string,
  where: CellPlace,
): OutCell {
  if (value === null || value === undefined || value === '') return null;
  switch (column.type) {
    case 'text':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
        return typeof value === 'number' && Number.isInteger(value) ? value.toFixed(0) : String(value);
      }
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('|');
      if (value instanceof Date) return value.toISOString();
      throw badValue(value, column, where, 'a string');
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      throw badValue(value, column, where, 'a safe integer');
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      throw badValue(value, column, where, 'a finite number');
    case 'money':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      throw badValue(value, column, where, 'integer minor units');
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw badValue(value, column, where, 'a boolean');
    case 'date':
    case 'datetime': {
      const local = toLocalDate(value, column.type, timezone);
      if (local === null) throw badValue(value, column, where, 'a Date or an ISO 8601 string');
      return local;
    }
  }
}

function badValue(value: unknown, column: ColumnSpec, where: CellPlace, expected: string): TypeError {
  return new TypeError(
    `sheet ${where.sheet} ${where.unit} ${where.row}: column "${column.key}" (${column.type}) expects ${expected}, got ${describe(value)}`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Date)
    return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  return typeof value === 'object'
    ? Object.prototype.toString.call(value)
    : `${typeof value} ${String(value)}`;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A Date or ISO string → a Date whose UTC fields are the wall-clock time in `timezone` (what a
 * spreadsheet shows; exceljs writes a Date's UTC fields). `date` columns drop the time of day.
 */
export function toLocalDate(value: unknown, type: 'date' | 'datetime', timezone: string): Date | null {
  let instant: number;
  if (typeof value === 'string') {
    const m = DATE_ONLY.exec(value);
    if (m) return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
    instant = Date.parse(value);
  } else if (value instanceof Date) {
    instant = value.getTime();
  } else {
    return null;
  }
  if (Number.isNaN(instant)) return null;
  const local = instant + zoneOffsetMs(instant, timezone);
  return new Date(type === 'date' ? local - mod(local, 86_400_000) : local);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * Per zone, offsets by span of SPAN_MS (NaN: the offset changes within that span), and by quarter
 * hour in the spans where it changes. Zone transitions fall on quarter hours and months apart, so an
 * offset equal at the first and the last quarter of a span holds for the whole span. Exports ask for
 * every order's dates: two Intl calls per 6 hours of orders instead of one per quarter hour.
 */
const zoneOffsets = new Map<string, { spans: Map<number, number>; quarters: Map<number, number> }>();
const QUARTER_MS = 15 * 60_000;
const SPAN_MS = 6 * 3_600_000;
const CACHE_MAX = 50_000;

/** Offset (ms) of `timezone` from UTC at `instant`. */
export function zoneOffsetMs(instant: number, timezone: string): number {
  if (timezone === 'UTC' || timezone === 'Etc/UTC') return 0;
  let zone = zoneOffsets.get(timezone);
  if (zone === undefined) {
    zone = { spans: new Map(), quarters: new Map() };
    zoneOffsets.set(timezone, zone);
  }
  const span = Math.floor(instant / SPAN_MS);
  let offset = zone.spans.get(span);
  if (offset === undefined) {
    const first = offsetAt(span * SPAN_MS, timezone);
    offset = first === offsetAt((span + 1) * SPAN_MS - QUARTER_MS, timezone) ? first : Number.NaN;
    if (zone.spans.size > CACHE_MAX) zone.spans.clear();
    zone.spans.set(span, offset);
  }
  if (!Number.isNaN(offset)) return offset;
  const quarter = Math.floor(instant / QUARTER_MS);
  let inQuarter = zone.quarters.get(quarter);
  if (inQuarter === undefined) {
    inQuarter = offsetAt(quarter * QUARTER_MS, timezone);
    if (zone.quarters.size > CACHE_MAX) zone.quarters.clear();
    zone.quarters.set(quarter, inQuarter);
  }
  return inQuarter;
}

/** Offset (ms) of `timezone` from UTC at `at`, from Intl (the slow part). */
function offsetAt(at: number, timezone: string): number {
  let fmt = formatters.get(timezone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, fmt);
  }
  const f: Record<string, number> = {};
  for (const p of fmt.formatToParts(at)) if (p.type !== 'literal') f[p.type] = Number(p.value);
  const wall = Date.UTC(
    f.year ?? 1970,
    (f.month ?? 1) - 1,
    f.day ?? 1,
    f.hour ?? 0,
    f.minute ?? 0,
    f.second ?? 0,
  );
  return wall - at;
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** A wall-clock Date (UTC fields = local time) as CSV text: '2026-01-05' or '2026-01-05 14:03:00'. */
export function formatLocalDate(local: Date, type: 'date' | 'datetime'): string {
  const iso = local.toISOString();
  return type === 'date' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
