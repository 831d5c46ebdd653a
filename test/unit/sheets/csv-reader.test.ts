import { describe, expect, it } from 'vitest';
import { readSheet, readSheetBatches } from '../../../src/sheets/read-sheet.js';
import type { ReadSheetOptions } from '../../../src/sheets/read-sheet.js';
import { SheetError } from '../../../src/sheets/sheet-error.js';
import type { SheetRow } from '../../../src/sheets/sheet-row.js';
import { detectDelimiter, detectNewline } from '../../../src/sheets/csv-reader.js';
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

function utf16(text: string, endian: 'le' | 'be', bom: boolean): Buffer {
  const le = Buffer.from((bom ? '\uFEFF' : '') + text, 'utf16le');
  if (endian === 'le') return le;
  return Buffer.from(le.swap16());
}

const TEXT = 'Name,Prix\r\nCrème brûlée,4.50\r\nPâté,3\r\n';
const EXPECTED = [
  { rowNumber: 2, cells: { name: 'Crème brûlée', prix: '4.50' } },
  { rowNumber: 3, cells: { name: 'Pâté', prix: '3' } },
];

describe('CSV encodings', () => {
  it.each([
    ['utf-8 without BOM', Buffer.from(TEXT, 'utf8'), 'utf-8'],
    ['utf-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')]), 'utf-8'],
    ['utf-16le with BOM', utf16(TEXT, 'le', true), 'utf-16le'],
    ['utf-16be with BOM', utf16(TEXT, 'be', true), 'utf-16be'],
    ['utf-16le without BOM', utf16(TEXT, 'le', false), 'utf-16le'],
    ['utf-16be without BOM', utf16(TEXT, 'be', false), 'utf-16be'],
    ['windows-1252', Buffer.from(TEXT, 'latin1'), 'windows-1252'],
  ])('%s', async (_label, bytes, encoding) => {
    const path = files.write(`enc-${encoding}-${bytes.length}-${bytes[0]}.csv`, bytes);
    const { info, rows, warnings } = await readAll(path);
    expect(info.encoding).toBe(encoding);
    expect(info.columns.map((c) => c.header)).toEqual(['Name', 'Prix']);
    expect(rows.map(({ rowNumber, cells }) => ({ rowNumber, cells }))).toEqual(EXPECTED);
    if (encoding === 'windows-1252') {
      expect(warnings).toMatchObject([{ code: 'encoding_windows_1252', rowNumber: 2 }]);
    }
  });

  it('decodes Windows-1252 specials (€, curly quotes) that Latin-1 lacks', async () => {
    const bytes = Buffer.from([...Buffer.from('name\r\n'), 0x80, 0x20, 0x93, 0x61, 0x94, 0x0d, 0x0a]);
    const { rows } = await readAll(files.write('cp1252-specials.csv', bytes));
    expect(rows[0]?.cells.name).toBe('€ “a”');
  });

  it('reads the whole file as Windows-1252 when the only invalid byte is past the first chunks', async () => {
    const lines = ['sku,name'];
    for (let i = 0; i < 100_000; i++) lines.push(`SKU-${i},plain ascii name ${i}`);
    const ascii = Buffer.from(lines.join('\n') + '\n', 'utf8');
    expect(ascii.length).toBeGreaterThan(2 * 1024 * 1024);
    const bytes = Buffer.concat([ascii, Buffer.from([0x53, 0x2d, 0x58, 0x2c, 0xe9, 0x74, 0xe9, 0x0a])]);
    const { info, rows, warnings } = await readAll(files.write('late-1252.csv', bytes));
    expect(info.encoding).toBe('windows-1252');
    expect(rows).toHaveLength(100_001);
    expect(rows.at(-1)?.cells).toEqual({ sku: 'S-X', name: 'été' });
    expect(warnings[0]).toMatchObject({ code: 'encoding_windows_1252', rowNumber: 100_002 });
  });

  it('keeps multi-byte UTF-8 characters that straddle a 1 MiB chunk boundary', async () => {
    const header = 'sku,name\n';
    const filler = 'x'.repeat((1 << 20) - header.length - 'A,'.length - 1);
    const text = `${header}A,${filler}é\nB,ok\n`; // é starts 1 byte before the chunk boundary
    const { rows } = await readAll(files.write('straddle.csv', text), {
      limits: { maxCellChars: 2_000_000 },
    });
    expect(rows[0]?.cells.name).toBe(filler + 'é');
    expect(rows[1]?.cells).toEqual({ sku: 'B', name: 'ok' });
  });

  it('trusts a UTF-8 BOM but warns about the bytes that are not UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('name\nok\n'),
      Buffer.from([0x43, 0xe9, 0x0a]),
    ]);
    const { info, rows, warnings } = await readAll(files.write('bom-bad.csv', bytes));
    expect(info.encoding).toBe('utf-8');
    expect(rows.map((r) => r.cells.name)).toEqual(['ok', 'C\uFFFD']);
    expect(warnings).toMatchObject([{ code: 'invalid_utf8', rowNumber: 3 }]);
  });

  it('honours an encoding override', async () => {
    const path = files.write('override.csv', Buffer.from('name\r\nCafé\r\n', 'latin1'));
    const { rows, warnings } = await readAll(path, { encoding: 'windows-1252' });
    expect(rows[0]?.cells.name).toBe('Café');
    expect(warnings).toEqual([]);
  });
});

