import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listSheets, readSheet } from '../../../src/sheets/read-sheet.js';
import type { ReadSheetOptions } from '../../../src/sheets/read-sheet.js';
import { SheetError } from '../../../src/sheets/sheet-error.js';
import type { SheetRow } from '../../../src/sheets/sheet-row.js';

// Real files written by other programs, copied from the team's shared corpus into the project's
// fixtures (test/fixtures/corpus, provenance in its SOURCES.md) so the suite never depends on it.
const here = dirname(fileURLToPath(import.meta.url));
const corpus = resolve(here, '../../fixtures/corpus');
const at = (rel: string) => join(corpus, rel);

async function readAll(rel: string, options: ReadSheetOptions = {}) {
  const sheet = readSheet(at(rel), options);
  const info = await sheet.open();
  const rows: SheetRow[] = [];
  for await (const row of sheet) rows.push(row);
  return { info, rows, warnings: sheet.warnings };
}

async function readError(rel: string, options: ReadSheetOptions = {}): Promise<SheetError> {
  try {
    await readAll(rel, options);
  } catch (error) {
    expect(error).toBeInstanceOf(SheetError);
    return error as SheetError;
  }
  throw new Error(`expected ${rel} to fail`);
}

const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));

describe('corpus: csv-spectrum', () => {
  const names = readdirSync(at('csv-spectrum/csvs')).filter((n) => n.endsWith('.csv'));
  it.each(names)('%s matches its JSON', async (name) => {
    const expected = JSON.parse(
      readFileSync(at(`csv-spectrum/json/${name.replace(/\.csv$/, '.json')}`), 'utf8'),
    ) as Record<string, string> | Array<Record<string, string>>;
    const { info, rows } = await readAll(`csv-spectrum/csvs/${name}`);
    const objects = rows.map((row) =>
      Object.fromEntries(info.columns.map((c) => [c.header, row.cells[c.key]])),
    );
    if (name === 'location_coordinates.csv') {
      // Upstream quirk (SOURCES.md): a single object with a different phone number.
      const only = Array.isArray(expected) ? expected[0] : expected;
      const pick = (o: Record<string, unknown> | undefined) => ({
        'Location Coordinates': o?.['Location Coordinates'],
        Cities: o?.Cities,
        Counties: o?.Counties,
      });
      expect(objects).toHaveLength(1);
      expect(pick(objects[0])).toEqual(pick(only));
      expect(objects[0]?.['Contact Phone Number']).toBe('2095257564');
      return;
    }
    expect(objects).toEqual(expected);
  });
});

describe('corpus: encodings (PhpSpreadsheet fixtures)', () => {
  const dir = 'encodings/phpspreadsheet';
  it.each([
    ['encoding.utf8.csv', 'utf-8'],
    ['encoding.utf8bom.csv', 'utf-8'],
    ['encoding.iso88591.csv', 'windows-1252'],
    ['encoding.utf16le.csv', 'utf-16le'],
    ['encoding.utf16be.csv', 'utf-16be'],
  ])('%s reads Å as the first header', async (name, encoding) => {
    const { info, rows } = await readAll(`${dir}/${name}`);
    expect(info.encoding).toBe(encoding);
    expect(info.columns.map((c) => c.header)).toEqual(['Å', '1']);
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([[2, { å: '2', '1': '3' }]]);
  });

  it.each([
    'premiere.utf8.csv',
    'premiere.utf8bom.csv',
    'premiere.win1252.csv',
    'premiere.utf16lebom.csv',
    'premiere.utf16bebom.csv',
    'premiere.utf16le.csv',
  ])('%s decodes the accents', async (name) => {
    const { info, rows, warnings } = await readAll(`${dir}/${name}`);
    expect(info.columns.map((c) => c.header)).toEqual(['première', 'second', 'troisième']);
    expect(rows[0]?.cells).toEqual({ première: 'Quatrième', second: 'cinquième', troisième: 'sixième' });
    if (name === 'premiere.win1252.csv')
      expect(warnings.map((w) => w.code)).toEqual(['encoding_windows_1252']);
    if (name === 'premiere.utf16le.csv') {
      expect(rows[1]?.cells).toEqual({ première: '𐐀', second: '\uFFFE', troisième: '\uFFFF' });
    }
  });

  it.each(['linend.win.csv', 'linend.unix.csv', 'linend.mac.csv'])('%s: all line endings', async (name) => {
    const { rows } = await readAll(`${dir}/${name}`);
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([[2, { a: '2', '1': '3' }]]);
  });

  it('sep.csv: the sep= line sets the delimiter', async () => {
    const { info, rows } = await readAll(`${dir}/sep.csv`);
    expect(info.delimiter).toBe(';');
    expect(info.columns.map((c) => c.header)).toEqual(['A', '1']);
    expect(rows.map((r) => r.cells)).toEqual([{ a: '2', '1': '3' }]);
  });

  it('semicolon_separated.csv: semicolons with a decimal comma', async () => {
    const { info, rows } = await readAll(`${dir}/semicolon_separated.csv`);
    expect(info.delimiter).toBe(';');
    expect(rows.map((r) => r.cells)).toEqual([
      { this: 'Cell A2', are: 'Number with comma', headers: '25,5' },
      { this: 'Two colons and a comma', are: 'B|3', headers: ':,:' },
    ]);
  });

  it.each(['line_break_in_enclosure.csv', 'utf16be.line_break_in_enclosure.csv'])(
    '%s: quoted CRLF line breaks stay in one row',
    async (name) => {
      const { rows } = await readAll(`${dir}/${name}`);
      expect(rows.map((r) => r.rowNumber)).toEqual([2, 3, 4, 5, 6]);
      expect(rows[0]?.cells.copy).toBe('This is a test\r\nwith line breaks\r\nthat breaks the\r\ndelimiters');
    },
  );

  it('line_break_in_enclosure_with_escaped_quotes.csv', async () => {
    const { rows } = await readAll(`${dir}/line_break_in_enclosure_with_escaped_quotes.csv`);
    expect(rows).toHaveLength(4);
    expect(rows[0]?.cells.copy).toBe(
      'This is a "test csv file"\nwith both "line breaks"\nand "escaped\nquotes" that breaks\nthe delimiters',
    );
  });

  it('empty.csv is a clear error', async () => {
    const error = await readError(`${dir}/empty.csv`);
    expect(error.code).toBe('empty_file');
  });

  it('contains_html.csv (no final newline) is a header with no rows', async () => {
    const { info, rows } = await readAll(`${dir}/contains_html.csv`);
    expect(info.columns.map((c) => c.header)).toEqual(['Column A', "<a href=''>Link</a>", 'Column C']);
    expect(rows).toEqual([]);
  });

  it.each(['escape.csv', 'backslash.csv', 'enclosure.csv', 'NumberFormatTest.de.csv'])(
    '%s does not crash',
    async (name) => {
      const { rows } = await readAll(`${dir}/${name}`);
      expect(rows.length).toBeGreaterThan(0);
    },
  );
});

