import { describe, expect, it } from 'vitest';
import { formatMoney, minorToUnits, parseMoney } from '../../../src/sheets/money.js';

const ok = (value: number) => ({ ok: true, value });
const code = (r: ReturnType<typeof parseMoney>) => (r.ok ? `ok:${r.value}` : r.code);

describe('parseMoney', () => {
  it('converts currency units to exact minor units', () => {
    expect(parseMoney('19.99', 2)).toEqual(ok(1999));
    expect(parseMoney('0.10', 2)).toEqual(ok(10));
    expect(parseMoney('0.29', 2)).toEqual(ok(29)); // 0.29 * 100 = 28.999999999999996 in floats
    expect(parseMoney('1.005', 3)).toEqual(ok(1005));
    expect(parseMoney('12', 2)).toEqual(ok(1200));
    expect(parseMoney('.5', 2)).toEqual(ok(50));
    expect(parseMoney('  7.5 ', 2)).toEqual(ok(750));
    expect(parseMoney('90071992547409.91', 2)).toEqual(ok(9007199254740991));
  });

  it('handles currencies with 0 and 3 decimals', () => {
    expect(parseMoney('1200', 0)).toEqual(ok(1200));
    expect(parseMoney('¥1,200', 0)).toEqual(ok(1200));
    expect(parseMoney('1200.00', 0)).toEqual(ok(1200)); // exact: trailing zeros are accepted
    expect(code(parseMoney('1200.5', 0))).toBe('money_too_many_decimals');
    expect(parseMoney('1.234', 3)).toEqual(ok(1234));
    expect(parseMoney('KWD 0.005', 3)).toEqual(ok(5));
  });

  it('rejects more decimals than the currency has, and says what to write', () => {
    const r = parseMoney('19.999', 2);
    expect(r).toMatchObject({ ok: false, code: 'money_too_many_decimals' });
    if (!r.ok) expect(r.message).toMatch(/3 decimals.*has 2.*12\.90/);
    expect(parseMoney('19.990', 2)).toEqual(ok(1999));
  });

  it('strips currency symbols and codes', () => {
    expect(parseMoney('$ 12.90', 2)).toEqual(ok(1290));
    expect(parseMoney('RM12.90', 2)).toEqual(ok(1290));
    expect(parseMoney('12.90 EUR', 2)).toEqual(ok(1290));
    expect(parseMoney('€12.90', 2)).toEqual(ok(1290));
    expect(parseMoney('USD1,234.50', 2)).toEqual(ok(123450));
  });

  it('accepts valid thousands grouping only', () => {
    expect(parseMoney('1,234.50', 2)).toEqual(ok(123450));
    expect(parseMoney('1,234,567', 2)).toEqual(ok(123456700));
    expect(parseMoney('1 234.50', 2)).toEqual(ok(123450));
    expect(code(parseMoney('1,23.50', 2))).toBe('money_invalid');
    expect(code(parseMoney('12,34,567.00', 2))).toBe('money_invalid');
    const comma = parseMoney('19,99', 2);
    expect(comma).toMatchObject({ ok: false, code: 'money_invalid' });
    if (!comma.ok) expect(comma.message).toMatch(/--decimal-comma/);
  });

  it('accepts a decimal comma when the file uses one', () => {
    const opts = { decimalComma: true };
    expect(parseMoney('19,99', 2, opts)).toEqual(ok(1999));
    expect(parseMoney('1.234,50', 2, opts)).toEqual(ok(123450));
    expect(parseMoney('1.234', 2, opts)).toEqual(ok(123400));
    expect(parseMoney('1 234,5', 2, opts)).toEqual(ok(123450));
    expect(code(parseMoney('1,234.50', 2, opts))).toBe('money_invalid');
    // XLSX numbers are numbers, whatever the locale
    expect(parseMoney(19.99, 2, opts)).toEqual(ok(1999));
  });

  it('reads XLSX float noise as the amount, but not genuine extra decimals', () => {
    expect(parseMoney(19.990000000000002, 2)).toEqual(ok(1999));
    expect(parseMoney(19.989999999999998, 2)).toEqual(ok(1999));
    expect(parseMoney(0.1 + 0.2, 2)).toEqual(ok(30));
    expect(parseMoney(1234567.89, 2)).toEqual(ok(123456789));
    expect(parseMoney(12, 2)).toEqual(ok(1200));
    expect(parseMoney(0, 2)).toEqual(ok(0));
    expect(code(parseMoney(19.995, 2))).toBe('money_too_many_decimals');
    expect(code(parseMoney(1e20, 2))).toBe('money_too_large');
    expect(code(parseMoney(Number.NaN, 2))).toBe('money_invalid');
  });

  it('rejects negatives unless allowed', () => {
    expect(code(parseMoney('-5.00', 2))).toBe('money_negative');
    expect(code(parseMoney(-5, 2))).toBe('money_negative');
    expect(parseMoney('-5.00', 2, { allowNegative: true })).toEqual(ok(-500));
    expect(parseMoney('-$5.25', 2, { allowNegative: true })).toEqual(ok(-525));
    expect(parseMoney('$-5.25', 2, { allowNegative: true })).toEqual(ok(-525));
    expect(parseMoney('(5.25)', 2, { allowNegative: true })).toEqual(ok(-525));
    expect(parseMoney('-0.00', 2)).toEqual(ok(0));
  });

  it('rejects what is not an amount', () => {
    for (const bad of ['abc', '1e3', '12.3.4', '$', '12 90', '--5', '1,2', true, new Date()]) {
      expect(code(parseMoney(bad, 2)), String(bad)).toBe('money_invalid');
    }
    expect(code(parseMoney('', 2))).toBe('money_blank');
    expect(code(parseMoney(null, 2))).toBe('money_blank');
    expect(code(parseMoney('99999999999999999', 2))).toBe('money_too_large');
  });

  it('reads raw minor units with minor: true', () => {
    expect(parseMoney('1999', 2, { minor: true })).toEqual(ok(1999));
    expect(parseMoney(1999, 2, { minor: true })).toEqual(ok(1999));
    expect(code(parseMoney('19.99', 2, { minor: true }))).toBe('money_not_integer');
    expect(code(parseMoney(19.99, 2, { minor: true }))).toBe('money_not_integer');
    expect(code(parseMoney('-1', 2, { minor: true }))).toBe('money_negative');
    expect(parseMoney('-1', 2, { minor: true, allowNegative: true })).toEqual(ok(-1));
  });

  it('round-trips every cent with formatMoney', () => {
    const wrong: number[] = [];
    for (let minor = 0; minor < 100_000; minor++) {
      const a = parseMoney(formatMoney(minor, 2), 2);
      const b = parseMoney(minorToUnits(minor, 2), 2);
      if (!a.ok || a.value !== minor || !b.ok || b.value !== minor) wrong.push(minor);
    }
    expect(wrong).toEqual([]);
  });
});

