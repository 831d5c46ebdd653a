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

  /**
   * Write a row; a promise only when the writer asks to wait (backpressure) or the sheet rolls over,
   * so that a row written straight through costs the caller no turn of the microtask queue.
   */
  write(row: Readonly<Record<string, unknown>>): void | Promise<void> {
    const current = this.parts[this.parts.length - 1] as SheetHandle;
    if (current.rowsWritten >= this.maxRows) return this.rollOver(current, row);
    return current.write(row);
  }

  private async rollOver(current: SheetHandle, row: Readonly<Record<string, unknown>>): Promise<void> {
    await current.end();
    const name = `${this.spec.name}_${this.parts.length + 1}`;
    const next = await this.writer.addSheet({ ...this.spec, name });
    this.parts.push(next);
    this.added.push(name);
    const pending = next.write(row);
    if (pending) await pending;
  }

  async end(): Promise<void> {
    for (const part of this.parts) await part.end();
  }
}
