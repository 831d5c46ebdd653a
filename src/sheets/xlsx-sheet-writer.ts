import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { columnLetter } from './sheet-row.js';
import { AtomicFile } from '../files/atomic-file.js';
import { MAX_ROWS, XlsxRowXml } from './xlsx-row-xml.js';
import {
  assertSheetSpec,
  type ColumnSpec,
  type ColumnType,
  type SheetHandle,
  type SheetSpec,
  type SheetWriter,
  type SheetWriterOptions,
} from './sheet-writer.js';

type Worksheet = ExcelJS.Worksheet;
interface CellStyle {
  numFmt?: string;
  font?: { bold: boolean };
}
/** exceljs's workbook style table (`WorkbookWriter.styles`): a cell style → its id in styles.xml (0: the default). */
interface StyleRegistry {
  addStyleModel(style: CellStyle, valueType: number): number;
}

/** Rows between backpressure checks. */
const CHECK_EVERY = 256;
const BAD_SHEET_NAME = /[[\]:*?/\\]/;

/** The number format of a column, per type (`General` for plain numbers). */
export function columnNumFmt(type: ColumnType, currencyDecimals: number): string | undefined {
  switch (type) {
    case 'money':
      return currencyDecimals === 0 ? '#,##0' : `#,##0.${'0'.repeat(currencyDecimals)}`;
    case 'integer':
      return '0';
    case 'date':
      return 'yyyy-mm-dd';
    case 'datetime':
      return 'yyyy-mm-dd hh:mm:ss';
    case 'text':
      // '@' keeps what a person later types into the column as text (leading zeros of a SKU survive editing).
      return '@';
    default:
      return undefined;
  }
}

const TYPE_WIDTH: Record<ColumnType, number> = {
  text: 12,
  integer: 8,
  number: 10,
  money: 12,
  date: 11,
  datetime: 20,
  boolean: 7,
};

function columnWidth(column: ColumnSpec): number {
  const width = column.width ?? Math.max(column.header.length + 3, TYPE_WIDTH[column.type]);
  return Math.min(Math.max(width, 6), 80);
}

/**
 * XLSX through exceljs's streaming `WorkbookWriter` (`useStyles: true`, `useSharedStrings: false`):
 * bold frozen header row, autofilter over the header and data, widths from the spec or the header, number
 * formats on the columns (and one shared style object per column, so exceljs's style lookup is a WeakMap
 * hit instead of a per-cell serialisation). Writes wait for the zip's deflate stream when it falls behind,
 * so memory stays flat. One sheet streams at a time (a zip entry is written whole); rows for later sheets
 * are spooled, as their sheet XML, to a temporary file until their turn. Data rows' XML is made here
 * (`rowXml`, the bytes exceljs's own rows would write); exceljs writes the rest of the workbook.
 */
export class XlsxSheetWriter implements SheetWriter {
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  /** The workbook is written to a temporary file that replaces `path` once complete. */
  private readonly file: AtomicFile;
  private readonly out: WriteStream;
  private readonly sheets: XlsxSheet[] = [];
  private active = 0;
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;
  private spoolDir: Promise<string> | null = null;
  private finishing: Promise<void> = Promise.resolve();
  /** Resolves when the output file fails: waits for 'drain' race it, since a failed zip never drains. */
  readonly failedSignal: Promise<void>;
  /** Settles when the output file is open or failed to open (`failure` says which). */
  private readonly opened: Promise<void>;

