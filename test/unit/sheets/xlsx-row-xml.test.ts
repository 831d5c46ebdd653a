/**
 * XlsxSheetWriter writes data rows' XML itself (issue 26: exceljs's Row and Cell objects and XML
 * stream were most of an order export's time). Its rows must be byte for byte what exceljs writes
 * for the same values through its own rows, as the writer did before: the reference here is
 * exceljs's WorkbookWriter fed the way the writer fed it (values converted, the column's style
 * object on every cell).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import { minorToUnits } from '../../../src/sheets/money.js';
import { neutralizeXlsxText } from '../../../src/sheets/neutralize-formula.js';
import { normalizeCell, type SheetSpec } from '../../../src/sheets/sheet-writer.js';
import { columnNumFmt, escapeXlsxText } from '../../../src/sheets/xlsx-sheet-writer.js';
import { ZipDirectory } from '../../../src/sheets/zip-directory.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-xlsx-rows-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec: SheetSpec = {
  name: 'rows',
  columns: [
    { key: 'id', header: 'id', type: 'text' },
    { key: 'total', header: 'total', type: 'money' },
    { key: 'quantity', header: 'quantity', type: 'integer' },
    { key: 'rate', header: 'rate', type: 'number' },
    { key: 'paid', header: 'paid', type: 'boolean' },
    { key: 'at', header: 'at', type: 'datetime' },
    { key: 'day', header: 'day', type: 'date' },
    { key: 'note', header: 'note', type: 'text' },
  ],
};

const NASTY = [
  '=1+1',
  'a<b>&"c\'',
  'ctrl\u0001\u007f\tkept',
  'cr\r\nlf',
  '_x0041_ literal',
  ' lead',
  '@risk',
  '漢字 🎉',
];
const rows: Record<string, unknown>[] = [
  ...NASTY.map((note, i) => ({
    id: `ord_${i}`,
    total: i * 1999 - 5000,
    quantity: i,
    rate: i / 7,
    paid: i % 2 === 0,
    at: new Date(Date.UTC(2026, 2, 8, 6, 59, i)),
    day: '2026-02-0' + String(i + 1),
    note,
  })),
  { id: 'only-id' },
  {}, // no value: exceljs leaves the row out
  { note: 'last', total: 0, paid: false },
];

/** The XML between `<sheetData>` and `</sheetData>` after the header row. */
async function dataRows(path: string, part: string): Promise<string> {
  const zip = await ZipDirectory.open(path);
  try {
    const stream = await zip.streamBounded(part, { maxBytes: 50_000_000, maxRatio: 1000 });
    const xml = await text(stream!);
    return xml.slice(xml.indexOf('<row r="2"'), xml.indexOf('</sheetData>'));
  } finally {
    await zip.close();
  }
}

it('writes each data row byte for byte as exceljs’s own rows, streamed or spooled', async () => {
  const ours = join(dir, 'ours.xlsx');
  const writer = createSheetWriter(ours, {
    format: 'xlsx',
    currencyDecimals: 2,
    timezone: 'America/New_York',
  });
  const first = await writer.addSheet(spec);
  const second = await writer.addSheet({ ...spec, name: 'spooled' }); // written while `rows` streams
  for (const row of rows) {
    await first.write(row);
    await second.write(row);
  }
  await writer.close();

  const reference = join(dir, 'reference.xlsx');
  const out = createWriteStream(reference);
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = book.addWorksheet('rows');
  const styles = spec.columns.map((c) => {
    const numFmt = columnNumFmt(c.type, 2);
    return numFmt ? { numFmt } : {};
  });
  sheet.columns = spec.columns.map((c, i) => ({
    key: c.key,
    width: 12,
    style: styles[i] as Partial<ExcelJS.Style>,
  }));
  const header = sheet.addRow(spec.columns.map((c) => c.header));
  header.eachCell((cell) => (cell.style = { font: { bold: true } }));
  header.commit();
  rows.forEach((row, r) => {
    const values: unknown[] = [];
    spec.columns.forEach((c, i) => {
      const cell = normalizeCell(row[c.key], c, 'America/New_York', {
        sheet: 'rows',
        unit: 'row',
        row: r + 2,
      });
      if (cell === null) return;
      values[i + 1] =
        c.type === 'text'
          ? neutralizeXlsxText(escapeXlsxText(cell as string))
          : c.type === 'money'
            ? minorToUnits(cell as number, 2)
            : cell;
    });
    const added = sheet.addRow(values);
    values.forEach((v, i) => {
      if (v !== undefined) added.getCell(i).style = styles[i - 1] as Partial<ExcelJS.Style>;
    });
    added.commit();
  });
  sheet.commit();
  await book.commit();
  if (!out.closed) await once(out, 'close');

  const expected = await dataRows(reference, 'xl/worksheets/sheet1.xml');
  expect(expected).toContain('<row r="10"');
  expect(expected).not.toContain('<row r="11"'); // the empty row
  expect(await dataRows(ours, 'xl/worksheets/sheet1.xml')).toBe(expected);
  expect(await dataRows(ours, 'xl/worksheets/sheet2.xml')).toBe(expected);
});
