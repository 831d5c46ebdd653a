import { describe, expect, it } from 'vitest';
import {
  isFormulaRisk,
  neutralizeFormula,
  neutralizeXlsxText,
  restoreFormulaText,
} from '../../../src/sheets/neutralize-formula.js';
import { normalizePhone } from '../../../src/sheets/phone.js';

describe('text in exports', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', true],
    ["+cmd|' /C calc'!A0", true],
    ['-2+3=1', true],
    ['@SUM(A1:A2)', true],
    ['-Aina', false],
    ['+60 12-345 6789', false],
    ['-5% off', false],
    ['@home', false],
    ['plain', false],
  ])('%j is a formula risk: %s', (text, risk) => {
    expect(isFormulaRisk(text)).toBe(risk);
    // XLSX alters only a risk; CSV neutralises every trigger; imports read both back.
    expect(neutralizeXlsxText(text)).toBe(risk ? `'${text}` : text);
    expect(restoreFormulaText(neutralizeXlsxText(text))).toBe(text);
    expect(restoreFormulaText(neutralizeFormula(text))).toBe(text);
  });
});

describe('phones as exports write them (the API digits)', () => {
  it.each([
    ['BR', '12063895078'], // also a valid Brazilian national number
    ['BR', '60190961188'],
    ['CN', '14158333558'],
    ['MY', '60123456789'],
    ['US', '12015550123'],
  ])('a %s store reads %s back as itself', (country, digits) => {
    expect(normalizePhone(digits, country)).toEqual({ ok: true, value: digits });
  });

  it('keeps the national reading of shorter bare digits and of a number cell', () => {
    expect(normalizePhone('2015550123', 'US')).toEqual({ ok: true, value: '12015550123' });
    expect(normalizePhone('198765431', 'MY')).toEqual({ ok: true, value: '60198765431' });
  });
});
