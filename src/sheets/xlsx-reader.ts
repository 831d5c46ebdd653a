import { pipeline, Transform } from 'node:stream';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { SheetError } from './sheet-error.js';
import { DEFAULT_SHEET_LIMITS } from './sheet-limits.js';
import type { SheetLimits } from './sheet-limits.js';
import { columnLetter } from './sheet-row.js';
import type { CellValue, SheetRow, SheetWarning } from './sheet-row.js';
import { SheetTable } from './sheet-table.js';
import { ZipDirectory, ZipLimitError } from './zip-directory.js';
import type { PartLimits } from './zip-directory.js';
import { formatBytes } from './sheet-limits.js';
import { visibleCut } from './visible-text.js';

/** A sheet of a workbook, in workbook order. */
export interface WorkbookSheet {
  name: string;
  state: 'visible' | 'hidden' | 'veryHidden';
  /** Path of the sheet's XML inside the ZIP, e.g. `xl/worksheets/sheet1.xml`. */
  part: string;
}

export interface WorkbookIndex {
  sheets: WorkbookSheet[];
  /** The workbook uses the 1904 date system (old Excel for Mac, some LibreOffice files). */
  date1904: boolean;
}

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];
const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function decodeXml(text: string): string {
  return text.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g, (_m, hex, dec, name) => {
    if (hex) return String.fromCodePoint(parseInt(hex as string, 16));
    if (dec) return String.fromCodePoint(parseInt(dec as string, 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[name as 'amp'];
  });
}

function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out.set(m[1] as string, decodeXml(m[2] ?? m[3] ?? ''));
  }
  return out;
}

function resolvePart(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/');
  parts.pop();
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

async function readHead(file: string, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function isEncryptedPackage(file: string): Promise<boolean> {
  // An encrypted OOXML package is a CFB container holding an "EncryptionInfo" stream (UTF-16LE name).
  const head = await readHead(file, 4 * 1024 * 1024);
  return head.includes(Buffer.from('EncryptionInfo', 'utf16le'));
}

/** Refuses files that are not XLSX with a message saying what they are and what to do. */
async function assertXlsxSignature(file: string): Promise<void> {
  const head = await readHead(file, 8);
  if (head.length === 0) {
    throw new SheetError('empty_file', `${file} is empty (0 bytes). Export the workbook again.`, { file });
  }
  if (CFB_SIGNATURE.every((b, i) => head[i] === b)) {
    if (await isEncryptedPackage(file)) {
      throw new SheetError(
        'encrypted_xlsx',
        `${file} is protected with a password, so it cannot be read. Open it in Excel, remove the password (File › Info › Protect Workbook › Encrypt with Password, clear it) and save it again.`,
        { file },
      );
    }
    throw new SheetError(
      'xls_not_supported',
      `${file} is an old-style Excel 97-2003 workbook (.xls). Open it and save it as "Excel Workbook (.xlsx)".`,
      { file },
    );
  }
  if (!ZIP_SIGNATURE.every((b, i) => head[i] === b)) {
    const text = head.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b !== 127));
    throw new SheetError(
      'not_xlsx',
      text
        ? `${file} is not an XLSX workbook: it looks like a text file. If it is a CSV, rename it to .csv; if it came from a spreadsheet program, save it again as "Excel Workbook (.xlsx)" or CSV.`
        : `${file} is not an XLSX workbook (it is not a ZIP file). Open it in a spreadsheet program and save it as "Excel Workbook (.xlsx)".`,
      { file },
    );
  }
}

/**
 * Reads a workbook's sheet list and date system from its ZIP directory, without streaming the
 * sheets: cheap even for huge files.
 */
