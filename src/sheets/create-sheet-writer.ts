import { CsvSheetWriter } from './csv-sheet-writer.js';
import { XlsxThreadWriter, xlsxThreadEntry } from './xlsx-thread-writer.js';
import type { SheetHandle, SheetSpec, SheetWriter, SheetWriterOptions } from './sheet-writer.js';

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
  if (options.format !== 'xlsx') return new CsvSheetWriter(path, options);
  const entry = options.thread ? xlsxThreadEntry() : null;
  return entry ? new XlsxThreadWriter(path, options, entry) : new XlsxWriterOnImport(path, options);
}

/**
 * The XLSX writer, made once its module (and exceljs, ~0.4 s to load) is imported: a CSV export
 * never loads either. A failure to make it (the module, the temporary file) is reported by the
 * first call, `addSheet`, `close` or `abort`, not by `createSheetWriter`.
 */
class XlsxWriterOnImport implements SheetWriter {
  private readonly writer: Promise<SheetWriter>;

  constructor(path: string, options: SheetWriterOptions) {
    this.writer = import('./xlsx-sheet-writer.js').then(
      ({ XlsxSheetWriter }) => new XlsxSheetWriter(path, options),
    );
    // Its failure is the first call's to report, not an unhandled rejection meanwhile.
    this.writer.catch(() => undefined);
  }

  async addSheet(spec: SheetSpec, path?: string): Promise<SheetHandle> {
    return (await this.writer).addSheet(spec, path);
  }

  async close(): Promise<void> {
    return (await this.writer).close();
  }

  async abort(): Promise<void> {
    return (await this.writer).abort();
  }
}