  constructor(
    readonly path: string,
    private readonly options: SheetWriterOptions,
  ) {
    this.file = new AtomicFile(path);
    this.out = this.file.stream;
    this.failedSignal = new Promise<void>((resolve) => {
      this.out.on('error', (error) => {
        this.failure ??= error;
        resolve();
      });
    });
    // A folder as target fails now, as opening it would, not at the final rename.
    this.opened = this.file.ready().catch((error: unknown) => {
      // The reason it could not open, not the stream's complaint at being dropped meanwhile.
      const e = error as Error;
      this.failure = e.cause instanceof Error ? e.cause : e;
    });
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: this.out,
      useStyles: true,
      useSharedStrings: false,
    });
  }

  async addSheet(spec: SheetSpec, _path?: string): Promise<XlsxSheet> {
    await this.opened;
    this.throwIfFailed();
    if (this.closing) throw new Error('addSheet after close');
    if (spec.name.length === 0 || spec.name.length > 31 || BAD_SHEET_NAME.test(spec.name)) {
      throw new RangeError(`invalid XLSX sheet name "${spec.name}" (1-31 characters, none of []:*?/\\)`);
    }
    assertSheetSpec(spec);
    if (this.sheets.some((s) => s.spec.name.toLowerCase() === spec.name.toLowerCase())) {
      throw new Error(`duplicate sheet name "${spec.name}"`);
    }
    const print = spec.print;
    const worksheet = this.workbook.addWorksheet(spec.name, {
      views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
      ...(print
        ? {
            pageSetup: {
              ...(print.landscape ? { orientation: 'landscape' as const } : {}),
              // One page wide, and with onePage one tall; 0 = as many pages as it takes.
              fitToPage: true,
              fitToWidth: 1,
              fitToHeight: print.onePage ? 1 : 0,
            },
            ...(print.title
              ? { headerFooter: { oddHeader: `&C&"-,Bold"${print.title.replace(/&/g, '&&')}` } }
              : {}),
          }
        : {}),
    });
    const styles = (this.workbook as unknown as { styles: StyleRegistry }).styles;
    const sheet = new XlsxSheet(this, this.sheets.length, spec, worksheet, this.options, styles);
    this.sheets.push(sheet);
    if (sheet.index !== this.active) await sheet.startSpool(await this.spoolDirectory());
    return sheet;
  }

  isActive(sheet: XlsxSheet): boolean {
    return sheet.index === this.active;
  }

  /**
   * Commit the active sheet, then make the next one active (copying its spool in); repeat while the
   * newly active sheet has already been ended. Serialised: concurrent calls wait for each other.
   */
  finishActive(): Promise<void> {
    const run = async (): Promise<void> => {
      for (;;) {
        const current = this.sheets[this.active];
        if (!current || !current.wantsEnd) return;
        await current.activate();
        current.commit();
        this.active++;
        const next = this.sheets[this.active];
        if (!next) return;
        await next.activate();
      }
    };
    this.finishing = this.finishing.then(run);
    return this.finishing;
  }

  /** The temporary file and spool folder (once made): what to remove if this writer's thread dies. */
  async temporaryPaths(): Promise<{ tmp: string; spoolDir?: string }> {
    const spoolDir = this.spoolDir ? await this.spoolDir.catch(() => undefined) : undefined;
    return { tmp: this.file.tmp, ...(spoolDir === undefined ? {} : { spoolDir }) };
  }

  private spoolDirectory(): Promise<string> {
    this.spoolDir ??= mkdtemp(join(tmpdir(), 'mbulk-xlsx-'));
    return this.spoolDir;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.opened;
        this.throwIfFailed();
        for (const sheet of this.sheets) await sheet.end();
        this.throwIfFailed();
        const finished = new Promise<void>((resolve) => this.out.once('close', () => resolve()));
        this.putFirstTabsFirst();
        try {
          await this.workbook.commit();
        } catch (error) {
          this.failure ??= error instanceof Error ? error : new Error(String(error));
        }
        this.throwIfFailed();
        await finished;
        this.throwIfFailed();
        await this.file.commit();
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        // On failure the workbook is incomplete: drop it, the target file is left as it was.
        if (this.failure) await this.file.discard();
        if (this.spoolDir) await rm(await this.spoolDir, { recursive: true, force: true });
      }
    })();
    return this.closing;
  }

  /**
   * The tab order is the order of exceljs's worksheet list when it writes workbook.xml (and its
   * relationships, content types and app properties, from the same list): move the `firstTab`
   * sheets to the front, after every sheet is committed. Each sheet keeps its id and part name.
   */
  private putFirstTabsFirst(): void {
    if (!this.sheets.some((s) => s.spec.firstTab)) return;
    const book = this.workbook as unknown as { _worksheets: (ExcelJS.Worksheet | undefined)[] };
    const list = book._worksheets.filter((w): w is ExcelJS.Worksheet => w !== undefined);
    const first = new Set(this.sheets.filter((s) => s.spec.firstTab).map((s) => s.spec.name));
    const ordered = [...list.filter((w) => first.has(w.name)), ...list.filter((w) => !first.has(w.name))];
    // Sparse like exceljs's own list: sheets from index 1, index 0 a hole (map and forEach skip it).
    const sparse: (ExcelJS.Worksheet | undefined)[] = [];
    ordered.forEach((w, i) => {
      sparse[i + 1] = w;
    });
    book._worksheets = sparse;
  }

  /** Discards the workbook being written; the target file is left as it was. */
  abort(): Promise<void> {
    this.closing ??= (async () => {
      this.failure ??= new Error('export aborted');
      await this.opened;
      await this.file.discard();
      if (this.spoolDir) await rm(await this.spoolDir, { recursive: true, force: true });
    })();
    return this.closing.catch(() => undefined);
  }

  throwIfFailed(): void {
    if (this.failure)
      throw new Error(`cannot write ${this.path}: ${this.failure.message}`, { cause: this.failure });
  }
}