export async function readWorkbookIndex(
  file: string,
  limits: Pick<SheetLimits, 'maxPartBytes' | 'maxInflateRatio'> = DEFAULT_SHEET_LIMITS,
): Promise<WorkbookIndex> {
  await assertXlsxSignature(file);
  let zip: ZipDirectory;
  try {
    zip = await ZipDirectory.open(file);
  } catch (error) {
    throw new SheetError(
      'corrupt_xlsx',
      `${file} is damaged: it is not a complete ZIP file (${(error as Error).message}). Download or export it again.`,
      { file, cause: error },
    );
  }
  try {
    const workbookPart = 'xl/workbook.xml';
    const partLimits = { maxBytes: limits.maxPartBytes, maxRatio: limits.maxInflateRatio };
    const workbookXml = (await zip.read(workbookPart, partLimits))?.toString('utf8');
    const relsXml = (await zip.read('xl/_rels/workbook.xml.rels', partLimits))?.toString('utf8');
    if (workbookXml === undefined) {
      throw new SheetError(
        'not_xlsx',
        `${file} is a ZIP file but not an XLSX workbook (it has no xl/workbook.xml). Save it from a spreadsheet program as "Excel Workbook (.xlsx)".`,
        { file },
      );
    }
    const rels = new Map<string, { target: string; type: string }>();
    for (const m of (relsXml ?? '').matchAll(/<(?:\w+:)?Relationship\s[^>]*>/g)) {
      const a = attributes(m[0]);
      const id = a.get('Id');
      if (id !== undefined) rels.set(id, { target: a.get('Target') ?? '', type: a.get('Type') ?? '' });
    }
    const pr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(workbookXml);
    const date1904Attr = pr ? attributes(pr[0]).get('date1904') : undefined;
    const date1904 = date1904Attr === '1' || date1904Attr === 'true';
    const sheets: WorkbookSheet[] = [];
    for (const m of workbookXml.matchAll(/<(?:\w+:)?sheet\s[^>]*>/g)) {
      const a = attributes(m[0]);
      let relId: string | undefined;
      for (const [key, value] of a) if (key.endsWith(':id')) relId = value;
      const rel = relId === undefined ? undefined : rels.get(relId);
      let part: string;
      if (rel) {
        if (!rel.type.endsWith('/worksheet')) continue; // chart sheets, dialog sheets…
        part = resolvePart(workbookPart, rel.target);
      } else {
        // Damaged or unusual relationships: fall back to the conventional part name, if present.
        part = `xl/worksheets/sheet${a.get('sheetId') ?? ''}.xml`;
        if (!zip.entries.has(part)) part = `xl/worksheets/sheet${sheets.length + 1}.xml`;
        if (!zip.entries.has(part)) continue;
      }
      const state = a.get('state');
      sheets.push({
        name: a.get('name') ?? '',
        state: state === 'hidden' || state === 'veryHidden' ? state : 'visible',
        part,
      });
    }
    return { sheets, date1904 };
  } catch (error) {
    if (error instanceof SheetError) throw error;
    if (error instanceof ZipLimitError) throw partTooLarge(file, undefined, error);
    throw new SheetError(
      'corrupt_xlsx',
      `${file} is damaged (${(error as Error).message}). Export it again.`,
      {
        file,
        cause: error,
      },
    );
  } finally {
    await zip.close();
  }
}

/** The sheet to read: by name (case-insensitive, trimmed), else the first visible worksheet. */
export function pickSheet(index: WorkbookIndex, name: string | undefined): WorkbookSheet | undefined {
  if (name === undefined) return index.sheets.find((s) => s.state === 'visible') ?? index.sheets[0];
  const wanted = name.trim().toLowerCase();
  return index.sheets.find((s) => s.name.trim().toLowerCase() === wanted);
}

// --- exceljs internals used here (exceljs 4.4 lib/stream/xlsx/*.js; its .d.ts types them as any) ---
interface StreamEvent {
  eventType: string;
  value: unknown;
}
interface ExcelCellLike {
  /** exceljs ValueType; 6 = formula. */
  type: number;
  value: unknown;
  /** A formula's cached result (cell.value drops falsy results such as 0 and ''). */
  result?: unknown;
  numFmt?: string;
}
const FORMULA_TYPE = 6;
interface ExcelRowLike {
  number: number;
  eachCell(iteratee: (cell: ExcelCellLike, col: number) => void): void;
}
interface WorksheetReaderLike {
  parse(): AsyncIterable<StreamEvent[]>;
}
interface WorkbookReaderInternals {
  properties?: { model?: { date1904?: boolean } };
  model?: { sheets?: unknown[] };
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown, void, undefined>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(iterator: Readable, sheetNo: string): Generator<StreamEvent>;
}

