import type { StockColumns } from '../mapping/stock-sheet.js';
import { stockInteger } from '../mapping/stock-sheet.js';
import type { CellValue, SheetRow } from '../sheets/sheet-row.js';
import { isPlainStockSheet, type StockPlanner } from './stock-plan.js';
import { TextArena, textHash } from './text-arena.js';

/** What a row kept whole is counted for, besides its cells' text: the row, its cells object, their strings. */
const KEPT_ROW_BYTES = 256;
/** What a plain row is counted for, besides its SKU's code units: its five integers. */
const PLAIN_ROW_BYTES = 20;

/**
 * The rows of a stock sheet read while the live inventory is still being read, kept small: a plain
 * row (a SKU that needs no trimming and a whole quantity >= 0, most rows of a big sheet) as its
 * SKU's code units in a TextArena and five integers (where they start, how many, their hash, the
 * quantity, the row number); any other row whole, with copies of its cells
 * (a parsed cell is a slice of its whole batch's text). `replay` plans them all, in their order,
 * once the index is complete: a plain row that is unchanged is decided without a row object
 * (`StockPlanner.addUnchanged`); every other row goes through `StockPlanner.add`, a plain one
 * rebuilt with the same two cells. So the plan is the one `add` would make of the rows as read,
 * and the sheet's parsing, which used to wait for the last page of the live read, is done while
 * the live read waits on the network.
 *
 * Only for a sheet of `sku` and `quantity` alone (`isPlainStockSheet`); bounded by `maxBytes`
 * (`full`: read no further ahead).
 */
export class StockSheetDigest {
  private text = new TextArena(1 << 16);
  private starts = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private quantities = new Int32Array(1024);
  private rowNumbers = new Int32Array(1024);
  private plain = 0;
  /** Rows kept whole, each with the count of plain rows read before it. */
  private kept: { before: number; row: SheetRow }[] = [];
  private bytes = 0;
  private sheet: string | undefined;
  private readonly skuKey: string;
  private readonly quantityKey: string;

  private constructor(
    columns: StockColumns,
    private readonly maxBytes: number,
  ) {
    this.skuKey = (columns.sku as { key: string }).key;
    this.quantityKey = (columns.quantity as { key: string }).key;
  }

  /** A digest for a sheet of these columns, or undefined when it is not a plain stock sheet. */
  static of(columns: StockColumns, maxBytes = 64 * 2 ** 20): StockSheetDigest | undefined {
    return isPlainStockSheet(columns) ? new StockSheetDigest(columns, maxBytes) : undefined;
  }

  get full(): boolean {
    return this.bytes >= this.maxBytes;
  }

  /** Rows kept. */
  get rows(): number {
    return this.plain + this.kept.length;
  }

  add(row: SheetRow): void {
    this.sheet ??= row.sheet;
    const sku = row.cells[this.skuKey];
    const quantity = stockInteger(row.cells[this.quantityKey]);
    if (
      row.cutShort === true ||
      row.sheet !== this.sheet ||
      typeof sku !== 'string' ||
      !untrimmed(sku) ||
      quantity === undefined ||
      !(quantity >= 0 && quantity <= 0x7fffffff) ||
      !Number.isSafeInteger(row.rowNumber) ||
      row.rowNumber > 0x7fffffff
    ) {
      this.keep(row);
      return;
    }
    if (this.plain === this.starts.length) this.grow();
    const n = this.plain++;
    this.starts[n] = this.text.length;
    this.lengths[n] = sku.length;
    this.hashes[n] = textHash(sku);
    this.quantities[n] = quantity;
    this.rowNumbers[n] = row.rowNumber;
    this.text.push(sku);
    this.bytes += PLAIN_ROW_BYTES + 2 * sku.length;
  }

  /**
   * Plans every row kept, in the order they were read, with `planner` (whose index is complete),
   * then lets them go: the rest of the sheet is read without them held.
   */
  replay(planner: StockPlanner): void {
    this.plan(planner);
    this.text = new TextArena();
    for (const name of ['starts', 'lengths', 'hashes', 'quantities', 'rowNumbers'] as const) {
      this[name] = new Int32Array(0);
    }
    this.kept = [];
    this.plain = 0;
    this.bytes = 0;
  }

  private plan(planner: StockPlanner): void {
    const { text, starts, lengths, hashes, quantities, rowNumbers, kept } = this;
    let k = 0;
    for (let n = 0; n <= this.plain; n++) {
      for (; k < kept.length && (kept[k] as { before: number }).before === n; k++) {
        planner.add((kept[k] as { row: SheetRow }).row);
      }
      if (n === this.plain) break;
      const start = starts[n] as number;
      const length = lengths[n] as number;
      const quantity = quantities[n] as number;
      const rowNumber = rowNumbers[n] as number;
      if (planner.addUnchanged(rowNumber, text, start, length, hashes[n] as number, quantity)) continue;
      planner.add({
        sheet: this.sheet as string,
        rowNumber,
        cells: { [this.skuKey]: text.read(start, length), [this.quantityKey]: String(quantity) },
      });
    }
  }

  private keep(row: SheetRow): void {
    const cells: Record<string, CellValue> = structuredClone(row.cells);
    let chars = 0;
    for (const value of Object.values(cells)) if (typeof value === 'string') chars += value.length;
    this.bytes += KEPT_ROW_BYTES + 2 * chars;
    this.kept.push({ before: this.plain, row: { ...row, cells } });
  }

  private grow(): void {
    const twice = (a: Int32Array) => {
      const out = new Int32Array(Math.max(1024, a.length * 2));
      out.set(a);
      return out;
    };
    this.starts = twice(this.starts);
    this.lengths = twice(this.lengths);
    this.hashes = twice(this.hashes);
    this.quantities = twice(this.quantities);
    this.rowNumbers = twice(this.rowNumbers);
  }
}

/** Whether `sku` is not blank and `trim()` would leave it as it is. */
function untrimmed(sku: string): boolean {
  if (sku.length === 0) return false;
  const first = sku.charCodeAt(0);
  const last = sku.charCodeAt(sku.length - 1);
  // Past ASCII, trim() also takes no-break and other Unicode spaces: ask it.
  if (first > 32 && first < 127 && last > 32 && last < 127) return true;
  return first > 32 && last > 32 && sku.trim() === sku;
}
