import { describe, expect, it } from 'vitest';
import { resolveStockColumns } from '../../../src/mapping/stock-sheet.js';
import { LiveInventoryIndex, type LiveInventoryItem } from '../../../src/plan/live-inventory-index.js';
import { liveItem } from './live-fixture.js';
import {
  StockPlanner,
  checkMaxChanges,
  parseMaxChanges,
  type StockPlan,
} from '../../../src/plan/stock-plan.js';
import { columnLetter, type CellValue, type SheetColumn } from '../../../src/sheets/sheet-row.js';

function header(...names: string[]): SheetColumn[] {
  return names.map((h, index) => ({
    header: h,
    key: h.trim().toLowerCase(),
    letter: columnLetter(index),
    index,
  }));
}

const item = liveItem;

function plan(
  names: string[],
  rows: CellValue[][],
  items: LiveInventoryItem[],
  options: { preserveSales?: boolean } = {},
): StockPlan {
  const index = new LiveInventoryIndex();
  for (const i of items) index.add(i);
  const cols = header(...names);
  const { columns, issues } = resolveStockColumns('stock.csv', cols);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  const planner = new StockPlanner(index, columns, options);
  rows.forEach((cells, n) => {
    const record: Record<string, CellValue> = {};
    cols.forEach((c, i) => (record[c.key] = cells[i] ?? ''));
    planner.add({ sheet: 'stock.csv', rowNumber: n + 2, cells: record });
  });
  return planner.finish();
}

