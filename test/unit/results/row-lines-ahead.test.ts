import { describe, expect, it } from 'vitest';
import { RowLinesAhead } from '../../../src/results/row-lines-ahead.js';
import { resultFields } from '../../../src/results/row-result.js';
import { csvLine } from '../../../src/sheets/csv-file-writer.js';

describe('RowLinesAhead', () => {
  it("writes a plain row's line, the same bytes as its fields encoded, from label to label and across its buffers", () => {
    const labels = ['stock.csv', '=sheet, "2026"', 'Ünïcode ✓ 😀', 'tab\there'];
    const outcomes = ['unchanged', 'skipped', 'updated', 'left_out'] as const;
    const numbers = [0, 1, 9, 10, 99, 100, 1_000_001, 2 ** 31 + 5, Number.MAX_SAFE_INTEGER];
    for (const delimiter of [',', ';']) {
      const ahead = new RowLinesAhead([], {}, delimiter);
      let expected = '';
      let rows = 0;
      const plain = (sheet: string, rowNumber: number, outcome: (typeof outcomes)[number]) => {
        ahead.addPlain({ sheet: 'stock.csv', rowNumber, cells: {} }, sheet, outcome);
        expected += csvLine(resultFields({ sheet, row: rowNumber, outcome }, {}, []), delimiter);
        rows++;
      };
      // Every label and outcome after every other one, then runs of one (past a 256 KiB buffer).
      for (const row of numbers)
        for (const sheet of labels) for (const outcome of outcomes) plain(sheet, row, outcome);
      for (const sheet of labels) for (let row = 2; row < 6000; row++) plain(sheet, row, 'unchanged');
      const { pieces, counts } = ahead.take();
      const bytes = Buffer.concat(pieces.map((p) => ('lines' in p ? p.lines.results : new Uint8Array())));
      expect(pieces.length).toBeGreaterThan(1);
      expect(bytes.toString('utf8')).toBe(expected);
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(rows);
      expect(counts.unchanged).toBe(numbers.length * labels.length + labels.length * 5998);
    }
  });
});
