import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../../src/sheets/phone.js';

const phone = (v: Parameters<typeof normalizePhone>[0], country: string) => {
  const r = normalizePhone(v, country);
  return r.ok ? r.value : `!${r.code}`;
};

describe('normalizePhone', () => {
  it('reads national numbers with the store country', () => {
    expect(phone('012-345 6789', 'MY')).toBe('60123456789');
    expect(phone('(415) 555-2671', 'US')).toBe('14155552671');
    expect(phone('06 12 34 56 78', 'FR')).toBe('33612345678');
    expect(phone('030 123456', 'DE')).toBe('4930123456');
    expect(phone('9123 4567', 'SG')).toBe('6591234567');
    expect(phone('0812-3456-7890', 'ID')).toBe('6281234567890');
    expect(phone('090-1234-5678', 'JP')).toBe('819012345678');
    expect(phone('020 7946 0958', 'gb')).toBe('442079460958');
  });

  it('reads international numbers whatever the store country', () => {
    expect(phone('+44 20 7946 0958', 'MY')).toBe('442079460958');
    expect(phone('0044 20 7946 0958', 'MY')).toBe('442079460958');
    expect(phone('011 44 20 7946 0958', 'US')).toBe('442079460958');
    expect(phone('0044 20 7946 0958', 'US')).toBe('442079460958');
    expect(phone('+1 415 555 2671', 'MY')).toBe('14155552671');
    expect(phone('+60 12-345 6789', '')).toBe('60123456789');
  });

  it('accepts digits that already carry the country code, and XLSX numbers', () => {
    expect(phone('60123456789', 'MY')).toBe('60123456789');
    expect(phone('442079460958', 'MY')).toBe('442079460958');
    expect(phone(60123456789, 'MY')).toBe('60123456789');
    expect(phone(123456789, 'MY')).toBe('60123456789'); // 0123456789 that lost its leading zero
    expect(phone('14155552671', 'MY')).toBe('14155552671');
  });

  it('rejects unparseable or impossible numbers, showing what was read', () => {
    const r = normalizePhone('012-345', 'MY');
    expect(r).toMatchObject({ ok: false, code: 'phone_invalid' });
    if (!r.ok) expect(r.message).toContain('"012-345"');
    expect(phone('abc', 'MY')).toBe('!phone_invalid');
    expect(phone('1234', 'MY')).toBe('!phone_invalid');
    expect(phone('555-0100', 'US')).toBe('!phone_invalid');
    expect(phone('012 345 6789', '')).toBe('!phone_invalid');
    expect(phone('012 345 6789 ext 5', 'MY')).toBe('!phone_invalid');
    expect(phone(true, 'MY')).toBe('!phone_invalid');
    expect(phone(' ', 'MY')).toBe('!phone_blank');
  });
});

describe('a phone Excel turned into scientific notation', () => {
  it('is refused naming Excel and what to do, never read as a number', () => {
    const r = normalizePhone('9.19961E+11', 'IN');
    expect(r).toEqual({
      ok: false,
      code: 'excel_scientific',
      message:
        'Excel turned this into 9.19961E+11: format the column as text and export again (the digits are lost in this file)',
    });
    expect(phone('6.01234E+10', 'MY')).toBe('!excel_scientific');
    expect(phone(' 1E+12 ', 'US')).toBe('!excel_scientific');
  });
});
