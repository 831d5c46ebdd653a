import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { xlsxWith } from '../../helpers/hostile-files.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * Issue 11, "Clean errors": an XLSX the reader cannot read is refused with exit 2 and a message
 * naming the file, the sheet and (when known) the cell, never exceljs's own words ("reading
 * 'length'", "Invalid Address", "A Cell needs a Row") nor a stack trace. Files are built here.
 */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-xlsx-errors-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD =
  '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const TAIL = '</sheetData></worksheet>';
const text = (t: string, r?: string) =>
  `<c${r === undefined ? '' : ` r="${r}"`} t="inlineStr"><is><t>${t}</t></is></c>`;
const num = (n: number, r?: string) => `<c${r === undefined ? '' : ` r="${r}"`}><v>${n}</v></c>`;
const HEADER_ROW = `<row r="1">${text('sku', 'A1')}${text('quantity', 'B1')}</row>`;

function write(name: string, data: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

/** A stock workbook of `rows` valid rows (each cell addressed). */
function stockXml(rows: number): string {
  let xml = HEAD + HEADER_ROW;
  for (let i = 2; i <= rows + 1; i++)
    xml += `<row r="${i}">${text(`SKU-${i}`, `A${i}`)}${num(i, `B${i}`)}</row>`;
  return xml + TAIL;
}

const LEAKS = /reading 'length'|Invalid Address|A Cell needs a Row|TypeError|\n\s+at /;

async function importStock(path: string) {
  return runCli(['import', 'stock', path, '--sandbox-data', join(dir, 'sandbox.json')], {}, dir);
}

describe('XLSX reader failures are named by file, sheet and cell (issue 11)', () => {
  it('cells without an r attribute: exit 2 naming the sheet and the cell', async () => {
    const path = write(
      'no-address.xlsx',
      xlsxWith(
        Buffer.from(
          `${HEAD}<row>${text('sku')}${text('quantity')}</row><row>${text('A')}${num(4)}</row>${TAIL}`,
        ),
      ),
    );
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: sheet "stock", cell 1 of row 1 has no address`);
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it('only one cell lacks its address, deep in the sheet: that cell is named', async () => {
    const rows = stockXml(3000).replace('<c r="B2500">', '<c>');
    const path = write('one-missing.xlsx', xlsxWith(Buffer.from(rows)));
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sheet "stock", cell 2 of row 2500 has no address');
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it.each([
    ['digits first', '1B'],
    ['lower case', 'b2'],
    ['past column XFD', 'XFE2'],
    ['no row', 'B'],
  ])('a malformed cell address (%s): exit 2 quoting it', async (_what, ref) => {
    const xml = `${HEAD}${HEADER_ROW}<row r="2">${text('TEE-LIN-SND-M', 'A2')}${num(4, ref)}</row>${TAIL}`;
    const path = write(`bad-address-${ref}.xlsx`, xlsxWith(Buffer.from(xml)));
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: sheet "stock", cell 2 of row 2 has the address "${ref}"`);
    expect(r.stderr).toContain('not a cell reference');
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it('a corrupt ZIP: exit 2 naming the file', async () => {
    const path = write(
      'corrupt.xlsx',
      Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(600, 7)]),
    );
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path} is damaged: it is not a complete ZIP file`);
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it('a truncated XLSX (the download was cut): exit 2 naming the file', async () => {
    const whole = xlsxWith(Buffer.from(stockXml(2000)));
    const path = write('truncated.xlsx', whole.subarray(0, Math.floor(whole.length * 0.6)));
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path} is damaged`);
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it('damaged compressed data inside an intact ZIP: exit 2 naming the file and the sheet', async () => {
    const zip = xlsxWith(Buffer.from(stockXml(2000)));
    // The sheet's deflate stream follows its local header and name; scribble over its middle.
    const at = zip.indexOf('xl/worksheets/sheet1.xml') + 'xl/worksheets/sheet1.xml'.length;
    for (let i = at + 200; i < at + 400; i++) zip[i] = (i * 131) & 0xff;
    const path = write('scribbled.xlsx', zip);
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: sheet "stock" could not be read`);
    expect(r.stderr).not.toMatch(LEAKS);
  });

  it('sheet XML cut in the middle of a row: exit 2 naming the file and the sheet', async () => {
    const xml = stockXml(500);
    const path = write(
      'cut-xml.xlsx',
      xlsxWith(Buffer.from(xml.slice(0, xml.indexOf('<row r="300">') + 20))),
    );
    const r = await importStock(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: sheet "stock" ends in the middle of its data (after row 300)`);
    expect(r.stderr).not.toMatch(LEAKS);
  });
});