const MS_PER_DAY = 86_400_000;

/** A number format that shows a date or time (same rule as exceljs: y m d h s b outside quotes and brackets). */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhMsb]/.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

export interface XlsxReaderOptions {
  file: string;
  sheet: WorkbookSheet;
  date1904: boolean;
  limits: SheetLimits;
  warnings: SheetWarning[];
}

/**
 * Streaming XLSX reader (bounded memory): exceljs's streaming reader parses the XML (shared
 * strings, styles, then the sheet's rows as a stream), and our ZipDirectory feeds it the parts by
 * random access. The sheet is chosen beforehand from the ZIP directory (readWorkbookIndex), so a
 * missing sheet fails at once, and only the chosen sheet is inflated.
 *
 * Values: shared/inline strings and rich text as strings (`_xHHHH_` escapes decoded), numbers,
 * booleans, dates as `Date` (UTC fields = the sheet's wall-clock date and time; the workbook's
 * 1900/1904 system applied, also to formula results shown as dates), formulas as their cached
 * value, hyperlinks as their text. Error values (#N/A, #DIV/0!…) become null with a warning
 * naming the cell: importing the text "#N/A" into a field would be worse than leaving it alone.
 * Merged cells: only the top-left cell has the value (the others are blank).
 */
export class XlsxReader {
  readonly table: SheetTable;
  private readonly options: XlsxReaderOptions;
  private stream: Readable | null = null;
  private lastRowNumber = 0;

  constructor(options: XlsxReaderOptions) {
    this.options = options;
    this.table = new SheetTable({
      file: options.file,
      sheet: options.sheet.name,
      limits: options.limits,
      warnings: options.warnings,
      blank: null,
    });
  }

  close(): void {
    this.stream?.destroy();
    this.stream = null;
  }

