import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prettyJsonPieces, writePrettyJsonAtomic } from '../../../src/files/pretty-json-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Values whose JSON has every case: empties, holes, members without JSON, toJSON, deep nesting. */
const samples: unknown[] = [
  {},
  [],
  null,
  'text with "quotes", a\nnewline and \u00e9',
  42,
  { a: 1, b: [1, 2, [3, [4, { deep: [5, { deeper: 'x\ny' }] }]]], c: {}, d: [] },
  { gone: undefined, fn: () => 1, sym: Symbol('s'), kept: null, nan: Number.NaN, inf: Infinity, neg: -0 },
  [undefined, () => 1, Symbol('s'), null, 1],
  { at: new Date(Date.UTC(2026, 10, 29)), own: { toJSON: (key: string) => `key ${key}` } },
  { nothing: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] },
  { map: new Map([[1, 2]]), boxed: Object('s') as unknown, proto: Object.create(null) as unknown },
  {
    plan: {
      entries: Array.from({ length: 50 }, (_, i) => ({
        action: i % 3 === 0 ? 'update' : 'noop',
        rows: [{ sheet: 'catalog.csv', rowNumber: i + 2 }],
        changes: i % 3 === 0 ? [{ field: 'price', from: 1, to: 2 }] : [],
        issues: [],
      })),
      summary: { total: 50 },
    },
    before: {},
  },
];

describe('writePrettyJsonAtomic', () => {
  it('writes the text of JSON.stringify(value, null, 2) and a newline, byte for byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pretty-json-'));
    dirs.push(dir);
    for (const [i, value] of samples.entries()) {
      const file = join(dir, `${i}.json`);
      writePrettyJsonAtomic(file, value);
      expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(value, null, 2)}\n`);
    }
  });

  it('gives the text in pieces, never as one string', () => {
    const value = samples.at(-1);
    const pieces = prettyJsonPieces(value);
    expect(pieces.join('')).toBe(JSON.stringify(value, null, 2));
    expect(pieces.length).toBeGreaterThan(50);
  });
});
