import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { listSheets, readSheet } from '../../../src/sheets/read-sheet.js';
import type { ReadSheetOptions } from '../../../src/sheets/read-sheet.js';
import { SheetError } from '../../../src/sheets/sheet-error.js';
import type { SheetRow } from '../../../src/sheets/sheet-row.js';
import { tempFiles } from './temp-files.js';

const files = tempFiles();

async function readAll(path: string, options: ReadSheetOptions = {}) {
  const sheet = readSheet(path, options);
  const info = await sheet.open();
  const rows: SheetRow[] = [];
  for await (const row of sheet) rows.push(row);
  return { info, rows, warnings: sheet.warnings };
}

async function readError(path: string, options: ReadSheetOptions = {}): Promise<SheetError> {
  try {
    await readAll(path, options);
  } catch (error) {
    expect(error).toBeInstanceOf(SheetError);
    return error as SheetError;
  }
  throw new Error(`expected ${path} to fail`);
}

async function writeWorkbook(name: string, build: (wb: ExcelJS.Workbook) => void): Promise<string> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  const path = `${files.dir}/${name}`;
  await wb.xlsx.writeFile(path);
  return path;
}

const catalog = await writeWorkbook('catalog.xlsx', (wb) => {
  const products = wb.addWorksheet('Products');
  products.getRow(1).values = ['Catalog export']; // a title row above the header is not skipped: it is the header
  const notes = wb.addWorksheet('Notes', { state: 'hidden' });
  notes.getCell('A1').value = 'note';
  notes.getCell('A2').value = 'hello';
  const data = wb.addWorksheet('Data');
  data.getCell('B3').value = '  SKU ';
  data.getCell('C3').value = 'Name';
  data.getCell('D3').value = 'Price';
  data.getCell('E3').value = 'Active';
  data.getCell('F3').value = 'Launch';
  data.getCell('G3').value = 'Stock';
  data.getCell('H3').value = 'Link';
  data.getCell('I3').value = 'Label';
  // row 4: every type
  data.getCell('B4').value = 'SKU-1';
  data.getCell('C4').value = { richText: [{ text: 'Bold ', font: { bold: true } }, { text: 'tea' }] };
  data.getCell('D4').value = 19.99;
  data.getCell('E4').value = true;
  data.getCell('F4').value = new Date(Date.UTC(2024, 1, 29));
  data.getCell('F4').numFmt = 'yyyy-mm-dd';
  data.getCell('G4').value = { formula: 'D4*0', result: 0 };
  data.getCell('H4').value = { text: 'Shop page', hyperlink: 'https://example.com/p/1' };
  data.getCell('I4').value = { formula: 'IF(TRUE,"","x")', result: '' };
  // row 5 blank, row 6: errors and a formula date
  data.getCell('B6').value = 'SKU-2';
  data.getCell('D6').value = { error: '#N/A' };
  data.getCell('F6').value = { formula: 'F4+1', result: 45352 };
  data.getCell('F6').numFmt = 'dd/mm/yyyy';
  data.getCell('G6').value = { formula: '1/0', result: { error: '#DIV/0!' } };
  data.getCell('I6').value = 'A_x005F_x000D_B';
  data.mergeCells('C6:C7');
  data.getCell('C6').value = 'merged';
  data.getCell('B7').value = 'SKU-3';
  data.getCell('J7').value = 'stray';
});