  async *batches(): AsyncGenerator<SheetRow[], void, undefined> {
    const { file, sheet, date1904 } = this.options;
    // exceljs's and zlib's own messages ("reading 'length'", "Invalid Address: ANaN") mean nothing
    // to a user: they stay in `cause`; the message names the file, the sheet and the last row read.
    const fail = (error: unknown): SheetError =>
      error instanceof SheetError
        ? error
        : error instanceof ZipLimitError
          ? partTooLarge(file, sheet.name, error)
          : damagedSheet(file, sheet.name, this.lastRowNumber, error);
    let zip: ZipDirectory;
    try {
      zip = await ZipDirectory.open(file);
    } catch (error) {
      throw fail(error);
    }
    try {
      // exceljs's WorkbookReader is used for its XML handling only (shared strings, styles, sheet
      // rows); the parts are fed from our random-access ZIP reader, dependencies first.
      const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
        worksheets: 'emit',
        sharedStrings: 'cache',
        hyperlinks: 'ignore',
        styles: 'cache', // number formats: needed to tell dates from numbers
        entries: 'ignore',
      }) as unknown as WorkbookReaderInternals;
      // exceljs reads the 1904 flag only when written "1" (LibreOffice writes "true"): use the index's.
      reader.properties = { model: { date1904 } };
      reader.model = { sheets: [] };
      let worksheet: WorksheetReaderLike | undefined;
      try {
        const { limits } = this.options;
        const bounded = (maxBytes: number): PartLimits => ({ maxBytes, maxRatio: limits.maxInflateRatio });
        // Longest XML of one cell or shared string: its text (at most maxCellChars characters, up
        // to 8 bytes each as an entity such as &#65535;; 10 counted), a formula and attributes.
        const maxCellXml = limits.maxCellChars * 10 + 64 * 1024;
        const sharedStrings = await zip.streamBounded(
          'xl/sharedStrings.xml',
          bounded(limits.maxSharedStringsBytes),
        );
        if (sharedStrings) {
          const guarded = pipeline(
            sharedStrings,
            sharedStringsGuard(maxCellXml, (index) =>
              cellTooLong(
                file,
                sheet.name,
                `shared string ${index} (xl/sharedStrings.xml)`,
                maxCellXml,
                limits,
              ),
            ),
            () => {},
          );
          for await (const _ of reader._parseSharedStrings(guarded)) {
            // 'cache' mode yields nothing; the loop drives the parser.
          }
        }
        const styles = await zip.streamBounded('xl/styles.xml', bounded(limits.maxPartBytes));
        if (styles) await reader._parseStyles(styles);
        const raw = await zip.streamBounded(sheet.part, bounded(limits.maxSheetBytes));
        // exceljs builds a whole row before handing it over: a row of millions of cells, or a
        // cell of millions of characters, is refused from the XML as it streams, before it is built.
        const data = raw
          ? pipeline(
              raw,
              sheetXmlGuard(limits.maxColumns, maxCellXml, {
                tooWide: (row, n) => this.table.tooWide(row, n),
                badCell: (row, index, ref) => {
                  throw badCellAddress(file, sheet.name, row, index, ref);
                },
                badRow: (after) => {
                  throw new SheetError(
                    'corrupt_xlsx',
                    `${file}: sheet "${sheet.name}", ${after === 0 ? 'the first row' : `the row after row ${after}`} has no row number (its r attribute is missing). The workbook was not written by a spreadsheet program: open it in Excel or LibreOffice and save it again.`,
                    { file, sheet: sheet.name, rowNumber: after + 1 },
                  );
                },
                cellTooLong: (row, index, ref) =>
                  cellTooLong(
                    file,
                    sheet.name,
                    `cell ${ref !== undefined && isCellRef(ref) ? ref : `${index} of row ${row}`}`,
                    maxCellXml,
                    limits,
                    row,
                  ),
                cutShort: (row) =>
                  new SheetError(
                    'corrupt_xlsx',
                    `${file}: sheet "${sheet.name}" ends in the middle of its data (after row ${row}): the workbook is cut short. Export it again.`,
                    { file, sheet: sheet.name, rowNumber: row },
                  ),
              }),
              () => {},
            )
          : null;
        if (!data) {
          throw new SheetError(
            'corrupt_xlsx',
            `${file}: the data of sheet "${sheet.name}" (${sheet.part}) is missing from the file. Open the workbook and save it again.`,
            { file, sheet: sheet.name },
          );
        }
        this.stream = data;
        for (const event of reader._parseWorksheet(data, '1')) worksheet = event.value as WorksheetReaderLike;
      } catch (error) {
        throw fail(error);
      }
      if (!worksheet) throw fail(new Error('no worksheet reader'));
      const events = worksheet.parse()[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<StreamEvent[]>;
        try {
          next = await events.next();
        } catch (error) {
          throw fail(error);
        }
        if (next.done) break;
        const rows: SheetRow[] = [];
        for (const e of next.value) {
          if (e.eventType !== 'row') continue;
          const row = this.convertRow(e.value as ExcelRowLike);
          if (row !== null) rows.push(row);
        }
        if (rows.length > 0) yield rows;
      }
      this.table.finish();
    } finally {
      this.close();
      await zip.close();
    }
  }

  private convertRow(row: ExcelRowLike): SheetRow | null {
    const values: CellValue[] = [];
    // A row without its r attribute (some generators omit it) follows the previous one.
    const rowNumber = Number.isFinite(row.number) && row.number > 0 ? row.number : this.lastRowNumber + 1;
    this.lastRowNumber = rowNumber;
    row.eachCell((cell, col) => {
      while (values.length < col - 1) values.push(null);
      const value = cell.type === FORMULA_TYPE ? { formula: '', result: cell.result } : cell.value;
      values.push(this.convertCell(value, cell.numFmt, rowNumber, col));
    });
    return this.table.accept(values, rowNumber);
  }

  private convertCell(value: unknown, numFmt: string | undefined, rowNumber: number, col: number): CellValue {
    if (value === null || value === undefined) return null;
    switch (typeof value) {
      case 'string':
        return value.includes('_x') ? decodeEscapes(value) : value;
      case 'number':
        return Number.isFinite(value) ? value : this.errorCell('#NUM!', rowNumber, col);
      case 'boolean':
        return value;
      case 'object':
        break;
      default:
        return null;
    }
    if (value instanceof Date) {
      return Number.isNaN(value.getTime()) ? this.errorCell('a date out of range', rowNumber, col) : value;
    }
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) {
      let text = '';
      for (const run of v.richText as Array<{ text?: unknown }>)
        if (typeof run.text === 'string') text += run.text;
      return text.includes('_x') ? decodeEscapes(text) : text;
    }
    if ('error' in v) return this.errorCell(String(v.error), rowNumber, col);
    if ('formula' in v || 'sharedFormula' in v) {
      const result = v.result;
      if (result === undefined || result === null) {
        this.table.warn(
          'formula_without_value',
          `Cell ${columnLetter(col - 1)}${rowNumber} holds a formula without a saved result: it is read as blank. Open the workbook in Excel or LibreOffice and save it so the results are stored.`,
          rowNumber,
        );
        return null;
      }
      if (typeof result === 'number') {
        // A formula's result is a number for exceljs, even when the cell shows a date.
        if (!Number.isFinite(result)) return this.errorCell('an error', rowNumber, col);
        if (isDateFormat(numFmt)) {
          const date = excelSerialToDate(result, this.options.date1904);
          return Number.isNaN(date.getTime()) ? this.errorCell('a date out of range', rowNumber, col) : date;
        }
        return result;
      }
      return this.convertCell(result, numFmt, rowNumber, col);
    }
    if ('text' in v) return this.convertCell(v.text, numFmt, rowNumber, col); // hyperlink
    return null;
  }

  private errorCell(error: string, rowNumber: number, col: number): null {
    this.table.warn(
      'cell_error',
      `Cell ${columnLetter(col - 1)}${rowNumber} shows ${error}: it is read as blank. Fix the formula or type the value.`,
      rowNumber,
    );
    return null;
  }
}

