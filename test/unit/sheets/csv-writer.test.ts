import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import { defaultCsvPath, type SheetSpec } from '../../../src/sheets/sheet-writer.js';
import { parseMoney } from '../../../src/sheets/money.js';
import { csvLine } from '../../../src/sheets/csv-file-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-csv-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec: SheetSpec = {
  name: 'orders',
  columns: [
    { key: 'id', header: 'id', type: 'text' },
    { key: 'note', header: 'note', type: 'text' },
    { key: 'total', header: 'total', type: 'money' },
    { key: 'qty', header: 'qty', type: 'integer' },
    { key: 'rate', header: 'rate', type: 'number' },
    { key: 'paid', header: 'paid', type: 'boolean' },
    { key: 'at', header: 'at', type: 'datetime' },
    { key: 'day', header: 'day', type: 'date' },
  ],
};

describe('CSV sheet writer', () => {
  it('quotes per RFC 4180 with CRLF, a BOM, neutralised text and exact money', async () => {
    const path = join(dir, 'orders.csv');
    const writer = createSheetWriter(path, {
      format: 'csv',
      currencyDecimals: 2,
      timezone: 'America/New_York',
    });
    const sheet = await writer.addSheet(spec);
    await sheet.write({
      id: '000123',
      note: 'a, "b"\nc',
      total: 1999,
      qty: 3,
      rate: 1e-7,
      paid: true,
      at: '2026-07-01T03:04:05Z',
      day: '2026-07-01',
    });
    await sheet.write({ id: '1234567890123456', note: '=HYPERLINK("http://x","y")', total: -5, paid: false });
    await sheet.write({ id: '-1', note: '+1', total: 30 });
    await writer.close();

    const text = await readFile(path, 'utf8');
    expect(text.startsWith('\ufeffid,note,total,')).toBe(true);
    expect(text).toContain('\r\n');
    expect(text.replace(/\r\n/g, '').includes('\r')).toBe(false);
    const lines = text.slice(1).split('\r\n');
    expect(lines[1]).toBe('000123,"a, ""b""\nc",19.99,3,0.0000001,true,2026-06-30 23:04:05,2026-07-01');
    expect(lines[2]).toBe('1234567890123456,"\'=HYPERLINK(""http://x"",""y"")",-0.05,,,false,,');
    expect(lines[3]).toBe("'-1,'+1,0.30,,,,,");
    expect(lines[4]).toBe('');

    // a CSV parser gives the same cells back
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.data[1]).toEqual([
      '000123',
      'a, "b"\nc',
      '19.99',
      '3',
      '0.0000001',
      'true',
      '2026-06-30 23:04:05',
      '2026-07-01',
    ]);
  });

  it('never writes float artefacts: money sums stay exact', async () => {
    const path = join(dir, 'sum.csv');
    const writer = createSheetWriter(path, { format: 'csv', currencyDecimals: 2, csvBom: false });
    const sheet = await writer.addSheet({
      name: 's',
      columns: [{ key: 'a', header: 'amount', type: 'money' }],
    });
    let total = 0;
    for (let minor = 1; minor <= 3000; minor += 1) {
      total += minor;
      await sheet.write({ a: minor });
    }
    await sheet.write({ a: total });
    await writer.close();
    const text = await readFile(path, 'utf8');
    expect(text.startsWith('amount\r\n')).toBe(true);
    const values = text.trim().split('\r\n').slice(1);
    expect(values.every((v) => /^-?\d+\.\d{2}$/.test(v))).toBe(true);
    expect(values).toContain('0.30');
    let sum = 0;
    for (const v of values.slice(0, -1)) {
      const r = parseMoney(v, 2);
      if (r.ok) sum += r.value;
    }
    expect(values.at(-1)).toBe('45015.00');
    expect(sum).toBe(total);
  });

  it('quotes a number, money, date or boolean field as csvField does: only when it holds the delimiter', async () => {
    const row = {
      id: 'A1',
      note: ' x ',
      total: -123456,
      qty: -7,
      rate: 1.5,
      paid: false,
      at: '2026-01-05T14:03:00Z',
      day: '2026-01-05',
    };
    const cases: [string, boolean, string[]][] = [
      [',', false, ['A1', '" x "', '-1234.56', '-7', '1.5', 'false', '2026-01-05 09:03:00', '2026-01-05']],
      [',', true, ['A1', '" x "', '"-1234,56"', '-7', '"1,5"', 'false', '2026-01-05 09:03:00', '2026-01-05']],
      [';', true, ['A1', '" x "', '-1234,56', '-7', '1,5', 'false', '2026-01-05 09:03:00', '2026-01-05']],
      [':', false, ['A1', '" x "', '-1234.56', '-7', '1.5', 'false', '"2026-01-05 09:03:00"', '2026-01-05']],
      [' ', false, ['A1', '" x "', '-1234.56', '-7', '1.5', 'false', '"2026-01-05 09:03:00"', '2026-01-05']],
      [
        '-',
        false,
        ['A1', '" x "', '"-1234.56"', '"-7"', '1.5', 'false', '"2026-01-05 09:03:00"', '"2026-01-05"'],
      ],
      ['e', false, ['A1', '" x "', '-1234.56', '-7', '1.5', '"false"', '2026-01-05 09:03:00', '2026-01-05']],
    ];
    for (const [delimiter, decimalComma, fields] of cases) {
      const path = join(
        dir,
        `delimiter-${cases.findIndex((c) => c[0] === delimiter && c[1] === decimalComma)}.csv`,
      );
      const writer = createSheetWriter(path, {
        format: 'csv',
        currencyDecimals: 2,
        timezone: 'America/New_York',
        csvDelimiter: delimiter,
        decimalComma,
      });
      const sheet = await writer.addSheet(spec);
      await sheet.write(row);
      await writer.close();
      const text = await readFile(path, 'utf8');
      const expected = fields.join(delimiter);
      expect(text.slice(1).split('\r\n')[1], `delimiter ${JSON.stringify(delimiter)}`).toBe(expected);
      // The same line csvLine makes of the fields' text.
      const unquoted = fields.map((f) => (f.startsWith('"') ? f.slice(1, -1) : f));
      expect(`${expected}\r\n`).toBe(csvLine(unquoted, delimiter));
    }
  });

  it('writes one file per sheet', async () => {
    const path = join(dir, 'export.csv');
    const writer = createSheetWriter(path, { format: 'csv', currencyDecimals: 0 });
    const orders = await writer.addSheet({
      name: 'orders',
      columns: [{ key: 'n', header: 'n', type: 'integer' }],
    });
    const lines = await writer.addSheet({
      name: 'order_lines',
      columns: [{ key: 'p', header: 'price', type: 'money' }],
    });
    const custom = await writer.addSheet(
      { name: 'x', columns: [{ key: 'n', header: 'n', type: 'text' }] },
      join(dir, 'c.csv'),
    );
    await orders.write({ n: 1 });
    await lines.write({ p: 1200 });
    await custom.write({ n: 'ok' });
    await writer.close();
    expect(lines.path).toBe(join(dir, 'export-order_lines.csv'));
    expect(await readFile(path, 'utf8')).toBe('\ufeffn\r\n1\r\n');
    expect(await readFile(join(dir, 'export-order_lines.csv'), 'utf8')).toBe('\ufeffprice\r\n1200\r\n');
    expect(await readFile(join(dir, 'c.csv'), 'utf8')).toBe('\ufeffn\r\nok\r\n');
    expect(defaultCsvPath('/a/b.CSV', 'lines', 1)).toBe('/a/b-lines.csv');
  });

  it('reports an unwritable path', async () => {
    const writer = createSheetWriter(join(dir, 'nope', 'x.csv'), { format: 'csv', currencyDecimals: 2 });
    await expect(writer.addSheet(spec)).rejects.toThrow(/ENOENT/);
  });
});