/** The stream exceljs pipes a sheet into (Node's or readable-stream v2's Writable). */
type PipeTarget = NodeJS.EventEmitter & {
  writableNeedDrain?: boolean;
  _writableState?: { needDrain?: boolean };
};

const SPOOL_FLUSH_AT = 64 * 1024;

/** exceljs's cell value types (Enums.ValueType) for the style lookup: the number format of a cell without one depends on it. */
const VALUE_TYPE: Record<ColumnType, number> = {
  text: 3,
  integer: 2,
  number: 2,
  money: 2,
  date: 4,
  datetime: 4,
  boolean: 9,
};

export class XlsxSheet implements SheetHandle {
  rowsWritten = 0;
  readonly path: string;
  private readonly columns: readonly ColumnSpec[];
  private readonly styles: CellStyle[];
  private readonly decimals: number;
  private sinceCheck = 0;
  /** 'spooling': rows go to the spool file; 'activating': the spool is being copied in; then 'streaming'. */
  private state: 'spooling' | 'activating' | 'streaming' | 'committed' = 'streaming';
  private spool: WriteStream | null = null;
  private spoolPath: string | null = null;
  private spoolBuffer = '';
  /** Rows (their XML, and how many rows each piece holds) written while the spool is being copied in (the caller is told to wait, so this stays small). */
  private pending: { xml: string | Uint8Array; rows: number; written?: (() => void) | undefined }[] = [];
  /** Per column: its style attribute (` s="N"`, or '' for the default style). */
  readonly styleAttrs: string[];
  private readonly xml: XlsxRowXml;
  private activation: Promise<void> | null = null;
  private endRequested = false;

  constructor(
    private readonly book: XlsxSheetWriter,
    readonly index: number,
    readonly spec: SheetSpec,
    private readonly worksheet: Worksheet,
    options: SheetWriterOptions,
    styles: StyleRegistry,
  ) {
    this.path = book.path;
    this.columns = spec.columns;
    this.decimals = options.currencyDecimals;
    this.styles = spec.columns.map((c) => {
      const numFmt = columnNumFmt(c.type, this.decimals);
      return numFmt ? { numFmt } : {};
    });
    worksheet.columns = spec.columns.map((c, i) => ({
      key: c.key,
      width: columnWidth(c),
      style: this.styles[i] as Partial<ExcelJS.Style>,
    }));
    const bold: CellStyle = { font: { bold: true } };
    if (spec.columns.some((c) => c.note !== undefined)) giveNotesTheirOwnShapeIds(worksheet);
    const header = worksheet.addRow([]);
    spec.columns.forEach((c, i) => {
      const cell = header.getCell(i + 1);
      cell.value = c.header;
      cell.style = bold as Partial<ExcelJS.Style>;
      if (c.note !== undefined) cell.note = c.note;
    });
    header.commit();
    // The style id exceljs gives each cell of the column (the same shared style object per column).
    this.styleAttrs = spec.columns.map((c, i) => {
      const id = styles.addStyleModel(this.styles[i] as CellStyle, VALUE_TYPE[c.type]);
      return id ? ` s="${id}"` : '';
    });
    this.xml = new XlsxRowXml(spec, this.styleAttrs, options.timezone ?? 'UTC', this.decimals);
  }