describe('stock plan', () => {
  const live = () => [item('i1', 'A-1', 5), item('i2', 'A-2', 0), item('i3', '000123', 7)];

  it('plans only the items whose quantity changes, as absolute values', () => {
    const p = plan(
      ['sku', 'quantity'],
      [
        ['A-1', '5'],
        ['A-2', '3'],
        ['000123', 7],
      ],
      live(),
    );
    expect(p.unchanged).toBe(2);
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({
      itemId: 'i2',
      before: 0,
      after: 3,
      mode: 'quantity',
      value: 3,
      rowNumber: 3,
    });
  });

  it('keeps delta rows as deltas and skips zero deltas', () => {
    const p = plan(
      ['SKU', 'Delta_Quantity'],
      [
        ['A-1', '-2'],
        ['A-2', '0'],
      ],
      live(),
    );
    expect(p.changes).toEqual([
      expect.objectContaining({ itemId: 'i1', mode: 'delta', value: -2, after: 3 }),
    ]);
    expect(p.unchanged).toBe(1);
  });

  it('turns absolute quantities into deltas from the planned quantity with preserveSales', () => {
    const p = plan(['sku', 'quantity'], [['A-1', '9']], live(), { preserveSales: true });
    expect(p.changes[0]).toMatchObject({ mode: 'delta', value: 4, before: 5, after: 9 });
  });

  it('reports every row error with its cell', () => {
    const items = [...live(), item('i4', 'DUP', 1), item('i5', 'DUP', 1), item('i6', 'FRESH', 1)];
    const p = plan(
      ['sku', 'quantity', 'delta_quantity'],
      [
        ['NOPE', '1', ''],
        ['A-1', '1', ''],
        ['A-1', '2', ''],
        ['DUP', '1', ''],
        ['A-2', '-1', ''],
        ['000123', '1.5', ''],
        ['FRESH', '', ''],
      ],
      items,
    );
    const byRow = Object.fromEntries(p.issues.map((i) => [i.rowNumber, [i.code, i.column]]));
    expect(byRow).toEqual({
      2: ['unknown_sku', 'A'],
      4: ['duplicate_sku', 'A'],
      5: ['ambiguous_sku', 'A'],
      6: ['invalid_quantity', 'B'],
      7: ['invalid_quantity', 'B'],
      8: ['missing_quantity', 'B'],
    });
  });

  it('a SKU Excel turned into scientific notation is named as such, not as an unknown SKU', () => {
    const p = plan(['sku', 'quantity'], [['8.50123E+12', '3']], live());
    expect(p.issues.map((i) => [i.code, i.message])).toEqual([
      [
        'excel_scientific',
        'Excel turned this into 8.50123E+12: format the column as text and export again (the digits are lost in this file)',
      ],
    ]);
  });

  it('rejects a row with both quantity and delta, and a delta below zero', () => {
    const p = plan(
      ['sku', 'quantity', 'delta_quantity'],
      [
        ['A-1', '1', '1'],
        ['A-2', '', '-1'],
      ],
      live(),
    );
    expect(p.issues.map((i) => [i.rowNumber, i.code, i.column])).toEqual([
      [2, 'both_quantity_and_delta', 'C'],
      [3, 'negative_result', 'C'],
    ]);
  });

  it('reports items whose inventory is not enabled instead of dropping them', () => {
    const index = LiveInventoryIndex.fromProducts([]);
    index.add(item('i9', 'OFF', 1, false));
    index.untracked.set('NOITEM', 'Gift card');
    const cols = header('sku', 'quantity');
    const { columns } = resolveStockColumns('s', cols);
    const planner = new StockPlanner(index, columns);
    planner.add({ sheet: 's', rowNumber: 2, cells: { sku: 'OFF', quantity: '4' } });
    planner.add({ sheet: 's', rowNumber: 3, cells: { sku: 'NOITEM', quantity: '4' } });
    const p = planner.finish();
    expect(p.changes).toEqual([]);
    expect(p.skipped.map((s) => s.rowNumber)).toEqual([2, 3]);
    expect(p.skipped[1]?.reason).toMatch(/Gift card/);
  });

  it("points a product-with-variants SKU to its variants' SKUs", () => {
    const index = new LiveInventoryIndex();
    index.parents.set('TEE', 'Classic Tee');
    const { columns } = resolveStockColumns('s', header('sku', 'quantity'));
    const planner = new StockPlanner(index, columns);
    planner.add({ sheet: 's', rowNumber: 2, cells: { sku: 'TEE', quantity: '4' } });
    const [issue] = planner.finish().issues;
    expect(issue).toMatchObject({ code: 'product_has_variants', column: 'A' });
    expect(issue?.message).toMatch(/Classic Tee.*per variant/);
  });

  it('finds items by item_id and checks an accompanying sku', () => {
    const p = plan(
      ['item_id', 'sku', 'quantity'],
      [
        ['i1', 'A-1', '8'],
        ['i2', 'WRONG', '1'],
      ],
      live(),
    );
    expect(p.changes.map((c) => c.itemId)).toEqual(['i1']);
    expect(p.issues.map((i) => i.code)).toEqual(['sku_item_mismatch']);
  });

  it('needs a key column and a quantity column', () => {
    const { issues } = resolveStockColumns('s', header('name', 'price'));
    expect(issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual([
      'missing_key_column',
      'missing_quantity_column',
    ]);
  });
});

describe('--max-changes', () => {
  it('parses counts and percentages', () => {
    expect(parseMaxChanges('50')).toEqual({ count: 50 });
    expect(parseMaxChanges('10%')).toEqual({ percent: 10 });
    expect(parseMaxChanges('ten')).toBeUndefined();
    expect(parseMaxChanges('150%')).toBeUndefined();
    expect(parseMaxChanges('0%')).toBeUndefined();
  });
  it('refuses plans above the limit', () => {
    expect(checkMaxChanges(5, 100, { count: 5 })).toBeUndefined();
    expect(checkMaxChanges(6, 100, { count: 5 })).toMatch(/6 items/);
    expect(checkMaxChanges(11, 100, { percent: 10 })).toMatch(/10% of 100 items = 10/);
    // A small percentage of a small store still allows one change.
    expect(checkMaxChanges(1, 69, { percent: 1 })).toBeUndefined();
    expect(checkMaxChanges(2, 69, { percent: 1 })).toMatch(/= 1/);
  });
});
