import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { openPlanSource, recordsToCsv } from '../../../src/mcp/plan-source.js';

const options = {
  cwd: '/work',
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
    expect((await openPlanSource({ file: 'stock.csv' }, options)).file).toBe('/work/stock.csv');
  });
});
