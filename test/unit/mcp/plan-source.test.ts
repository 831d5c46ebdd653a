import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { confinedFile, openPlanSource, recordsToCsv } from '../../../src/mcp/plan-source.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'mbulk-files-root-')));
const options = {
  filesRoot: root,
  inlineName: 'inline-stock.csv',
  download: () => Promise.reject(new Error('no network')),
};

describe('plan_import sources', () => {
  it('writes JSON records as CSV another reader reads back: every key a column, quotes kept', () => {
    const csv = recordsToCsv([
      { sku: 'A,1', quantity: 3 },
      { sku: 'B "2"', name: 'line\nbreak', quantity: null },
    ]);
    const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual(['sku', 'quantity', 'name']);
    expect(parsed.data).toEqual([
      { sku: 'A,1', quantity: '3', name: '' },
      { sku: 'B "2"', quantity: '', name: 'line\nbreak' },
    ]);
  });

  it('takes exactly one source, and removes an inline sheet once planned', async () => {
    await expect(openPlanSource({}, options)).rejects.toThrow(/exactly one source/);
    await expect(openPlanSource({ csv: 'a\n1\n', file: 'x.csv' }, options)).rejects.toThrow(
      /csv, file|file, csv/,
    );
    await expect(openPlanSource({ url: 'http://example.com/s.csv' }, options)).rejects.toThrow(/https/);
    const inline = await openPlanSource({ csv: 'sku,quantity\nA,1\n' }, options);
    expect(readFileSync(inline.file, 'utf8')).toBe('sku,quantity\nA,1\n');
    inline.dispose();
    expect(existsSync(inline.file)).toBe(false);
    expect((await openPlanSource({ file: 'stock.csv' }, options)).file).toBe(join(root, 'stock.csv'));
  });

  it('reads a file only inside the files root: .., absolute paths and symlinks leaving it are refused', () => {
    const inside = join(root, 'sheets');
    mkdirSync(inside, { recursive: true });
    writeFileSync(join(inside, 'stock.csv'), 'sku,quantity\n');
    const outside = mkdtempSync(join(tmpdir(), 'mbulk-outside-'));
    writeFileSync(join(outside, 'secret.csv'), 'token\n');
    symlinkSync(join(outside, 'secret.csv'), join(inside, 'link.csv'));
    symlinkSync(outside, join(inside, 'out'));
    expect(confinedFile('sheets/stock.csv', root)).toBe(join(inside, 'stock.csv'));
    expect(confinedFile(join(inside, 'stock.csv'), root)).toBe(join(inside, 'stock.csv'));
    expect(confinedFile('sheets/../sheets/stock.csv', root)).toBe(join(inside, 'stock.csv'));
    for (const escape of [
      '../secret.csv',
      `sheets/../../${outside.split('/').pop()}/secret.csv`,
      join(outside, 'secret.csv'),
      '/etc/passwd',
      'sheets/link.csv',
      'sheets/out/secret.csv',
      'sheets/out/missing.csv',
    ])
      expect(() => confinedFile(escape, root), escape).toThrow(/outside the files root/);
    // A file that is not there, inside the root: the planner says it is missing.
    expect(confinedFile('sheets/missing.csv', root)).toBe(join(inside, 'missing.csv'));
  });
});