describe('formatMoney / minorToUnits', () => {
  it('formats exact decimal text', () => {
    expect(formatMoney(1999, 2)).toBe('19.99');
    expect(formatMoney(5, 2)).toBe('0.05');
    expect(formatMoney(-5, 2)).toBe('-0.05');
    expect(formatMoney(0, 2)).toBe('0.00');
    expect(formatMoney(1200, 0)).toBe('1200');
    expect(formatMoney(-1200, 0)).toBe('-1200');
    expect(formatMoney(1, 3)).toBe('0.001');
    expect(formatMoney(9007199254740991, 2)).toBe('90071992547409.91');
    expect(() => formatMoney(1.5, 2)).toThrow(TypeError);
  });

  it('gives the text of the digits cut at the exponent for every amount, small or near the safe limit', () => {
    // The digit-string definition the integer arithmetic must match byte for byte (exports pin it).
    const byDigits = (minor: number, decimals: number): string => {
      const digits = Math.abs(minor).toFixed(0);
      if (decimals === 0) return minor < 0 ? `-${digits}` : digits;
      const padded = digits.padStart(decimals + 1, '0');
      return `${minor < 0 ? '-' : ''}${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
    };
    const amounts = [0, -0, 1, 9, 10, 99, 100, 101, 1000, 12345, 2 ** 53 - 1, 2 ** 53 - 2, 10 ** 15 + 7];
    for (let i = 1; i < 53; i++) amounts.push(2 ** i - 1, 2 ** i + 1, Math.floor(2 ** i / 3));
    const wrong: string[] = [];
    for (const decimals of [0, 1, 2, 3, 4, 5])
      for (const minor of amounts)
        for (const m of [minor, -minor])
          if (formatMoney(m, decimals) !== byDigits(m, decimals)) wrong.push(`${m}/${decimals}`);
    expect(wrong).toEqual([]);
  });

  it('gives the double a person typing the amount would get', () => {
    expect(minorToUnits(1999, 2)).toBe(19.99);
    expect(minorToUnits(30, 2)).toBe(0.3);
    expect(minorToUnits(1200, 0)).toBe(1200);
    expect(minorToUnits(-5, 3)).toBe(-0.005);
    expect(minorToUnits(9007199254740991, 2)).toBe(90071992547409.91);
  });

  it('is the number of the exact decimal text for every amount and currency exponent', () => {
    const wrong: string[] = [];
    const check = (minor: number, decimals: number): void => {
      if (minorToUnits(minor, decimals) !== Number(formatMoney(minor, decimals)))
        wrong.push(`${minor}/${decimals}`);
    };
    for (let decimals = 0; decimals <= 4; decimals++) {
      for (let minor = -20_000; minor <= 20_000; minor++) check(minor, decimals);
      for (let k = 1; k < 2_000; k++)
        check(Math.floor(Number.MAX_SAFE_INTEGER / (k * k * 7919)) * (k % 2 ? 1 : -1), decimals);
    }
    expect(wrong).toEqual([]);
  });
});

describe('parseMoney: letters that are not a currency', () => {
  it.each(['12 kg', '30 pcs', 'abc 12', '12 slot'])('rejects %s', (text) => {
    expect(parseMoney(text, 2).ok).toBe(false);
  });
  it.each([
    ['RM12.90', 1290],
    ['12.90 EUR', 1290],
    ['US$ 5', 500],
  ])('still reads %s', (text, minor) => {
    expect(parseMoney(text, 2)).toEqual({ ok: true, value: minor });
  });
});

describe('parseMoney in a store currency (issue 10)', () => {
  const myr = (text: string, decimalComma = false) =>
    code(parseMoney(text, 2, { currency: 'MYR', decimalComma }));
  it('refuses another currency and names the store currency', () => {
    for (const cell of ['$12.90', '€12,90', '12.90 USD', '¥1290', 'US$ 5', '12.90 eur']) {
      expect({ cell, code: myr(cell) }).toEqual({ cell, code: 'money_currency' });
    }
    const r = parseMoney('$12.90', 2, { currency: 'MYR' });
    if (!r.ok) expect(r.message).toMatch(/in MYR.*RM 12\.90/);
    expect(myr('RM 12.90')).toBe('ok:1290');
    expect(myr('MYR 12.90')).toBe('ok:1290');
    expect(myr('12.90 myr')).toBe('ok:1290');
    expect(code(parseMoney('$12.90', 2, { currency: 'USD' }))).toBe('ok:1290');
    expect(code(parseMoney('S$12.90', 2, { currency: 'SGD' }))).toBe('ok:1290');
    expect(code(parseMoney('¥1290', 0, { currency: 'JPY' }))).toBe('ok:1290');
  });

  it('with a decimal comma, a dot only groups thousands in threes', () => {
    expect(myr('12.9', true)).toBe('money_invalid');
    expect(myr('12.90', true)).toBe('money_invalid');
    expect(myr('12.905', true)).toBe('ok:1290500');
    expect(myr('1.234,50', true)).toBe('ok:123450');
    expect(myr('1,234.50', true)).toBe('money_invalid');
    expect(myr('1290', true)).toBe('ok:129000');
    expect(myr('12.9')).toBe('ok:1290');
    expect(myr('12.905')).toBe('money_too_many_decimals');
  });
});
