import { minorToUnits } from './money.js';
import { neutralizeXlsxText } from './neutralize-formula.js';
import { columnLetter } from './sheet-row.js';
import { normalizeCell, type CellPlace, type ColumnSpec, type SheetSpec } from './sheet-writer.js';

/** Excel's limit on rows per sheet (header included). */
export const MAX_ROWS = 1_048_576;

// exceljs's xmlEncode: the five XML specials escaped; control characters XML 1.0 cannot hold (and DEL) dropped.
// eslint-disable-next-line no-control-regex -- these control characters are what the pattern is for
const XML_SPECIAL = /[<>&'"\x7F\x00-\x08\x0B\x0C\x0E-\x1F]/;
// eslint-disable-next-line no-control-regex -- as above
const XML_SPECIALS = /[<>&'"\x7F\x00-\x08\x0B\x0C\x0E-\x1F]/g;
const XML_ESCAPES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&apos;',
  '"': '&quot;',
};

/** Text as XML character data, as exceljs writes it. */
function xmlText(text: string): string {
  return XML_SPECIAL.test(text) ? text.replace(XML_SPECIALS, (c) => XML_ESCAPES[c] ?? '') : text;
}

/** A Date (whose UTC fields are the wall-clock time) as an Excel serial day number (1900 date system). */
function excelSerial(date: Date): number {
  return 25569 + date.getTime() / 86_400_000;
}

/**
 * XML parsers turn a raw carriage return into a line feed, so OOXML writes it as `_x000D_`; a
 * literal `_xHHHH_` in the text is protected as `_x005F_xHHHH_` so a reader does not decode it.
 * Our reader (and Excel) decode both back to the original text.
 */
export function escapeXlsxText(text: string): string {
  if (!text.includes('\r') && !text.includes('_x')) return text;
  return text.replace(/_x(?=[0-9A-Fa-f]{4}_)/g, '_x005F_x').replace(/\r/g, '_x000D_');
}

/**
 * The sheet XML of one sheet's data rows, byte for byte what exceljs's row and cell renderers write
 * for them (`<row r spans x14ac:dyDescent>`, cells `<c r s t><v>…</v></c>`, text as `t="str"`; ''
 * for a row without a value, which exceljs leaves out), made directly: building exceljs's Row and
 * Cell objects and its XML stream for every cell was most of an order export's time. Its own module,
 * without exceljs: the XLSX writer that runs the workbook in a worker thread (xlsx-thread-writer.ts)
 * makes the rows' XML here on the calling thread.
 */
export class XlsxRowXml {
  private readonly columns: readonly ColumnSpec[];
  /** Per column: its letter. */
  private readonly letters: string[];
  private readonly place: CellPlace;
  /** The last date and datetime text converted, and its serial (see dateSerial; '' is no cell). */
  private readonly lastDate: { value: string; serial: number | null } = { value: '', serial: null };
  private readonly lastDatetime: { value: string; serial: number | null } = { value: '', serial: null };

  constructor(
    spec: SheetSpec,
    /** Per column: its style attribute (` s="N"`, or '' for the default style), from the workbook's style table. */
    private readonly styleAttrs: readonly string[],
    private readonly timezone: string,
    private readonly decimals: number,
  ) {
    this.columns = spec.columns;
    this.letters = spec.columns.map((_, i) => columnLetter(i));
    this.place = { sheet: spec.name, unit: 'row', row: 0 };
  }

  /** Row `number`'s XML ('' when it has no cell). A bad value throws, naming the sheet, row and column. */
  rowXml(row: Readonly<Record<string, unknown>>, number: number): string {
    this.place.row = number;
    let cells = '';
    let first = 0;
    let last = 0;
    for (let i = 0; i < this.columns.length; i++) {
      const column = this.columns[i] as ColumnSpec;
      const value = row[column.key];
      if (typeof value === 'string' && (column.type === 'datetime' || column.type === 'date')) {
        const serial = this.dateSerial(value, column);
        if (serial === null) continue;
        if (first === 0) first = i + 1;
        last = i + 1;
        cells += `<c r="${this.letters[i] as string}${number}"${this.styleAttrs[i] as string}><v>${serial}</v></c>`;
        continue;
      }
      const cell = normalizeCell(value, column, this.timezone, this.place);
      if (cell === null) continue;
      if (first === 0) first = i + 1;
      last = i + 1;
      const open = `<c r="${this.letters[i] as string}${number}"${this.styleAttrs[i] as string}`;
      switch (column.type) {
        case 'text':
          cells += `${open} t="str"><v>${xmlText(neutralizeXlsxText(escapeXlsxText(cell as string)))}</v></c>`;
          break;
        case 'money':
          cells += `${open}><v>${minorToUnits(cell as number, this.decimals)}</v></c>`;
          break;
        case 'date':
        case 'datetime':
          cells += `${open}><v>${excelSerial(cell as Date)}</v></c>`;
          break;
        case 'boolean':
          cells += `${open} t="b"><v>${cell === true ? '1' : '0'}</v></c>`;
          break;
        default:
          cells += `${open}><v>${cell as number}</v></c>`;
      }
    }
    if (first === 0) return '';
    return `<row r="${number}" spans="${first}:${last}" x14ac:dyDescent="0.25">${cells}</row>`;
  }

  /**
   * A date cell given as text, as its serial (null: no cell): the same text as the last one of its
   * type gives the same serial (an order's lines repeat its dates), so it is converted once.
   */
  private dateSerial(value: string, column: ColumnSpec): number | null {
    const last = column.type === 'date' ? this.lastDate : this.lastDatetime;
    if (last.value === value) return last.serial;
    const cell = normalizeCell(value, column, this.timezone, this.place);
    const serial = cell === null ? null : excelSerial(cell as Date);
    last.value = value;
    last.serial = serial;
    return serial;
  }
}
