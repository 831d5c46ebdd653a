import { AtomicFile, writeThenCommit } from '../files/atomic-file.js';

/**
 * The one CSV writer: the results files of runs (results.csv, failed.csv, a rollback's results) and
 * the CSV exports (through CsvSheetWriter, which turns typed cells into text first) all go through
 * it. RFC 4180: fields separated by the delimiter, quoted (with doubled quotes) when needed
 * (`csvField`); CRLF line endings; a UTF-8 byte order mark first by default, so that spreadsheet
 * programs read non-ASCII text correctly (our readers skip it). Rows are streamed in batches with
 * backpressure (never one giant string: a stock sheet can have a million rows; the disk writes
 * while the next rows are made) to a temporary file that replaces the target on `commit()`
 * (src/files/atomic-file.ts), so a crash or a failed export never leaves a truncated file in place
 * of a complete one.
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
  /** Write to the file when this many bytes (UTF-8) are buffered (default 256 KiB). */
  flushBytes?: number;
}

const NEEDS_QUOTES = /[",\r\n]/;
const NEEDS_QUOTES_OTHER = /["\r\n]/;

/**
 * One CSV field: quoted (quotes doubled) when it holds the delimiter (default ','), a quote, CR or
 * LF, or starts or ends with a space (which some readers would trim).
 */
export function csvField(text: string, delimiter = ','): string {
  const quote =
    (delimiter === ','
      ? NEEDS_QUOTES.test(text)
      : NEEDS_QUOTES_OTHER.test(text) || text.includes(delimiter)) ||
    text.charCodeAt(0) === 32 ||
    text.charCodeAt(text.length - 1) === 32;
  return quote ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The delimiter to write with (default ','); a RangeError unless it is one character other than a quote or a line break. */
export function csvDelimiter(delimiter = ','): string {
  if (delimiter.length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new RangeError(`the CSV delimiter must be one character other than a quote or a line break`);
  }
  return delimiter;
}

/**
 * Writes rows of text fields to `file`, replaced atomically on `commit()`: open it with
 * `CsvFileWriter.open` (which fails at once on a file that cannot be written), write rows, commit.
 */
export class CsvFileWriter {
  private readonly delimiter: string;
  /** Data rows written so far (the header is not counted). */
  rows = 0;

  private constructor(
    readonly file: string,
    private readonly out: AtomicFile,
    delimiter: string,
  ) {
    this.delimiter = delimiter;
  }

  /** Opens `file` for writing (through a temporary sibling) and writes the BOM and the header. */
  static async open(
    file: string,
    header: readonly string[],
    options: CsvFileOptions = {},
  ): Promise<CsvFileWriter> {
    const delimiter = csvDelimiter(options.delimiter);
    const out = new AtomicFile(file, options.flushBytes ?? 256 * 1024);
    const writer = new CsvFileWriter(file, out, delimiter);
    try {
      await out.ready();
      await out.write(`${(options.bom ?? true) ? '\uFEFF' : ''}${csvLine(header, delimiter)}`);
    } catch (error) {
      await out.discard();
      throw error;
    }
    return writer;
  }

  /**
   * Appends one row. Returns a promise when the rows buffered were written out: await it (it carries
   * the file's backpressure and failures), or memory grows with the file.
   */
  writeRow(fields: readonly string[]): void | Promise<void> {
    this.rows++;
    return this.out.write(csvLine(fields, this.delimiter));
  }

  /**
   * Appends `rows` rows already made into lines (csvLine, with this file's delimiter), as text or
   * UTF-8 bytes. Returns a promise as writeRow does.
   */
  writeLines(lines: string | Uint8Array, rows: number): void | Promise<void> {
    this.rows += rows;
    return this.out.write(lines);
  }

  /** Writes what is buffered, flushes it to disk and moves the file into place. */
  commit(): Promise<void> {
    return this.out.commit();
  }

  /** Drops what was written, leaving any previous `file` as it was. */
  discard(): Promise<void> {
    return this.out.discard();
  }
}

/** One CSV line of `fields` (each csvField), CRLF-terminated. */
export function csvLine(fields: readonly string[], delimiter = ','): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += delimiter;
    line += csvField(fields[i] as string, delimiter);
  }
  return `${line}\r\n`;
}

/** Writes a whole CSV file of `rows` under `header` (see CsvFileWriter). */
export async function writeCsvFile(
  file: string,
  header: readonly string[],
  rows: Iterable<readonly string[]>,
  options: CsvFileOptions = {},
): Promise<void> {
  const csv = await CsvFileWriter.open(file, header, options);
  await writeThenCommit(csv, async () => {
    for (const row of rows) await csv.writeRow(row);
  });
}
