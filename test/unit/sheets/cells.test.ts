import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../../src/sheets/cell-result.js';
import { parseBooleanCell } from '../../../src/sheets/boolean-cell.js';
import { parseIntegerCell } from '../../../src/sheets/integer-cell.js';
import { formatListCell, parseListCell } from '../../../src/sheets/list-cell.js';
import { parseEnumCell } from '../../../src/sheets/enum-cell.js';
import { parseEmailCell } from '../../../src/sheets/email-cell.js';
import { neutralizeFormula, restoreFormulaText } from '../../../src/sheets/neutralize-formula.js';

const value = <T>(r: CellResult<T>): T | string => (r.ok ? r.value : `!${r.code}`);

describe('parseBooleanCell', () => {
  it('accepts the documented words, case-insensitive, and XLSX booleans/numbers', () => {
    for (const t of ['true', 'TRUE', 'Yes', 'y', '1', ' yes '])
      expect(value(parseBooleanCell(t)), t).toBe(true);
    for (const f of ['false', 'No', 'N', '0', 'FALSE']) expect(value(parseBooleanCell(f)), f).toBe(false);
    expect(value(parseBooleanCell(true))).toBe(true);
    expect(value(parseBooleanCell(false))).toBe(false);
    expect(value(parseBooleanCell(1))).toBe(true);
    expect(value(parseBooleanCell(0))).toBe(false);
  });
  it('rejects anything else, listing the accepted words', () => {
    const r = parseBooleanCell('maybe');
    expect(r).toMatchObject({ ok: false, code: 'boolean_invalid' });
    if (!r.ok) expect(r.message).toMatch(/true\/false, yes\/no, y\/n or 1\/0/);
    expect(value(parseBooleanCell(2))).toBe('!boolean_invalid');
    expect(value(parseBooleanCell('on'))).toBe('!boolean_invalid');
    expect(value(parseBooleanCell(''))).toBe('!boolean_blank');
  });
});

describe('parseIntegerCell', () => {
  it('accepts whole numbers as numbers and text', () => {
    expect(value(parseIntegerCell(3))).toBe(3);
    expect(value(parseIntegerCell('3'))).toBe(3);
    expect(value(parseIntegerCell(' -3 '))).toBe(-3);
    expect(value(parseIntegerCell('+3'))).toBe(3);
    expect(value(parseIntegerCell('3.0'))).toBe(3);
    expect(value(parseIntegerCell('007'))).toBe(7);
    expect(value(parseIntegerCell(2.9999999999999996))).toBe(3);
    expect(value(parseIntegerCell('-0'))).toBe(0);
    expect(Object.is(value(parseIntegerCell('-0')), -0)).toBe(false);
  });
  it('is strict about anything else', () => {
    expect(value(parseIntegerCell('1.5'))).toBe('!integer_not_whole');
    expect(value(parseIntegerCell(1.5))).toBe('!integer_not_whole');
    expect(value(parseIntegerCell('1e3'))).toBe('!integer_invalid');
    expect(value(parseIntegerCell('1,000'))).toBe('!integer_invalid');
    expect(value(parseIntegerCell('3 pcs'))).toBe('!integer_invalid');
    expect(value(parseIntegerCell(true))).toBe('!integer_invalid');
    expect(value(parseIntegerCell('99999999999999999'))).toBe('!integer_too_large');
    expect(value(parseIntegerCell(null))).toBe('!integer_blank');
  });
  it('checks min and max', () => {
    expect(value(parseIntegerCell('-1', { min: 0 }))).toBe('!integer_too_small');
    expect(value(parseIntegerCell('0', { min: 0 }))).toBe(0);
    expect(value(parseIntegerCell(11, { max: 10 }))).toBe('!integer_too_large');
    const r = parseIntegerCell('-1', { min: 0 });
    if (!r.ok) expect(r.message).toMatch(/write 0 or more/);
  });
});

describe('parseListCell', () => {
  it('splits on |, trims and drops empties', () => {
    expect(parseListCell('a | b||c |')).toEqual(['a', 'b', 'c']);
    expect(parseListCell('one')).toEqual(['one']);
    expect(parseListCell('')).toEqual([]);
    expect(parseListCell(null)).toEqual([]);
    expect(parseListCell(123456789012345)).toEqual(['123456789012345']);
    expect(parseListCell(formatListCell(['x', 'y']))).toEqual(['x', 'y']);
  });
});

describe('parseEnumCell', () => {
  const statuses = ['active', 'hidden', 'out_of_stock'] as const;
  it('matches case-insensitively and returns the canonical spelling', () => {
    expect(value(parseEnumCell('Active', statuses))).toBe('active');
    expect(value(parseEnumCell(' HIDDEN ', statuses))).toBe('hidden');
    expect(value(parseEnumCell('Out of stock', statuses))).toBe('out_of_stock');
    expect(value(parseEnumCell('out-of-stock', statuses))).toBe('out_of_stock');
  });
  it('lists the allowed values on error', () => {
    const r = parseEnumCell('draft', statuses);
    expect(r).toMatchObject({ ok: false, code: 'enum_invalid' });
    if (!r.ok) expect(r.message).toContain('active, hidden, out_of_stock');
    expect(value(parseEnumCell('', statuses))).toBe('!enum_blank');
  });
});

describe('parseEmailCell', () => {
  it('validates with zod and trims', () => {
    expect(value(parseEmailCell(' Ana@Example.com '))).toBe('Ana@Example.com');
    expect(value(parseEmailCell('ana@example'))).toBe('!email_invalid');
    expect(value(parseEmailCell('ana example.com'))).toBe('!email_invalid');
    expect(value(parseEmailCell(''))).toBe('!email_blank');
  });
});

describe('neutralizeFormula', () => {
  it('prefixes text that a spreadsheet would run', () => {
    expect(neutralizeFormula('=HYPERLINK("http://x","y")')).toBe('\'=HYPERLINK("http://x","y")');
    for (const t of ['+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(neutralizeFormula(t)).toBe(`'${t}`);
    for (const t of ['', 'plain', 'a=b', "'quoted", ' =x', '0123']) expect(neutralizeFormula(t)).toBe(t);
  });
  it('is undone by restoreFormulaText, which keeps other apostrophes', () => {
    for (const t of ['=1+2', '-50% sale', '@me', 'plain', "'quoted", "''"]) {
      expect(restoreFormulaText(neutralizeFormula(t))).toBe(t);
    }
  });
});