  get isCommitted(): boolean {
    return this.state === 'committed';
  }

  async startSpool(dir: string): Promise<void> {
    this.state = 'spooling';
    this.spoolPath = join(dir, `sheet-${this.index}.xml`);
    this.spool = createWriteStream(this.spoolPath);
    await once(this.spool, 'open');
  }

  write(row: Readonly<Record<string, unknown>>): void | Promise<void> {
    if (this.endRequested) throw new Error(`sheet ${this.spec.name}: write after end`);
    this.book.throwIfFailed();
    if (this.rowsWritten + 1 >= MAX_ROWS) {
      throw new RangeError(
        `sheet ${this.spec.name}: more than ${MAX_ROWS - 1} rows do not fit in one XLSX sheet`,
      );
    }
    return this.writeXml(this.xml.rowXml(row, this.rowsWritten + 2), 1);
  }

  /**
   * Append `rows` data rows given as their sheet XML (XlsxRowXml's, numbered from rowsWritten + 2):
   * `write` for one row, or the rows a worker thread's caller made (xlsx-thread-writer.ts), as
   * UTF-8 bytes; `written` is called once those bytes are no longer needed (copied or on disk), so
   * that their memory can be used again.
   */
  writeXml(xml: string | Uint8Array, rows: number, written?: () => void): void | Promise<void> {
    if (this.endRequested) throw new Error(`sheet ${this.spec.name}: write after end`);
    this.book.throwIfFailed();
    this.rowsWritten += rows;
    switch (this.state) {
      case 'spooling': {
        const spool = this.spool as WriteStream;
        let ok: boolean;
        if (typeof xml === 'string') {
          this.spoolBuffer += xml;
          if (this.spoolBuffer.length < SPOOL_FLUSH_AT) return undefined;
          ok = spool.write(this.spoolBuffer);
          this.spoolBuffer = '';
        } else {
          if (this.spoolBuffer !== '') spool.write(this.spoolBuffer);
          this.spoolBuffer = '';
          ok = written ? spool.write(xml, () => written()) : spool.write(xml);
        }
        return ok ? undefined : once(spool, 'drain').then(() => undefined);
      }
      case 'activating':
        this.pending.push({ xml, rows, written });
        return this.activation ?? undefined;
      default:
        return this.emit(xml, rows, written);
    }
  }

  /** Write rows' XML into the worksheet; every CHECK_EVERY rows, wait if the zip is behind. */
  private emit(xml: string | Uint8Array, rows: number, written?: () => void): void | Promise<void> {
    // exceljs copies what it is given into its own buffers at once (its sheet stream batches).
    if (xml.length > 0) this.sheetStream.write(xml);
    written?.();
    this.sinceCheck += rows;
    if (this.sinceCheck >= CHECK_EVERY) {
      this.sinceCheck = 0;
      return this.backpressure();
    }
    return undefined;
  }

  /** The worksheet's part stream inside exceljs (its `<sheetData>` is open: the header row was committed). */
  private get sheetStream(): { write(chunk: string | Uint8Array): unknown } {
    return (this.worksheet as unknown as { stream: { write(chunk: string | Uint8Array): unknown } }).stream;
  }