describe('corpus: real exports', () => {
  it.each([
    ['woocommerce/wc-product-export-28-7-2024-1722216242241.csv', ',', 124],
    ['woocommerce/gopoma_sample_products_x16_bom_crlf.csv', ',', 400],
    ['encodings/real-world-bank-exports/commerzbank.csv', ';', undefined],
    ['encodings/real-world-bank-exports/sparkasse-lzo-camt-v2.csv', ';', undefined],
    ['shopify/packt_products_export_1.csv', ',', undefined],
    ['shopify/product_template.csv', ',', undefined],
    ['shopify/forezia_orders_export.csv', ',', 40],
  ])('%s', async (rel, delimiter, count) => {
    const { info, rows } = await readAll(rel);
    expect(info.delimiter).toBe(delimiter);
    expect(info.columns[0]?.header.startsWith('\uFEFF')).toBe(false);
    if (count !== undefined) expect(rows).toHaveLength(count);
    for (const row of rows) expect(Object.keys(row.cells)).toHaveLength(info.columns.length);
  });

  it('WooCommerce export: a BOM-stripped first header and multi-line HTML cells', async () => {
    const { info } = await readAll('woocommerce/wc-product-export-28-7-2024-1722216242241.csv');
    expect(info.columns[0]?.key).toBe('id');
    expect(info.columns).toHaveLength(54);
  });
});

