import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CsvFileWriter, csvField, writeCsvFile } from '../../../src/sheets/csv-file-writer.js';
import { neutralizeResultText } from '../../../src/sheets/neutralize-formula.js';

// The one CSV writer (results files, rollback results, CSV exports), read back by papaparse.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-csv-file-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('CsvFileWriter', () => {
  it('quotes only when needed', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField('padded ')).toBe('"padded "');
    expect(csvField('a;b')).toBe('a;b');
    expect(csvField('a;b', ';')).toBe('"a;b"');
    expect(csvField('a,b "c"', ';')).toBe('"a,b ""c"""');
    expect(csvField('12,90', ';')).toBe('12,90');
    expect(csvField('a\tb', '\t')).toBe('"a\tb"');
  });

  it('neutralises formulas in result text, but not plain numbers', () => {
    expect(neutralizeResultText('=HYPERLINK("x")')).toBe(`'=HYPERLINK("x")`);
    expect(neutralizeResultText('+1+2')).toBe(`'+1+2`);
    expect(neutralizeResultText('@SUM(A1)')).toBe(`'@SUM(A1)`);
    expect(neutralizeResultText('\tcmd')).toBe(`'\tcmd`);
    expect(neutralizeResultText('\rcmd')).toBe(`'\rcmd`);
    expect(neutralizeResultText('-5')).toBe('-5');
    expect(neutralizeResultText('-2.50')).toBe('-2.50');
    expect(neutralizeResultText('-SKU')).toBe(`'-SKU`);
    expect(neutralizeResultText('ok')).toBe('ok');
  });

  it('writes a BOM, the header and CRLF rows with the delimiter, read back as written', async () => {
    const file = path.join(dir, 'x.csv');
    const rows = [
      ['1', 'a; "b"', ' edge '],
      ['2', 'multi\nline', '12,90'],
      ['3', 'a, b', ''],
    ];
    await writeCsvFile(file, ['n', 'text', 'more'], rows, { delimiter: ';' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith('\uFEFFn;text;more\r\n')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(text.slice(1), { delimiter: ';', skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([['n', 'text', 'more'], ...rows]);
    expect(fs.readdirSync(dir)).toEqual(['x.csv']);
  });

  it('writes through a temporary file: nothing at the target until close, discard leaves the old file', async () => {
    const file = path.join(dir, 'x.csv');
    fs.writeFileSync(file, 'old');
    const w = await CsvFileWriter.open(file, ['a'], { flushBytes: 10, bom: false });
    for (let i = 0; i < 100; i++) await w.writeRow([`value-${i}`]);
    expect(w.rows).toBe(100);
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    await w.discard();
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['x.csv']);
    const again = await CsvFileWriter.open(file, ['a'], { flushBytes: 10, bom: false });
    await again.writeRow(['new']);
    await again.commit();
    expect(fs.readFileSync(file, 'utf8')).toBe('a\r\nnew\r\n');
    expect(fs.readdirSync(dir)).toEqual(['x.csv']);
  });

  it('refuses a delimiter that cannot be written, before creating anything', async () => {
    for (const delimiter of ['', ';;', '"', '\n']) {
      await expect(CsvFileWriter.open(path.join(dir, 'x.csv'), ['a'], { delimiter })).rejects.toThrow(
        RangeError,
      );
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('reports a file it cannot write by its path, with the system error as the cause (a full disk is exit 5)', async () => {
    const missing = path.join(dir, 'nope', 'x.csv');
    const error = await CsvFileWriter.open(missing, ['a']).catch((e: unknown) => e);
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT', syscall: 'open' });
    expect(String(error)).toMatch(/cannot write .*nope\/x\.csv: ENOENT/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