describe('CSV delimiters and line endings', () => {
  it.each([
    [',', 'a,b,c\n1,2,3\n'],
    [';', 'a;b;c\n1;2,5;3\n'],
    ['\t', 'a\tb\tc\n1\t2\t3\n'],
    ['|', 'a|b|c\n1|2|3\n'],
  ])('detects %j', async (delimiter, text) => {
    const { info, rows } = await readAll(files.write(`delim-${text.charCodeAt(1)}.csv`, text));
    expect(info.delimiter).toBe(delimiter);
    expect(Object.keys(rows[0]?.cells ?? {})).toEqual(['a', 'b', 'c']);
  });

  it('ends the last row at a final line break that differs from the rest of the file', async () => {
    const { rows } = await readAll(files.write('mixed-end.csv', 'a,b\r\n1,x\r\n2,y\n'));
    expect(rows.map((r) => r.cells)).toEqual([
      { a: '1', b: 'x' },
      { a: '2', b: 'y' },
    ]);
  });

  it('does not count delimiters inside quotes', () => {
    expect(detectDelimiter('"a;b;c;d",e,f\n1,2,3\n')).toBe(',');
    expect(detectDelimiter('single\nx\n')).toBe(',');
    expect(detectDelimiter('Betrag;Text\n"-1,5";"a, b, c"\n')).toBe(';');
  });

  it("uses Excel's sep= line and does not count it as a row", async () => {
    const { info, rows } = await readAll(files.write('sep.csv', 'sep=|\r\nsku|qty\r\nA,1|5\r\n'));
    expect(info.delimiter).toBe('|');
    expect(rows).toEqual([{ sheet: 'sep.csv', rowNumber: 2, cells: { sku: 'A,1', qty: '5' } }]);
  });

  it('lets an explicit delimiter win over detection and sep=', async () => {
    const { rows } = await readAll(files.write('explicit.csv', 'a;b,c\n1;2,3\n'), { delimiter: ';' });
    expect(rows[0]?.cells).toEqual({ a: '1', 'b,c': '2,3' });
  });

  it.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
    ['CR', '\r'],
  ])('reads %s line endings, with a quoted line break in a cell', async (_label, nl) => {
    const text = `sku,note${nl}A,"two${nl}lines"${nl}B,"say ""hi"""${nl}`;
    expect(detectNewline(text)).toBe(nl);
    const { rows } = await readAll(files.write(`nl-${nl.length}-${nl.charCodeAt(0)}.csv`, text));
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([
      [2, { sku: 'A', note: `two${nl}lines` }],
      [3, { sku: 'B', note: 'say "hi"' }],
    ]);
  });

  it('carries a quoted multi-line cell and a CRLF across chunk boundaries', async () => {
    const rows: string[] = ['sku,note'];
    for (let i = 0; i < 60_000; i++) rows.push(`S${i},"line one, of ${i}\r\nline ""two"""`);
    const text = rows.join('\r\n') + '\r\n';
    expect(text.length).toBeGreaterThan(2 * (1 << 20));
    const { rows: read } = await readAll(files.write('multichunk.csv', text));
    const bad = read.filter(
      (row, i) =>
        row.rowNumber !== i + 2 ||
        row.cells.sku !== `S${i}` ||
        row.cells.note !== `line one, of ${i}\r\nline "two"`,
    );
    expect(read).toHaveLength(60_000);
    expect(bad).toEqual([]);
  });
});