describe('corpus: xlsx', () => {
  it('date.xlsx (1900) and date_1904.xlsx (1904) give the same dates', async () => {
    for (const name of ['date.xlsx', 'date_1904.xlsx']) {
      const { info, rows } = await readAll(`xlsx/calamine/${name}`);
      // No header row in these files: the first row (2021-01-01, 15) is taken as the header.
      expect(info.columns[0]?.header).toBe('2021-01-01T00:00:00.000Z');
      expect(rows[0]?.cells[info.columns[0]?.key ?? '']).toEqual(utc(2021, 1, 2));
    }
  });

  it('1904_Calendar.xlsx: 1904 dates and formula results shown as dates', async () => {
    const { info, rows } = await readAll('xlsx/phpspreadsheet/1904_Calendar.xlsx');
    expect(info.columns.map((c) => c.header)).toEqual([
      '2022-01-01T00:00:00.000Z',
      '2021-12-31T00:00:00.000Z',
    ]);
    expect(Object.values(rows[0]?.cells ?? {})).toEqual([utc(2022, 12, 31), utc(2023, 1, 1)]);
  });

  it('1904-based-dates.xlsx: a chain of formulas caching 41763 (1904) is 2018-05-05', async () => {
    const { rows } = await readAll('xlsx/read-excel-file/1904-based-dates.xlsx');
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(row.cells.date).toEqual(utc(2018, 5, 5));
  });

  it('issues.xlsx: sheets by name, cached formula results (also 0), dates with a style after the sheet', async () => {
    expect((await listSheets(at('xlsx/calamine/issues.xlsx'))).map((s) => s.name)).toEqual([
      'datatypes',
      'Sheet1',
      'issue2',
      'issue5',
      'issue6',
      'spc_chrs',
    ]);
    const { rows } = await readAll('xlsx/calamine/issues.xlsx', { sheet: 'DATATYPES' });
    expect(rows.map((r) => r.cells['1'])).toEqual([1.5, 'ab', 0, 'test', utc(2016, 10, 20)]);
    const issue2 = await readAll('xlsx/calamine/issues.xlsx', { sheet: 'issue2' });
    expect(issue2.info.sheet).toBe('issue2');
  });

  it('shared_formula_simple.xlsx: shared formulas give their cached values', async () => {
    const { rows } = await readAll('xlsx/calamine/shared_formula_simple.xlsx');
    expect(rows.map((r) => r.cells['2'])).toEqual([4, 6]);
  });

  it('errors.xlsx: error values are blank with a warning naming the cell', async () => {
    const sheet = readSheet(at('xlsx/calamine/errors.xlsx'));
    await expect(sheet.open()).rejects.toMatchObject({ code: 'empty_file' });
    expect(sheet.warnings.map((w) => w.message).join('\n')).toMatch(/A1 shows/);
  });

  it('merged_range.xlsx: a merged value only in its top-left cell', async () => {
    const { info, rows } = await readAll('xlsx/calamine/merged_range.xlsx');
    expect(info.columns.map((c) => c.header)).toEqual(['A1', 'B1', 'C1', 'E1', 'F1', 'G1', 'H1']);
    expect(rows[0]?.rowNumber).toBe(3);
  });

  it('rich text and phonetic runs: rph.xlsx keeps only the displayed text', async () => {
    const { info } = await readAll('xlsx/calamine/rph.xlsx');
    expect(info.columns[0]?.header).toBe('課きく　毛こカケ');
  });

  it('TableWithoutFilter.xlsx: NBSP in a header is matched as a space; float noise kept', async () => {
    const { info, rows } = await readAll('xlsx/phpspreadsheet/TableWithoutFilter.xlsx');
    expect(info.columns.map((c) => c.key)).toContain('sales amount');
    expect(rows.map((r) => r.cells['commission amount'])).toContain(49.199999999999996);
  });

  it('any_sheets.xlsx: hidden sheets are listed and readable by name, chart sheets are not listed', async () => {
    expect(await listSheets(at('xlsx/calamine/any_sheets.xlsx'))).toEqual([
      { name: 'Visible', state: 'visible' },
      { name: 'Hidden', state: 'hidden' },
      { name: 'VeryHidden', state: 'veryHidden' },
    ]);
    const error = await readError('xlsx/calamine/any_sheets.xlsx', { sheet: 'Chart' });
    expect(error.code).toBe('sheet_not_found');
  });

  it('non-ascii-character-encoding.xlsx: Cyrillic sheet names, the second sheet by name', async () => {
    const names = (await listSheets(at('xlsx/read-excel-file/non-ascii-character-encoding.xlsx'))).map(
      (s) => s.name,
    );
    expect(names).toEqual(['Сводный перечень 12.04.2022', 'Перечень по районам']);
    const { info, rows } = await readAll('xlsx/read-excel-file/non-ascii-character-encoding.xlsx', {
      sheet: 'перечень по районам',
    });
    expect(info.sheet).toBe('Перечень по районам');
    expect(rows.length).toBeGreaterThan(10);
  });

  it('custom-number-parser.xlsx: date, number, boolean, text', async () => {
    const { rows } = await readAll('xlsx/read-excel-file/custom-number-parser.xlsx');
    expect(rows[0]?.cells).toEqual({
      'start date': utc(2018, 3, 24),
      'number of students': 123,
      'is free': false,
      cost: 210.45,
      'course title': 'Chemistry',
      contact: '(123) 456-7890',
    });
  });

  it('pass_protected.xlsx is refused as encrypted', async () => {
    const error = await readError('xlsx/calamine/pass_protected.xlsx');
    expect(error.code).toBe('encrypted_xlsx');
    expect(error.message).toMatch(/password/);
  });

  it('issue252.xlsx (damaged relationships part) is still read, by the conventional sheet part name', async () => {
    const { info, rows, warnings } = await readAll('xlsx/calamine/issue252.xlsx');
    expect(info.sheet).toBe('Sheet1');
    expect(info.columns.map((c) => c.header)).toEqual(['data']);
    expect(rows.map((r) => r.rowNumber)).toEqual([2, 3, 4, 5]);
    // The diagonal numbers and E5's cached SUM lie outside the one-column header: reported, not lost silently.
    expect(warnings.filter((w) => w.code === 'extra_cells').map((w) => w.rowNumber)).toEqual([2, 3, 4, 5]);
  });

  it('every corpus workbook either reads or fails with a SheetError', async () => {
    const dirs = ['xlsx/calamine', 'xlsx/phpspreadsheet', 'xlsx/read-excel-file'];
    for (const dir of dirs) {
      for (const name of readdirSync(at(dir)).filter((n) => n.endsWith('.xlsx'))) {
        try {
          await readAll(`${dir}/${name}`);
        } catch (error) {
          expect(error, `${dir}/${name}`).toBeInstanceOf(SheetError);
        }
      }
    }
  });
});
