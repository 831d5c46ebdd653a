import { MbulkError } from '../errors/mbulk-error.js';

/**
 * A sheet with a header and no data rows, refused unless `--allow-empty`: the classic sign of a
 * truncated file (an ERP export cut off after its header). Category `refused` (exit code 3):
 * nothing is planned or written.
 */
export class EmptySheetError extends MbulkError {
  static override readonly errorName: string = 'EmptySheetError';
  readonly code = 'empty_sheet';

  constructor(file: string) {
    super(
      'refused',
      `${file}: the sheet has no rows: truncated file? It has a header but no data rows, so nothing was planned or written. Check the file, or pass --allow-empty if it is meant to be empty`,
    );
  }
}

/** Throws EmptySheetError when `rows` is 0 and `allowEmpty` is not set. */
export function refuseEmptySheet(file: string, rows: number, allowEmpty: boolean | undefined): void {
  if (rows === 0 && allowEmpty !== true) throw new EmptySheetError(file);
}
