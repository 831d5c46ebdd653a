import { MbulkError } from '../errors/mbulk-error.js';

/** Stable codes of the reader's fatal errors (safe to match on in callers and tests). */
export type SheetErrorCode =
  | 'file_not_found'
  | 'file_too_large'
  | 'too_many_rows'
  | 'cell_too_long'
  | 'too_many_columns'
  | 'row_too_long'
  | 'xlsx_part_too_large'
  | 'empty_file'
  | 'not_xlsx'
  | 'xls_not_supported'
  | 'encrypted_xlsx'
  | 'corrupt_xlsx'
  | 'unsupported_xlsx'
  | 'binary_csv'
  | 'unsupported_encoding'
  | 'unterminated_quote'
  | 'sheet_not_found'
  | 'duplicate_header'
  | 'bad_option';

export interface SheetErrorDetails {
  file: string;
  sheet?: string;
  /** 1-based row number as a spreadsheet program shows it. */
  rowNumber?: number;
  /** Column letter (A, B, …) or header. */
  column?: string;
  cause?: unknown;
}

/**
 * A sheet that cannot be read (category `usage`: nothing was planned or written). The message says what is wrong and what to do about it;
 * `code` is stable, `file`/`rowNumber`/`column` locate the problem when known.
 */
export class SheetError extends MbulkError {
  static override readonly errorName: string = 'SheetError';
  readonly code: SheetErrorCode;
  readonly file: string;
  readonly sheet: string | undefined;
  readonly rowNumber: number | undefined;
  readonly column: string | undefined;

  constructor(code: SheetErrorCode, message: string, details: SheetErrorDetails) {
    super('usage', message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.file = details.file;
    this.sheet = details.sheet;
    this.rowNumber = details.rowNumber;
    this.column = details.column;
  }
}