describe('CSV rows and header', () => {
  it('takes the first non-blank row as the header, trims headers, lower-cases keys, skips blank rows', async () => {
    const text = '\n,,\n  SKU , Quantity ,Variant  Name\nA,1,x\n\n,,\n  ,\t,\nB,2,y\n';
    const { info, rows } = await readAll(files.write('header.csv', text));
    expect(info.columns).toEqual([
      { header: 'SKU', key: 'sku', letter: 'A', index: 0 },
      { header: 'Quantity', key: 'quantity', letter: 'B', index: 1 },
      { header: 'Variant  Name', key: 'variant name', letter: 'C', index: 2 },
    ]);
    expect(rows.map((r) => [r.rowNumber, r.cells])).toEqual([
      [4, { sku: 'A', quantity: '1', 'variant name': 'x' }],
      [8, { sku: 'B', quantity: '2', 'variant name': 'y' }],
    ]);
  });

  it('fills missing cells with "" and warns about extra ones, naming the row', async () => {
    const { rows, warnings } = await readAll(files.write('ragged.csv', 'a,b,c\n1\n1,2,3,4\n1,2,3,,\n'));
    expect(rows.map((r) => r.cells)).toEqual([
      { a: '1', b: '', c: '' },
      { a: '1', b: '2', c: '3' },
      { a: '1', b: '2', c: '3' },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'extra_cells', rowNumber: 3 });
    expect(warnings[0]?.message).toMatch(/column D/);
  });

  it('ignores a column without header and warns once if it has values', async () => {
    const { info, rows, warnings } = await readAll(files.write('unnamed.csv', 'a,,c\n1,x,3\n4,y,6\n'));
    expect(info.columns.map((c) => c.key)).toEqual(['a', 'c']);
    expect(rows[1]?.cells).toEqual({ a: '4', c: '6' });
    expect(warnings).toMatchObject([{ code: 'unnamed_column', rowNumber: 2 }]);
  });

  it('refuses duplicate headers (case-insensitive), naming both columns', async () => {
    const error = await readError(files.write('dup.csv', 'SKU,name,sku\n1,2,3\n'));
    expect(error.code).toBe('duplicate_header');
    expect(error.message).toMatch(/columns A and C/);
    expect(error.rowNumber).toBe(1);
  });

  it('caps repeated warnings and summarises the rest', async () => {
    const lines = ['a'];
    for (let i = 0; i < 50; i++) lines.push(`${i},extra`);
    const { warnings } = await readAll(files.write('many-warnings.csv', lines.join('\n')));
    expect(warnings).toHaveLength(21);
    expect(warnings.at(-1)?.message).toMatch(/30 more rows/);
  });
});

