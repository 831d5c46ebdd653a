import { describe, expect, it } from 'vitest';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import type { SheetRow } from '../../../src/sheets/sheet-row.js';
import { tempFiles } from './temp-files.js';

const files = tempFiles();

async function rows(text: string): Promise<SheetRow[]> {
  const out: SheetRow[] = [];
  for await (const row of readSheet(files.write(`f${Math.random().toString(36).slice(2)}.csv`, text)))
    out.push(row);
  return out;
}

const cut = (list: SheetRow[]) => list.filter((r) => r.cutShort === true).map((r) => r.rowNumber);

describe('a CSV cut mid-line (issue 10, case 5)', () => {
  it('marks the last row when the file ends without a line break on a row with fewer fields', async () => {
    expect(cut(await rows('sku,quantity,name\nA,1,x\nB,2'))).toEqual([3]);
    expect(cut(await rows('sku,quantity\r\nA,1\r\nB'))).toEqual([3]);
  });

  it('leaves complete files alone', async () => {
    expect(cut(await rows('sku,quantity\nA,1\nB\n'))).toEqual([]); // short row, but the file ends cleanly
    expect(cut(await rows('sku,quantity\nA,1\nB,2'))).toEqual([]); // every field, no final newline
    expect(cut(await rows('sku,quantity\nA,1\nB,'))).toEqual([]);
    expect(cut(await rows('sku,,quantity\nA,,1\nB,,2'))).toEqual([]);
  });
});