describe('XLSX reader', () => {
  it('lists sheets in workbook order with their state', async () => {
    expect(await listSheets(catalog)).toEqual([
      { name: 'Products', state: 'visible' },
      { name: 'Notes', state: 'hidden' },
      { name: 'Data', state: 'visible' },
    ]);
  });

  it('reads the first visible sheet by default', async () => {
    const { info, rows } = await readAll(catalog);
    expect(info.sheet).toBe('Products');
    expect(info.sheetNames).toEqual(['Products', 'Notes', 'Data']);
    expect(info.columns.map((c) => c.header)).toEqual(['Catalog export']);
    expect(rows).toEqual([]);
  });

  it('reads a sheet by name, case-insensitively, with every cell type', async () => {
    const { info, rows, warnings } = await readAll(catalog, { sheet: 'data' });
    expect(info.sheet).toBe('Data');
    expect(info.columns.map((c) => [c.key, c.letter])).toEqual([
      ['sku', 'B'],
      ['name', 'C'],
      ['price', 'D'],
      ['active', 'E'],
      ['launch', 'F'],
      ['stock', 'G'],
      ['link', 'H'],
      ['label', 'I'],
    ]);
    expect(rows.map((r) => r.rowNumber)).toEqual([4, 6, 7]);
    expect(rows[0]?.cells).toEqual({
      sku: 'SKU-1',
      name: 'Bold tea',
      price: 19.99,
      active: true,
      launch: new Date(Date.UTC(2024, 1, 29)),
      stock: 0,
      link: 'Shop page',
      label: '',
    });
    expect(rows[1]?.cells).toEqual({
      sku: 'SKU-2',
      name: 'merged',
      price: null,
      active: null,
      launch: new Date(Date.UTC(2024, 2, 1)),
      stock: null,
      link: null,
      label: 'A_x000D_B',
    });
    expect(rows[2]?.cells).toMatchObject({ sku: 'SKU-3', name: null });
    expect(warnings.map((w) => [w.code, w.rowNumber])).toEqual([
      ['cell_error', 6],
      ['cell_error', 6],
      ['extra_cells', 7],
    ]);
    expect(warnings[0]?.message).toMatch(/D6 shows #N\/A/);
    expect(rows[0]?.sheet).toBe('Data');
  });

  it('names the available sheets when the sheet is missing, unless it is optional', async () => {
    const error = await readError(catalog, { sheet: 'options' });
    expect(error.code).toBe('sheet_not_found');
    expect(error.message).toContain('"Products", "Notes", "Data"');
    const { info, rows } = await readAll(catalog, { sheet: 'options', optionalSheet: true });
    expect(info.missing).toBe(true);
    expect(info.columns).toEqual([]);
    expect(rows).toEqual([]);
  });

  it('applies the 1904 date system', async () => {
    const path = await writeWorkbook('mac.xlsx', (wb) => {
      wb.properties.date1904 = true;
      const ws = wb.addWorksheet('S');
      ws.getCell('A1').value = 'date';
      ws.getCell('A2').value = new Date(Date.UTC(2021, 0, 1));
      ws.getCell('A2').numFmt = 'yyyy-mm-dd';
    });
    const { rows } = await readAll(path);
    expect(rows[0]?.cells.date).toEqual(new Date(Date.UTC(2021, 0, 1)));
  });

  it('reads a date cell whose serial is out of range as blank with a warning, never an Invalid Date', async () => {
    const path = await writeWorkbook('bad-date.xlsx', (wb) => {
      const ws = wb.addWorksheet('S');
      ws.getCell('A1').value = 'launch';
      ws.getCell('B1').value = 'sku';
      ws.getCell('A2').value = { formula: 'B2*1', result: 1e12 };
      ws.getCell('B2').value = 'SKU-1';
      ws.getCell('A2').numFmt = 'yyyy-mm-dd';
    });
    const { rows, warnings } = await readAll(path);
    // An Invalid Date would make every codec throw "Invalid time value" (toISOString).
    expect(rows[0]?.cells).toEqual({ launch: null, sku: 'SKU-1' });
    expect(warnings.map((w) => w.code)).toContain('cell_error');
  });

  it('refuses files that are not XLSX, saying what they are', async () => {
    const text = files.write('text.xlsx', 'sku,quantity\nA,1\n');
    const textError = await readError(text);
    expect(textError.code).toBe('not_xlsx');
    expect(textError.message).toMatch(/rename it to \.csv/);
    const zip = files.write('other.xlsx', Buffer.from('504b0506000000000000000000000000000000000000', 'hex'));
    expect((await readError(zip)).code).toBe('not_xlsx');
    const truncated = files.write('truncated.xlsx', Buffer.from('504b03040a00000000000000', 'hex'));
    expect((await readError(truncated)).code).toBe('corrupt_xlsx');
    expect((await readError(files.write('empty.xlsx', ''))).code).toBe('empty_file');
    const cfb = Buffer.from([
      0xd0,
      0xcf,
      0x11,
      0xe0,
      0xa1,
      0xb1,
      0x1a,
      0xe1,
      ...new Array<number>(504).fill(0),
    ]);
    const xls = await readError(files.write('old.xls', cfb));
    expect(xls.code).toBe('xls_not_supported');
    expect(xls.message).toMatch(/save it as "Excel Workbook \(\.xlsx\)"/);
  });

  it('enforces row and cell limits', async () => {
    const path = await writeWorkbook('limits.xlsx', (wb) => {
      const ws = wb.addWorksheet('S');
      ws.addRow(['sku', 'name']);
      for (let i = 0; i < 5; i++) ws.addRow([`S${i}`, 'x'.repeat(i * 10)]);
    });
    expect((await readError(path, { limits: { maxRows: 4 } })).code).toBe('too_many_rows');
    const long = await readError(path, { limits: { maxCellChars: 25 } });
    expect([long.code, long.rowNumber, long.column]).toEqual(['cell_too_long', 5, 'B']);
  });

  it('refuses duplicate headers', async () => {
    const path = await writeWorkbook('dup.xlsx', (wb) => {
      wb.addWorksheet('S').addRow(['SKU', 'Price', 'sku']);
    });
    expect((await readError(path)).code).toBe('duplicate_header');
  });
});
