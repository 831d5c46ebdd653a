import { describe, expect, it, vi } from 'vitest';
import { resolveStockColumns } from '../../../src/mapping/stock-sheet.js';
import { LiveInventoryIndex } from '../../../src/plan/live-inventory-index.js';
import { liveItem } from './live-fixture.js';
import { StockPlanner, type StockPlan } from '../../../src/plan/stock-plan.js';
import { StockSheetDigest } from '../../../src/plan/stock-sheet-digest.js';
import {
  columnLetter,
  type CellValue,
  type SheetColumn,
  type SheetRow,
} from '../../../src/sheets/sheet-row.js';

function header(...headers: string[]): SheetColumn[] {
  return headers.map((h, index) => ({ header: h, key: h, letter: columnLetter(index), index }));
}

const item = liveItem;

function index(): LiveInventoryIndex {
  const live = new LiveInventoryIndex();
  const items = [
    item('i1', 'A-1', 5),
    item('i2', 'A-2', 0),
    item('i3', 'TWIN', 1),
    item('i4', 'TWIN', 1),
    item('i5', 'OFF', 3, false),
    item('i6', 'Ünï-✓', 7),
    item('i7', '42', 42),
    item('i8', 'BIG', 2 ** 31 + 1),
    item('i9', 'A-1 ', 9),
    item('i10', 'ZERO', 0),
    item('i11', 'ELSEWHERE', 8),
  ];
  for (const i of items) live.add(i);
  for (let n = 0; n < 200; n++) live.add(item(`m${n}`, `M-${n}`, n));
  live.untracked.set('GIFT', 'Gift card');
  live.parents.set('TEE', 'Classic Tee');
  return live;
}

/** Rows of every kind: plain and unchanged, plain and changed, and every row `add` reports. */
function rows(): SheetRow[] {
  const cells: [CellValue, CellValue][] = [
    ['A-1', '5'],
    ['A-2', '3'],
    ['TWIN', '1'],
    ['OFF', '3'],
    ['GIFT', '1'],
    ['GIFT', '2'],
    ['TEE', '4'],
    ['NOPE', '1'],
    ['1.23E+10', '1'],
    [' A-2', '0'],
    ['A-1\u00A0', '5'],
    ['A-1 ', '9'],
    ['', '4'],
    ['A-2', ''],
    ['A-2', 'x'],
    ['Ünï-✓', '-1'],
    ['Ünï-✓', '7.0'],
    ['Ünï-✓', '+7'],
    [42, 42],
    ['BIG', String(2 ** 31 + 1)],
    ['A-1', '6'],
  ];
  for (let n = 0; n < 200; n++) cells.push([`M-${n}`, String(n % 3 === 0 ? n + 1 : n)]);
  // A plain unchanged row named twice: the second is a duplicate. A quantity of -0.
  cells.push(['M-1', '1'], ['ZERO', '-0']);
  const out: SheetRow[] = cells.map(([sku, quantity], i) => ({
    sheet: 'stock.csv',
    rowNumber: i + 2,
    cells: { sku, quantity },
  }));
  out.push({ sheet: 'stock.csv', rowNumber: out.length + 2, cells: { sku: 'M-7' }, cutShort: true });
  // A row of another sheet (a workbook's): kept whole.
  out.push({ sheet: 'other', rowNumber: 2, cells: { sku: 'ELSEWHERE', quantity: '8' } });
  return out;
}

describe('StockSheetDigest', () => {
  const { columns } = resolveStockColumns('stock.csv', header('sku', 'quantity'));

  it('plans the rows it kept exactly as `add` plans them as read, most of them without a row', () => {
    const byAdd = new StockPlanner(index(), columns);
    for (const row of rows()) byAdd.add(row);
    const expected: StockPlan = byAdd.finish();

    const digest = StockSheetDigest.of(columns) as StockSheetDigest;
    for (const row of rows()) digest.add(row);
    expect(digest.rows).toBe(rows().length);
    const replayed = new StockPlanner(index(), columns);
    const add = vi.spyOn(replayed, 'add');
    digest.replay(replayed);
    const plan = replayed.finish();
    expect(plan).toEqual(expected);
    // What it kept is let go once planned.
    expect(digest.rows).toBe(0);
    // Sanity: the plan has something of every kind, and the unchanged plain rows did not need `add`.
    expect(plan.changes.length).toBeGreaterThan(60);
    expect(plan.skipped.length).toBe(2);
    expect(new Set(plan.issues.map((i) => i.code)).size).toBeGreaterThan(8);
    // Three unchanged rows are kept whole (a number for a SKU, a quantity past 32 bits, a row of
    // another sheet): through `add`.
    expect(add.mock.calls.length).toBe(rows().length - plan.unchanged + 3);
    expect(plan.unchanged).toBeGreaterThan(130);
  });

  it('keeps rows of any other kind of sheet to `add`, and says when it is full', () => {
    for (const other of [header('sku', 'delta_quantity'), header('item_id', 'sku', 'quantity')]) {
      expect(StockSheetDigest.of(resolveStockColumns('s', other).columns)).toBeUndefined();
    }
    const digest = StockSheetDigest.of(columns, 1000) as StockSheetDigest;
    let n = 0;
    while (!digest.full)
      digest.add({ sheet: 'stock.csv', rowNumber: 2 + n++, cells: { sku: `SKU-${n}`, quantity: '1' } });
    // 20 bytes and the SKU's code units a row: 1,000 bytes take some 30 rows, not thousands.
    expect(n).toBeGreaterThan(20);
    expect(n).toBeLessThan(40);
  });
});