describe('CSV errors', () => {
  it('refuses an XLSX given as CSV', async () => {
    const path = files.write('book.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4]));
    const error = await readError(path);
    expect(error.code).toBe('binary_csv');
    expect(error.message).toMatch(/rename it to \.xlsx/);
  });

  it('refuses a binary file (NUL bytes)', async () => {
    const bytes = Buffer.from([
      0x25, 0x50, 0x44, 0x46, 0, 1, 2, 0xff, 0, 0, 0x10, 0x41, 0x42, 0x43, 0x44, 0x45,
    ]);
    expect((await readError(files.write('pdf.csv', bytes))).code).toBe('binary_csv');
  });

  it('refuses an old .xls / encrypted workbook given as CSV', async () => {
    const bytes = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]);
    expect((await readError(files.write('old.csv', bytes))).message).toMatch(/\.xls/);
  });

  it('refuses an empty file and a file of blank lines', async () => {
    expect((await readError(files.write('empty.csv', ''))).code).toBe('empty_file');
    expect((await readError(files.write('blank.csv', '\n\r\n ,, \n'))).code).toBe('empty_file');
  });

  it('reads a header-only file as zero rows', async () => {
    const { info, rows } = await readAll(files.write('header-only.csv', 'sku,quantity'));
    expect(info.columns.map((c) => c.key)).toEqual(['sku', 'quantity']);
    expect(rows).toEqual([]);
  });

  it('refuses a quoted cell that is never closed, naming the row', async () => {
    const error = await readError(files.write('unclosed.csv', 'a,b\n1,2\n3,"oops\n4,5\n'));
    expect(error.code).toBe('unterminated_quote');
    expect(error.rowNumber).toBe(3);
  });

  it('enforces the file size, row and cell length limits', async () => {
    const path = files.write('limits.csv', 'a,b\n1,2\n3,4\n5,123456\n');
    const tooBig = await readError(path, { limits: { maxFileBytes: 10 } });
    expect(tooBig.code).toBe('file_too_large');
    const tooMany = await readError(path, { limits: { maxRows: 2 } });
    expect([tooMany.code, tooMany.rowNumber]).toEqual(['too_many_rows', 4]);
    const tooLong = await readError(path, { limits: { maxCellChars: 5 } });
    expect([tooLong.code, tooLong.rowNumber, tooLong.column]).toEqual(['cell_too_long', 4, 'B']);
  });

  it('reports a missing file clearly', async () => {
    expect((await readError(`${files.dir}/nope.csv`)).code).toBe('file_not_found');
  });

  it('rejects a bad delimiter option', async () => {
    expect((await readError(files.write('x.csv', 'a\n1\n'), { delimiter: '::' })).code).toBe('bad_option');
  });
});

describe('reader API', () => {
  it('gives the columns before iteration without losing rows, and reads as .tsv/.txt or an override', async () => {
    const path = files.write('api.txt', 'sku\tqty\nA\t1\nB\t2\n');
    const sheet = readSheet(path);
    expect((await sheet.columns()).map((c) => c.key)).toEqual(['sku', 'qty']);
    const rows: SheetRow[] = [];
    for await (const row of sheet) rows.push(row);
    expect(rows.map((r) => r.cells.sku)).toEqual(['A', 'B']);
    expect(() => sheet[Symbol.asyncIterator]()).toThrow(/only once/);
    const other = files.write('data.dat', 'x\n1\n');
    expect((await readAll(other, { format: 'csv' })).rows).toHaveLength(1);
  });

  it('yields batches, and a break releases the file', async () => {
    const lines = ['sku,quantity'];
    for (let i = 0; i < 100_000; i++) lines.push(`S${i},${i % 7}`);
    const path = files.write('batches.csv', lines.join('\n'));
    let count = 0;
    let batchCount = 0;
    for await (const batch of readSheetBatches(path)) {
      batchCount++;
      count += batch.length;
    }
    expect(count).toBe(100_000);
    expect(batchCount).toBeGreaterThan(1);
    const sheet = readSheet(path);
    let seen = 0;
    for await (const row of sheet) {
      seen++;
      if (row.rowNumber === 10) break;
    }
    expect(seen).toBe(9);
  });
});