  /**
   * exceljs ignores backpressure: its sheet stream pushes 64 KB chunks into the zip's deflate stream
   * without waiting. Wait for that stream's 'drain' when it is full, and yield while the zip has not
   * started on this entry yet (the chunks then pile up in exceljs's own buffer).
   */
  private backpressure(): Promise<void> {
    const stream = (this.worksheet as unknown as { stream?: { pipes?: unknown[] } }).stream;
    const dest = stream?.pipes?.[0] as PipeTarget | undefined;
    // exceljs pipes into a readable-stream v2 PassThrough, which has no `writableNeedDrain`.
    const needDrain = dest?.writableNeedDrain ?? dest?._writableState?.needDrain ?? false;
    if (dest && needDrain) {
      return Promise.race([once(dest, 'drain'), this.book.failedSignal]).then(() =>
        this.book.throwIfFailed(),
      );
    }
    // Not piped yet (the zip is still on an earlier entry), or not full: let the zip and the file catch up.
    return yieldToLoop().then(() => undefined);
  }

  /** Become the streaming sheet: copy the spooled rows in (then rows written meanwhile), then write directly. */
  activate(): Promise<void> {
    this.activation ??= (async () => {
      const spool = this.spool;
      const spoolPath = this.spoolPath;
      if (this.state !== 'spooling' || !spool || !spoolPath) return;
      this.state = 'activating';
      spool.end(this.spoolBuffer);
      this.spoolBuffer = '';
      await once(spool, 'close');
      this.spool = null;
      for await (const chunk of createReadStream(spoolPath, { highWaterMark: SPOOL_FLUSH_AT })) {
        this.sheetStream.write(chunk as Buffer);
        await this.backpressure();
      }
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        for (const { xml, rows, written } of batch) {
          const wait = this.emit(xml, rows, written);
          if (wait) await wait;
        }
      }
      this.state = 'streaming';
    })();
    return this.activation;
  }

  /** Commit the worksheet (only when every earlier sheet is committed). */
  commit(): void {
    if (this.state === 'committed') return;
    const last = this.rowsWritten + 1;
    this.worksheet.autoFilter = `A1:${columnLetter(this.columns.length - 1)}${last}`;
    this.worksheet.commit();
    this.state = 'committed';
  }

  get wantsEnd(): boolean {
    return this.endRequested;
  }

  /**
   * No more rows. The streaming sheet is committed now and the next sheet starts streaming; a later
   * sheet stays spooled and is committed when its turn comes (at the latest in `close`).
   */
  async end(): Promise<void> {
    this.endRequested = true;
    if (this.book.isActive(this)) await this.book.finishActive();
  }
}

export { escapeXlsxText } from './xlsx-row-xml.js';

/** What giveNotesTheirOwnShapeIds touches inside exceljs's streaming comments writer. */
interface CommentsWriterInternals {
  id: number;
  vmlStream: { write(chunk: unknown): unknown };
  _writeOpen(): void;
  _writeComment(comment: unknown, index: number): void;
}

/**
 * exceljs 4.4 writes every sheet's VML drawing (the boxes of cell notes) with the same shape-id
 * block (`<o:idmap data="1"/>`, ids from `_x0000_s1025`), and Excel then offers to "repair" a
 * workbook in which two sheets have notes (exceljs issue/PR #3070). Shape ids are workbook-wide in
 * blocks of 1024 per drawing (ISO/IEC 29500-1 §14.2.2.14): give sheet N block N and ids
 * N·1024 + 1 + i.
 */
function giveNotesTheirOwnShapeIds(worksheet: Worksheet): void {
  const writer = (worksheet as unknown as { _sheetCommentsWriter?: CommentsWriterInternals })
    ._sheetCommentsWriter;
  if (!writer || typeof writer._writeOpen !== 'function' || typeof writer._writeComment !== 'function')
    return;
  const block = writer.id;
  const open = writer._writeOpen.bind(writer);
  const comment = writer._writeComment.bind(writer);
  writer._writeOpen = () => {
    const vml = writer.vmlStream;
    const write = vml.write.bind(vml);
    vml.write = (chunk: unknown) =>
      write(
        typeof chunk === 'string'
          ? chunk.replace(/(<o:idmap v:ext="edit" data=")1(")/, `$1${block}$2`)
          : chunk,
      );
    try {
      open();
    } finally {
      vml.write = write;
    }
  };
  // VmlShapeXform names shape `index` `_x0000_s${1025 + index}`.
  writer._writeComment = (c: unknown, index: number) => comment(c, index + (block - 1) * 1024);
}
