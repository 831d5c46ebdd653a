import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';
import { excelScientificError, isExcelScientific } from './excel-scientific.js';

/**
 * A phone number → international digits without `+` (the API's phone format), with libphonenumber-js
 * (its default "min" metadata: it validates every number in our tests, and it is the smallest bundle).
 *
 * - National numbers use `defaultCountry` (the store's country): `012-345 6789` in MY → '60123456789';
 *   an XLSX number that lost its leading zero (123456789) is read the same way.
 * - International: `+44 20 7946 0958`, the country's international prefix (`0044…` in MY, `011 44…` in
 *   the US), and digits that already carry the country code (`60123456789`) → '442079460958' / '60123456789'.
 * - Bare digits of 11 to 15 (text, no leading 0) that are valid with a `+` are read as the API's own
 *   format (country code included), which exports write, before the national reading: exports
 *   round-trip in every store country. Shorter bare digits are read as national first.
 * - An unparseable or impossible number, or one with an extension: `phone_invalid`, showing what was read.
 * - `defaultCountry` that is blank or unknown: only international numbers are accepted.
 * Blank: `phone_blank` (callers that treat blank as "leave untouched" check `isBlank` first).
 */
/** Digits only, no trunk `0`, 11 to 15 long: how the API writes a phone (country code included). */
const API_DIGITS = /^[1-9]\d{10,14}$/;

export function normalizePhone(value: CellValue, defaultCountry: CountryCode | string): CellResult<string> {
  if (isBlank(value))
    return cellError('phone_blank', 'the cell is blank: write a phone number such as +60 12-345 6789');
  if (typeof value === 'boolean' || value instanceof Date) {
    return cellError(
      'phone_invalid',
      `"${cellText(value)}" is not a phone number: write one such as +60 12-345 6789`,
    );
  }
  const text = cellText(value).trim();
  if (typeof value === 'string' && isExcelScientific(text)) return excelScientificError(text);
  const country = defaultCountry.trim().toUpperCase();
  const known = country !== '' && isSupportedCountry(country) ? country : undefined;

  let parsed = parsePhoneNumberFromString(text, known ? { defaultCountry: known } : {});
  if (parsed?.isValid() && typeof value === 'string' && API_DIGITS.test(text)) {
    // Bare digits of 11 or more that are a valid number with their country code: the API's own
    // format, as every export writes phones. Read that way even when they are also a valid
    // national number of the store's country (12063895078 is a US number, not a Brazilian one).
    // A number cell (an XLSX national number that lost its leading zero) keeps the national reading.
    const international = parsePhoneNumberFromString(`+${text}`);
    if (international?.isValid()) parsed = international;
  }
  if ((!parsed || !parsed.isValid()) && /^[\d\s().-]+$/.test(text)) {
    // Digits that already carry a country code but no '+' (e.g. an export of the API's own format).
    const digits = text.replace(/\D/g, '');
    const international = digits.startsWith('00') ? digits.slice(2) : digits;
    const retry = parsePhoneNumberFromString(`+${international}`);
    if (retry?.isValid()) parsed = retry;
  }
  const where = known
    ? ` (national numbers are read as ${known})`
    : ' (no store country: include the + and country code)';
  if (!parsed || !parsed.isValid()) {
    return cellError(
      'phone_invalid',
      `"${text}" is not a valid phone number${parsed ? `: read as +${parsed.countryCallingCode} ${parsed.nationalNumber}` : ''}${where}; write it with its country code, such as +60 12-345 6789`,
    );
  }
  if (parsed.ext) {
    return cellError(
      'phone_invalid',
      `"${text}" has an extension (${parsed.ext}): write the number without it`,
    );
  }
  return cellOk(parsed.number.slice(1));
}