/** Excel serial day number → Date (UTC fields = wall-clock), in the 1900 or 1904 system. */
export function excelSerialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * MS_PER_DAY));
}

/** Decodes OOXML `_xHHHH_` escapes (`_x000D_` is a carriage return, `_x005F_` an underscore). */
function decodeEscapes(text: string): string {
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Why a sheet's XML could not be read, in words; the library's message stays in `cause`. */
function damagedSheet(file: string, sheet: string, lastRow: number, error: unknown): SheetError {
  const code = (error as { code?: unknown } | null)?.code;
  const what =
    typeof code === 'string' && code.startsWith('Z_')
      ? 'its compressed data is damaged'
      : 'its content is not valid spreadsheet XML';
  const where = lastRow > 0 ? ` after row ${lastRow}` : '';
  return new SheetError(
    'corrupt_xlsx',
    `${file}: sheet "${sheet}" could not be read${where}: ${what}. The workbook is damaged: open it in Excel or LibreOffice and save it again, or export it again.`,
    { file, sheet, ...(lastRow > 0 ? { rowNumber: lastRow + 1 } : {}), cause: error },
  );
}

/** What each XLSX part is, for messages. */
function partDescription(part: string): string {
  if (part === 'xl/sharedStrings.xml') return ' (the shared strings)';
  if (part === 'xl/styles.xml') return ' (the styles)';
  if (/^xl\/worksheets\//.test(part)) return ' (the sheet data)';
  return '';
}

/** A part refused by a size or ratio limit: named, with the limit, and what to do. */
function partTooLarge(file: string, sheet: string | undefined, error: ZipLimitError): SheetError {
  const why =
    error.limit === 'ratio'
      ? 'compressed far more than spreadsheet data ever is (a zip bomb)'
      : 'too large to read safely';
  return new SheetError(
    'xlsx_part_too_large',
    `${file}: its part ${error.part}${partDescription(error.part)} ${error.what}: ${why}. The workbook is refused before it exhausts memory; if it is genuine, save it as CSV.`,
    { file, ...(sheet === undefined ? {} : { sheet }), cause: error },
  );
}

/** A cell (or shared string) whose XML is longer than any cell within the character limit. */
function cellTooLong(
  file: string,
  sheet: string,
  what: string,
  maxXml: number,
  limits: SheetLimits,
  rowNumber?: number,
): SheetError {
  return new SheetError(
    'cell_too_long',
    `${file}: sheet "${sheet}", ${what} runs for more than ${formatBytes(maxXml)} of XML: longer than the limit of ${limits.maxCellChars.toLocaleString('en-US')} characters per cell (Excel's own). Shorten it, or check that the workbook was written by a spreadsheet program.`,
    { file, sheet, ...(rowNumber === undefined ? {} : { rowNumber }) },
  );
}

function badCellAddress(
  file: string,
  sheet: string,
  row: number,
  index: number,
  ref: string | undefined,
): SheetError {
  const cell = `cell ${index} of row ${row}`;
  const problem =
    ref === undefined
      ? `${cell} has no address (its r attribute is missing), so its column is unknown`
      : `${cell} has the address "${visibleCut(ref, 40)}", which is not a cell reference (A1 to XFD1048576)`;
  return new SheetError(
    'corrupt_xlsx',
    `${file}: sheet "${sheet}", ${problem}. The workbook was not written by a spreadsheet program: open it in Excel or LibreOffice and save it again.`,
    { file, sheet, rowNumber: row, column: ref ?? `#${index}` },
  );
}

const WORKSHEET_END = /<\/(?:\w+:)?worksheet>\s*$/;
const CELL_REF = /^\$?([A-Z]{1,3})\$?([1-9]\d{0,6})$/;
const R_ATTRIBUTE = /\sr\s*=\s*(?:"([^"]*)"|'([^']*)')/;

/** Whether `ref` is an A1 reference exceljs can place (column A..XFD, row 1..9,999,999). */
function isCellRef(ref: string): boolean {
  const m = CELL_REF.exec(ref);
  if (m === null) return false;
  const letters = m[1] as string;
  let col = 0;
  for (let i = 0; i < letters.length; i++) col = col * 26 + letters.charCodeAt(i) - 64;
  return col <= 16_384;
}

/**
 * Watches a worksheet's XML as it streams, before exceljs builds rows from it: counts `<c` cell
 * elements per `<row` and calls `tooWide` (which throws) once a row has more than `max`; calls
 * `badCell` (which throws) for a cell whose `r` address is missing or not an A1 reference, and
 * `badRow` for a cell in a row without its `r` number (exceljs fails on those with "reading
 * 'length'" or "Invalid Address: ANaN"); fails a cell whose XML (from its `<c` to the next cell,
 * row or `</sheetData>`) is longer than `maxCellXml` bytes, as soon as it is, and XML that stops
 * before `</worksheet>` (a part cut short, which exceljs reads as a shorter sheet). ECMA-376
 * Part 1, 18.3.1.4 (c): `r` is "an A1 style reference to the location of this cell"; 18.3.1.73
 * (row): `r` is the row index. Chunks are read as latin1 (tags are ASCII); a tag split between
 * chunks is carried over to the next one.
 */
function sheetXmlGuard(
  max: number,
  maxCellXml: number,
  on: {
    tooWide: (rowNumber: number, cells: number) => never;
    badCell: (rowNumber: number, index: number, ref: string | undefined) => never;
    badRow: (previousRow: number) => never;
    /** The error for a cell longer than maxCellXml bytes of XML. */
    cellTooLong: (rowNumber: number, index: number, ref: string | undefined) => Error;
    /** The error for XML that stops before `</worksheet>` (exceljs would read it as a shorter sheet). */
    cutShort: (rowNumber: number) => Error;
  },
): Transform {
  let cells = 0;
  let rowNumber = 0;
  let rowNumbered = true;
  let carry = '';
  let tail = '';
  /** Bytes of the part before the current chunk. */
  let consumed = 0;
  /** Where the open cell's `<c` starts (offset in the part), or -1 outside a cell. */
  let cellStart = -1;
  let cellRef: string | undefined;
  const tags = /<(c|row)(?=[\s>/])([^<>]*)>|<\/(?:\w+:)?sheetData>/g;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = carry + chunk.toString('latin1');
      const base = consumed - carry.length;
      consumed += chunk.length;
      tags.lastIndex = 0;
      let end = 0;
      try {
        for (let m = tags.exec(text); m !== null; m = tags.exec(text)) {
          end = tags.lastIndex;
          if (cellStart >= 0 && base + m.index - cellStart > maxCellXml) {
            throw on.cellTooLong(rowNumber, cells, cellRef);
          }
          cellStart = -1;
          if (m[1] === undefined) continue; // </sheetData>: what follows is not cells
          const attrs = m[2] as string;
          const r = R_ATTRIBUTE.exec(attrs);
          const ref = r === null ? undefined : (r[1] ?? r[2]);
          if (m[1] === 'row') {
            cells = 0;
            const n = ref === undefined ? Number.NaN : Number(ref);
            rowNumbered = Number.isInteger(n) && n > 0;
            rowNumber = rowNumbered ? n : rowNumber + 1;
          } else {
            if (++cells > max) on.tooWide(rowNumber, cells);
            if (ref === undefined || !isCellRef(ref)) on.badCell(rowNumber, cells, ref);
            if (!rowNumbered) on.badRow(rowNumber - 1);
            if (!attrs.endsWith('/')) {
              cellStart = base + m.index;
              cellRef = ref;
            }
          }
        }
        if (cellStart >= 0 && base + text.length - cellStart > maxCellXml) {
          throw on.cellTooLong(rowNumber, cells, cellRef);
        }
      } catch (error) {
        done(error as Error);
        return;
      }
      // A tag cut by the chunk boundary: keep its start for the next chunk (bounded).
      const lt = text.lastIndexOf('<');
      carry = lt >= end && text.indexOf('>', lt) === -1 && text.length - lt < 4096 ? text.slice(lt) : '';
      tail = (tail + text).slice(-64);
      done(null, chunk);
    },
    flush(done) {
      done(WORKSHEET_END.test(tail) ? null : on.cutShort(rowNumber));
    },
  });
}

