import type { SheetHandle, SheetSpec, SheetWriter } from '../sheets/sheet-writer.js';

/**
 * Data rows an XLSX sheet takes: Excel's 1,048,576 rows, less the header, less one for the sheet
 * writer's own bound check.
 */
export const XLSX_MAX_DATA_ROWS = 1_048_574;

/**
 * A sheet that continues in `<name>_2`, `<name>_3`… when it is full, so exports larger than one
 * XLSX sheet split instead of failing. (CSV files have no row limit: pass Infinity.)
 */
export class RollingSheet {
  private readonly parts: SheetHandle[];

  private constructor(
    private readonly writer: SheetWriter,
    private readonly spec: SheetSpec,
    private readonly maxRows: number,
    private readonly added: string[],
    first: SheetHandle,
  ) {
    this.parts = [first];
  }

  /** Opens the first part. `added` collects the names of the sheets created, in workbook order. */
  static async open(
    writer: SheetWriter,
    spec: SheetSpec,
    path: string,
    maxRows: number,
    added: string[],
  ): Promise<RollingSheet> {
    const first = await writer.addSheet(spec, path);
    added.push(spec.name);
    return new RollingSheet(writer, spec, maxRows, added, first);
  }

  /** Data rows written over all parts. */
  get rowsWritten(): number {
    return this.parts.reduce((s, p) => s + p.rowsWritten, 0);
  }

  /** Write a row, waiting only when the writer asks to (backpressure). */
  async write(row: Readonly<Record<string, unknown>>): Promise<void> {
    let current = this.parts[this.parts.length - 1] as SheetHandle;
    if (current.rowsWritten >= this.maxRows) {
      await current.end();
      const name = `${this.spec.name}_${this.parts.length + 1}`;
      current = await this.writer.addSheet({ ...this.spec, name });
      this.parts.push(current);
      this.added.push(name);
    }
    const pending = current.write(row);
    if (pending) await pending;
  }

  async end(): Promise<void> {
    for (const part of this.parts) await part.end();
  }
}
