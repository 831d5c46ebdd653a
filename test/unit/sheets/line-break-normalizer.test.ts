import { describe, expect, it } from 'vitest';
import { LineBreakNormalizer, type LineBreak } from '../../../src/sheets/line-break-normalizer.js';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import type { SheetRow } from '../../../src/sheets/sheet-row.js';
import { tempFiles } from './temp-files.js';

const files = tempFiles();

function normalizeIn(pieces: string[], target: LineBreak, delimiter = ','): string {
  const n = new LineBreakNormalizer(delimiter, target);
  return pieces.map((p) => n.push(p)).join('') + n.end();
}

/** Every way of cutting `text` in two, plus one piece per character. */
function cuts(text: string): string[][] {
  const all: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  return all;
}

async function readRows(name: string, text: string): Promise<SheetRow[]> {
  const sheet = readSheet(files.write(name, text));
  await sheet.open();
  const rows: SheetRow[] = [];
  for await (const row of sheet) rows.push(row);
  return rows;
}

describe('line break normalisation', () => {
  it.each([
    ['\n', 'a,b\r\n1,x\n2,y\r3,z\r\n', 'a,b\n1,x\n2,y\n3,z\n'],
    ['\r\n', 'a,b\r\n1,x\n2,y\r3,z\r\n', 'a,b\r\n1,x\r\n2,y\r\n3,z\r\n'],
    ['\r', 'a,b\r1,x\r\n2,y\n', 'a,b\r1,x\r2,y\r'],
  ] as const)(
    'rewrites every line break outside quotes to %j, however the text is cut',
    (target, input, expected) => {
      for (const pieces of cuts(input)) expect(normalizeIn(pieces, target)).toBe(expected);
    },
  );

  it('keeps line breaks inside quoted cells, escaped quotes included, however the text is cut', () => {
    const input = 'a,b\r\n"x\ny","say ""hi""\r\nthere"\n1,"""\r"\r\n2,5" screen\n3,z';
    const expected = 'a,b\r\n"x\ny","say ""hi""\r\nthere"\r\n1,"""\r"\r\n2,5" screen\r\n3,z';
    for (const pieces of cuts(input)) expect(normalizeIn(pieces, '\r\n')).toBe(expected);
  });

  it('passes text with nothing to change through unchanged', () => {
    const text = 'sku;qty\r\nA;1\r\n"B\nC";2\r\n';
    expect(normalizeIn([text], '\r\n', ';')).toBe(text);
  });
});

describe('CSV files whose line endings change midway', () => {
  it('reads every row of a CRLF file that continues in LF (rows used to merge)', async () => {
    const rows = await readRows('crlf-then-lf.csv', 'sku,quantity\r\nA,1\r\nB,2\nC,3\nD,4\r\n');
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([
      [2, { sku: 'A', quantity: '1' }],
      [3, { sku: 'B', quantity: '2' }],
      [4, { sku: 'C', quantity: '3' }],
      [5, { sku: 'D', quantity: '4' }],
    ]);
  });

  it('reads a lone CR as a line break in an LF file, and keeps quoted line breaks as written', async () => {
    const rows = await readRows('lf-cr.csv', 'sku,note\nA,"one\r\ntwo"\nB,x\rC,"3\r4"\nD,y\n');
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([
      [2, { sku: 'A', note: 'one\r\ntwo' }],
      [3, { sku: 'B', note: 'x' }],
      [4, { sku: 'C', note: '3\r4' }],
      [5, { sku: 'D', note: 'y' }],
    ]);
  });

  it('keeps rows apart across chunk boundaries when the endings alternate', async () => {
    const lines = ['sku,note'];
    for (let i = 0; i < 60_000; i++) lines.push(`S${i},"n ""${i}""\n${i % 3 === 0 ? 'x' : 'y'}"`);
    const breaks = ['\r\n', '\n', '\r'];
    const text = lines.map((l, i) => l + (breaks[i % 3] ?? '\n')).join('');
    expect(text.length).toBeGreaterThan(1 << 20);
    const rows = await readRows('alternating.csv', text);
    expect(rows).toHaveLength(60_000);
    const bad = rows.filter(
      (r, i) =>
        r.rowNumber !== i + 2 ||
        r.cells.sku !== `S${i}` ||
        r.cells.note !== `n "${i}"\n${i % 3 === 0 ? 'x' : 'y'}`,
    );
    expect(bad).toEqual([]);
  });
});
