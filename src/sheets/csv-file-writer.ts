import { AtomicFileSync } from '../files/atomic-file.js';

/**
 * The one CSV writer: the results files of runs (results.csv, failed.csv, a rollback's results) and
 * the CSV exports (through CsvSheetWriter, which turns typed cells into text first) all go through
 * it. RFC 4180: fields separated by the delimiter, quoted (with doubled quotes) when needed
 * (`csvField`); CRLF line endings; a UTF-8 byte order
 * mark first by default, so that spreadsheet programs read non-ASCII text correctly (our readers
 * skip it). Rows are written in batches (never one giant string: a stock sheet can have a million
 * rows) to a temporary file that replaces the target on `close()` (src/files/atomic-file.ts), so a
 * crash or a failed export never leaves a truncated file in place of a complete one.
 *
 * Fields are written as given: neutralising formulas is the caller's choice per field
 * (src/sheets/neutralize-formula.ts), since values read from the user's own sheet must be written
 * back exactly as read.
 */

export interface CsvFileOptions {
  /** Field delimiter (default ','): one character other than a quote or a line break. */
  delimiter?: string;
  /** Write a UTF-8 byte order mark first (default true: spreadsheet programs need it for non-ASCII). */
  bom?: boolean;
  /** Write to the file when this many characters are buffered (default 256 KiB). */
  flushChars?: number;
}

const NEEDS_QUOTES = /[",\r\n]|^ | $/;

/**
 * One CSV field: quoted when it holds the delimiter (default ','), a comma, a quote, CR or LF, or
 * starts or ends with a space. A comma is quoted whatever the delimiter: readers that detect the
 * delimiter (ours counts them outside quotes) then never take it for one.
 */
export function csvField(text: string, delimiter = ','): string {
  const quote = NEEDS_QUOTES.test(text) || (delimiter !== ',' && text.includes(delimiter));
  return quote ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The delimiter to write with (default ','); a RangeError unless it is one character other than a quote or a line break. */
export function csvDelimiter(delimiter = ','): string {
  if (delimiter.length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new RangeError(`the CSV delimiter must be one character other than a quote or a line break`);
  }
  return delimiter;
}

/** Writes rows of text fields to `file` (replaced atomically on close). */
export class CsvFileWriter {
  private readonly out: AtomicFileSync;
  private buffer: string[] = [];
  private buffered = 0;
  private readonly flushChars: number;
  private readonly delimiter: string;
  /** Data rows written so far (the header is not counted). */
  rows = 0;

  constructor(
    readonly file: string,
    header: readonly string[],
    options: CsvFileOptions = {},
  ) {
    this.delimiter = csvDelimiter(options.delimiter);
    this.flushChars = options.flushChars ?? 256 * 1024;
    this.out = new AtomicFileSync(file);
    if (options.bom ?? true) this.push('\uFEFF');
    this.push(this.line(header));
  }

  /** Appends one row. */
  writeRow(fields: readonly string[]): void {
    this.push(this.line(fields));
    this.rows++;
  }

  /** Writes what is buffered, flushes it to disk and moves the file into place. */
  close(): void {
    this.flush();
    this.out.commit();
  }

  /** Drops what was written, leaving any previous `file` as it was. */
  discard(): void {
    this.buffer = [];
    this.buffered = 0;
    this.out.discard();
  }

  private line(fields: readonly string[]): string {
    let line = '';
    for (let i = 0; i < fields.length; i++) {
      if (i > 0) line += this.delimiter;
      line += csvField(fields[i] as string, this.delimiter);
    }
    return `${line}\r\n`;
  }

  private push(text: string): void {
    this.buffer.push(text);
    this.buffered += text.length;
    if (this.buffered >= this.flushChars) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.buffered = 0;
    this.out.write(chunk);
  }
}

/** Writes a whole CSV file of `rows` under `header` (see CsvFileWriter). */
export function writeCsvFile(
  file: string,
  header: readonly string[],
  rows: Iterable<readonly string[]>,
  options: CsvFileOptions = {},
): void {
  const csv = new CsvFileWriter(file, header, options);
  try {
    for (const row of rows) csv.writeRow(row);
  } catch (error) {
    csv.discard();
    throw error;
  }
  csv.close();
}
