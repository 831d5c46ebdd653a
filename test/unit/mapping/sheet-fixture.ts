import type { CellValue, SheetColumn, SheetRow } from '../../../src/sheets/sheet-row.js';
import { columnLetter } from '../../../src/sheets/sheet-row.js';

/** A sheet as the readers deliver it: header → SheetColumn[], data rows numbered from 2. */
export function sheet(
  name: string,
  header: readonly string[],
  data: readonly (readonly CellValue[])[],
): { columns: SheetColumn[]; rows: SheetRow[]; sheet: string } {
  const columns = header.map((h, index) => ({
    header: h.trim(),
    key: h.trim().toLowerCase(),
    letter: columnLetter(index),
    index,
  }));
  const rows = data.map((cells, i) => {
    const record: Record<string, CellValue> = {};
    columns.forEach((c, j) => {
      record[c.key] = cells[j] ?? '';
    });
    return { sheet: name, rowNumber: i + 2, cells: record };
  });
  return { columns, rows, sheet: name };
}