/**
 * Watches the shared strings' XML as it streams: fails (with `tooLong(index)`, 1-based) a string
 * item `<si>` whose XML is longer than `maxBytes` before exceljs has gathered it into one string.
 */
function sharedStringsGuard(maxBytes: number, tooLong: (index: number) => Error): Transform {
  const items = /<(?:\w+:)?si[\s>/]|<\/(?:\w+:)?sst>/g;
  let consumed = 0;
  let carry = '';
  let index = 0;
  let itemStart = -1;
  let lastMatch = -1;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = carry + chunk.toString('latin1');
      const base = consumed - carry.length;
      consumed += chunk.length;
      items.lastIndex = 0;
      for (let m = items.exec(text); m !== null; m = items.exec(text)) {
        const at = base + m.index;
        if (at <= lastMatch) continue; // seen in the previous chunk's carried tail
        lastMatch = at;
        if (itemStart >= 0 && at - itemStart > maxBytes) break;
        itemStart = m[0].startsWith('</') ? -1 : at;
        if (itemStart >= 0) index++;
      }
      if (itemStart >= 0 && base + text.length - itemStart > maxBytes) {
        done(tooLong(index));
        return;
      }
      // An item tag cut by the chunk boundary: keep the last few characters for the next chunk.
      carry = text.slice(-8);
      done(null, chunk);
    },
  });
}
