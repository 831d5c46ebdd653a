import { CsvSheetWriter } from './csv-sheet-writer.js';
import type { SheetWriter, SheetWriterOptions } from './sheet-writer.js';
import { XlsxSheetWriter } from './xlsx-sheet-writer.js';

// Its own module so that sheet-writer.ts (the types and cell rules both writers share) imports
// neither writer: no import cycle between the writers and their shared rules.
/** A streaming CSV or XLSX writer (see `ColumnType` for how values are written). */
export function createSheetWriter(path: string, options: SheetWriterOptions): SheetWriter {
  if (!Number.isInteger(options.currencyDecimals) || options.currencyDecimals < 0) {
    throw new RangeError(`currencyDecimals must be a non-negative integer, got ${options.currencyDecimals}`);
  }
  if (options.timezone !== undefined) {
    // Throws RangeError for an unknown zone now, not at the first date cell.
    new Intl.DateTimeFormat('en-US', { timeZone: options.timezone });
  }
  return options.format === 'xlsx' ? new XlsxSheetWriter(path, options) : new CsvSheetWriter(path, options);
}
