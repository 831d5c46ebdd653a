import type { CellValue } from './sheet-row.js';
import { cellError, cellOk, cellText, isBlank, type CellResult } from './cell-result.js';

export interface ParseMoneyOptions {
  /** The file's locale writes `19,99` and `1.234,50` (decimal comma, `.` groups). Default false: `19.99`, `1,234.50`. */
  decimalComma?: boolean;
  /** `--money minor`: the cell holds raw integer minor units (`1999`), no decimal point. Default false. */
  minor?: boolean;
  /** Accept negative amounts (adjustments, refunds). Default false: a negative is `money_negative`. */
  allowNegative?: boolean;
  /**
   * The store currency (ISO 4217 code, e.g. `MYR`). When set, a cell written with another currency's
   * symbol or code (`$12.90`, `12.90 USD` in a MYR store) is `money_currency`; the store's own code and
   * symbols (`MYR 12.90`, `RM 12.90`) are accepted. Default: any currency affix is stripped unchecked.
   */
  currency?: string;
}

/** Characters accepted as thousands separators in either locale (space, no-break spaces, Swiss apostrophe). */
const NEUTRAL_GROUPING = /[ \u00a0\u202f\u2009']/;
/** A leading or trailing currency symbol or code: `$`, `¥`, `RM`, `USD`, `Rp`, `kr.`… */
const CURRENCY_AFFIX = /^(?:\p{Sc}|[A-Za-z]{1,3}\.?)+/u;
const CURRENCY_SUFFIX = /(?:\p{Sc}|[A-Za-z]{1,3}\.?)+$/u;
/** Letter affixes accepted as currency: ISO 4217 codes and common local abbreviations. */
const CURRENCY_WORDS = new Set([
  ...Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()),
  'rm',
  'rp',
  'kr',
  'fr',
  'ft',
  'r',
  'zl',
  'us',
  'au',
  'ca',
  'nz',
  'hk',
  's',
]);

/**
 * Strips a currency affix (`$`, `RM`, `USD`, `kr.`) matched by `re`; null when the letters are not a
 * currency (`12 kg`, `30 pcs` must not read as money).
 */
function stripCurrency(text: string, re: RegExp, affixes: string[]): string | null {
  const m = re.exec(text);
  if (!m) return text;
  const letters = m[0].replace(/[\p{Sc}.\s]/gu, '').toLowerCase();
  if (letters !== '' && !CURRENCY_WORDS.has(letters)) return null;
  affixes.push(m[0]);
  return text.replace(re, '').trim();
}

/**
 * Local ways of writing a currency that Intl's English symbols miss (`RM` is Intl's narrow symbol for
 * MYR, but `S$` for SGD or `kr.` for DKK are not).
 */
const LOCAL_SYMBOLS: Readonly<Record<string, readonly string[]>> = {
  USD: ['US$', 'US'],
  SGD: ['S$'],
  HKD: ['HK$'],
  AUD: ['A$', 'AU$'],
  CAD: ['C$', 'CA$'],
  NZD: ['NZ$'],
  MYR: ['RM'],
  IDR: ['Rp'],
  ZAR: ['R'],
  SEK: ['kr'],
  NOK: ['kr'],
  DKK: ['kr'],
  ISK: ['kr'],
  CHF: ['Fr', 'SFr'],
  HUF: ['Ft'],
  PLN: ['zł', 'zl'],
  CNY: ['¥', 'RMB'],
  JPY: ['¥', '円'],
};

const normalizeAffix = (affix: string): string => affix.replace(/[\s.]/g, '').toLowerCase();

const ownSymbolsCache = new Map<string, ReadonlySet<string>>();

/** The affixes that mean the store currency: its ISO code, its English symbols, its local forms. */
function ownSymbols(currency: string): ReadonlySet<string> {
  const code = currency.toUpperCase();
  let set = ownSymbolsCache.get(code);
  if (set !== undefined) return set;
  const forms = [code, ...(LOCAL_SYMBOLS[code] ?? [])];
  for (const display of ['symbol', 'narrowSymbol'] as const) {
    try {
      const part = new Intl.NumberFormat('en', {
        style: 'currency',
        currency: code,
        currencyDisplay: display,
      })
        .formatToParts(1)
        .find((p) => p.type === 'currency');
      if (part) forms.push(part.value);
    } catch {
      // Not an ISO code Intl knows: the code itself is still accepted.
    }
  }
  set = new Set(forms.map(normalizeAffix));
  ownSymbolsCache.set(code, set);
  return set;
}

/** The way to write an amount in the store currency, for messages: `12.90 or RM 12.90`. */
function ownExample(currency: string, example: string): string {
  const code = currency.toUpperCase();
  const local = LOCAL_SYMBOLS[code]?.[0];
  return local !== undefined && local !== code
    ? `${example}, ${local} ${example} or ${code} ${example}`
    : `${example} or ${code} ${example}`;
}

const GROUPED: ReadonlyMap<string, RegExp> = new Map(
  [',', '.', ' ', '\u00a0', '\u202f', '\u2009', "'"].map((sep) => [
    sep,
    new RegExp(`^\\d{1,3}(?:\\${sep}\\d{3})+$`),
  ]),
);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Currency units → integer minor units, exactly: `'19.99'` with 2 decimals → 1999. Pure string-decimal
 * arithmetic, never `value * 100`.
 *
 * - Strings: surrounding spaces, a currency symbol or code (`$ 12.90`, `RM12.90`, `12.90 EUR`, `¥1200`),
 *   a leading `-`/`+` (also `−`, or accounting parentheses `(12.90)`) and valid thousands grouping
 *   (`1,234.50`; with `decimalComma`: `1.234,50`; spaces/no-break spaces/`'` in both) are accepted.
 *   Exponents (`1e3`) and anything else are `money_invalid`.
 * - Numbers (XLSX): read through 15 significant digits, so float noise such as 19.990000000000002 or
 *   19.989999999999998 is 19.99, while a genuine 19.995 is still three decimals.
 * - More non-zero decimals than the currency has: `money_too_many_decimals` (`19.999` with 2). Extra
 *   trailing zeros (`19.990`, `1200.00` for JPY) are exact and accepted.
 * - Negative: `money_negative` unless `allowNegative`. Beyond 2^53 minor units: `money_too_large`.
 * - `minor: true`: only integers (`1999`, or an integral XLSX number): otherwise `money_not_integer`.
 * - `currency` given: a symbol or code of another currency is `money_currency` (checked first, so
 *   `€12,90` names the currency rather than the comma).
 * - `decimalComma`: a `.` only groups thousands, in groups of exactly three digits (`1.234,50`,
 *   `12.905` = 12905); `12.9` or `12.90` is `money_invalid`, never 12.90.
 * - Blank (see `isBlank`): `money_blank`. Callers that treat blank as "leave untouched" check `isBlank` first.
 */
export function parseMoney(
  value: CellValue,
  decimals: number,
  options: ParseMoneyOptions = {},
): CellResult<number> {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 10) {
    throw new RangeError(`parseMoney: decimals must be an integer 0..10, got ${decimals}`);
  }
  if (isBlank(value)) return cellError('money_blank', 'the amount is blank: write an amount such as 12.90');
  // With a decimal comma, `12.9` is not twelve ninety (a `.` only groups thousands): no fast path.
  const dotIsGrouping = options.decimalComma === true && typeof value === 'string' && value.includes('.');
  if (!options.minor && !options.allowNegative && !dotIsGrouping) {
    const fast = fastPath(value, decimals);
    if (fast !== undefined) return cellOk(fast);
  }
  const example = exampleAmount(decimals);
  if (typeof value === 'boolean' || value instanceof Date) {
    return cellError(
      'money_invalid',
      `"${cellText(value)}" is not an amount: write a number such as ${example}`,
    );
  }

  if (options.minor) return parseMinor(value, options);

  let text: string;
  let decimalComma = options.decimalComma ?? false;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      return cellError('money_invalid', `"${value}" is not an amount: write ${example}`);
    text = numberToDecimalString(value);
    decimalComma = false;
    if (text.includes('e')) {
      return cellError(
        'money_too_large',
        `${value} is out of range for an amount: write a value such as ${example}`,
      );
    }
  } else {
    text = value;
  }

  const affixes: string[] = [];
  const parsed = parseDecimalText(text, decimalComma, affixes);
  if (options.currency !== undefined && affixes.length > 0) {
    const own = ownSymbols(options.currency);
    const foreign = affixes.find((a) => !own.has(normalizeAffix(a)));
    if (foreign !== undefined) {
      return cellError(
        'money_currency',
        `"${text.trim()}" is in another currency (${foreign.trim()}): this store's prices are in ${options.currency.toUpperCase()}; convert it and write ${ownExample(options.currency, decimalComma ? example.replace('.', ',') : example)}`,
      );
    }
  }
  if (!parsed) {
    const hint = decimalComma
      ? ` (this file uses a decimal comma: write 12,90 or 1.234,50)`
      : ` (write 12.90 or 1,234.50; for a decimal comma such as 12,90, run with --decimal-comma)`;
    return cellError(
      'money_invalid',
      `"${text.trim()}" is not an amount: write a number such as ${example}${hint}`,
    );
  }
  const { negative, intDigits } = parsed;
  let frac = parsed.fracDigits.replace(/0+$/, '');
  if (frac.length > decimals) {
    return cellError(
      'money_too_many_decimals',
      `"${text.trim()}" has ${frac.length} decimals but the currency has ${decimals}: write ${example}`,
    );
  }
  frac = frac.padEnd(decimals, '0');
  const digits = intDigits + frac;
  if (digits.length > 15 && BigInt(digits) > MAX_SAFE) {
    return cellError('money_too_large', `"${text.trim()}" is too large for an amount`);
  }
  const minor = Number(digits);
  if (negative && minor !== 0 && !options.allowNegative) {
    return cellError(
      'money_negative',
      `"${text.trim()}" is negative: write a positive amount such as ${example}`,
    );
  }
  return cellOk(negative && minor !== 0 ? -minor : minor);
}

const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 1e10];
const PLAIN = /^(\d{1,15})(?:\.(\d*))?$/;

/**
 * The common cases without allocation: a plain non-negative decimal string whose digits fit in 15
 * significant digits (exact in a double, so the integer arithmetic below is exact), or an XLSX number
 * whose distance to the nearest minor unit is float noise beyond its 15th significant digit. Anything
 * else (undefined) goes through the general string path, which decides exactly.
 */
function fastPath(value: CellValue, decimals: number): number | undefined {
  if (typeof value === 'number') {
    if (!(value >= 0)) return undefined;
    const scaled = value * (POW10[decimals] as number);
    if (scaled >= 1e7) return undefined;
    const rounded = Math.round(scaled);
    return Math.abs(scaled - rounded) < 5e-9 ? rounded : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const m = PLAIN.exec(value);
  if (!m) return undefined;
  const int = m[1] as string;
  const frac = m[2] ?? '';
  if (frac.length > decimals || int.length + decimals > 15) return undefined;
  const fracValue = frac === '' ? 0 : Number(frac) * (POW10[decimals - frac.length] as number);
  return Number(int) * (POW10[decimals] as number) + fracValue;
}

function parseMinor(value: string | number, options: ParseMoneyOptions): CellResult<number> {
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      return cellError(
        'money_not_integer',
        `${cellText(value)} is not a whole number: with --money minor write minor units such as 1290 (for 12.90)`,
      );
    }
    n = value;
  } else {
    const t = value.trim().replace(/^\u2212/, '-');
    if (!/^[-+]?\d+$/.test(t)) {
      return cellError(
        'money_not_integer',
        `"${value.trim()}" is not a whole number: with --money minor write minor units such as 1290 (for 12.90)`,
      );
    }
    const big = BigInt(t);
    if (big > MAX_SAFE || -big > MAX_SAFE)
      return cellError('money_too_large', `"${t}" is too large for an amount`);
    n = Number(big);
  }
  if (n < 0 && !options.allowNegative) {
    return cellError(
      'money_negative',
      `${n} is negative: write a positive amount in minor units such as 1290`,
    );
  }
  return cellOk(n === 0 ? 0 : n);
}

interface DecimalParts {
  negative: boolean;
  intDigits: string;
  fracDigits: string;
}

/** Parses the text of an amount; the currency affixes it strips are pushed onto `affixes`. */
function parseDecimalText(input: string, decimalComma: boolean, affixes: string[]): DecimalParts | null {
  let t = input.trim().replace(/\u2212/g, '-');
  let negative = false;
  if (t.startsWith('(') && t.endsWith(')')) {
    negative = true;
    t = t.slice(1, -1).trim();
  }
  // Sign may come before or after a currency prefix: "-$12.90", "$-12.90", "-RM 12.90".
  let sign = /^[-+]/.exec(t);
  if (sign) {
    negative = sign[0] === '-' ? !negative : negative;
    t = t.slice(1).trim();
  }
  const noPrefix = stripCurrency(t, CURRENCY_AFFIX, affixes);
  if (noPrefix === null) return null;
  t = noPrefix;
  sign = sign ? null : /^[-+]/.exec(t);
  if (sign) {
    negative = sign[0] === '-' ? !negative : negative;
    t = t.slice(1).trim();
  }
  const noSuffix = stripCurrency(t, CURRENCY_SUFFIX, affixes);
  if (noSuffix === null || noSuffix === '') return null;
  t = noSuffix;

  const decimalMark = decimalComma ? ',' : '.';
  const groupMark = decimalComma ? '.' : ',';
  const at = t.indexOf(decimalMark);
  if (at !== t.lastIndexOf(decimalMark)) return null;
  const intPart = at === -1 ? t : t.slice(0, at);
  const fracPart = at === -1 ? '' : t.slice(at + 1);
  if (!/^\d*$/.test(fracPart)) return null;
  if (intPart === '' && fracPart === '') return null;

  let intDigits: string;
  if (/^\d*$/.test(intPart)) {
    intDigits = intPart;
  } else {
    // Grouped: 1-3 digits, then groups of exactly 3, one separator kind throughout.
    const sep = /\D/.exec(intPart)?.[0];
    const grouped = sep === undefined || sep === decimalMark ? undefined : GROUPED.get(sep);
    if (!grouped || (sep !== groupMark && !NEUTRAL_GROUPING.test(sep as string)) || !grouped.test(intPart)) {
      return null;
    }
    intDigits = intPart.replace(/\D/g, '');
  }
  intDigits = intDigits.replace(/^0+(?=\d)/, '');
  return { negative, intDigits: intDigits === '' ? '0' : intDigits, fracDigits: fracPart };
}

/** A number as a plain decimal string, through 15 significant digits (the precision a spreadsheet shows). */
function numberToDecimalString(value: number): string {
  if (value === 0) return '0';
  const s = value.toPrecision(15);
  if (s.includes('e')) return s;
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

function exampleAmount(decimals: number): string {
  return decimals === 0 ? '1290' : `12.${'9'.padEnd(decimals, '0')}`;
}

const POWERS_OF_TEN = [1, 10, 100, 1_000, 10_000];

/**
 * Integer minor units → exact decimal text in currency units: 1999 → '19.99', 5 → '0.05', -5 → '-0.05',
 * JPY (0 decimals) 1200 → '1200'. Throws on a non-integer (a programming error, never a cell error).
 */
export function formatMoney(minor: number, decimals: number): string {
  if (!Number.isSafeInteger(minor))
    throw new TypeError(`formatMoney: minor units must be a safe integer, got ${minor}`);
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`formatMoney: bad decimals ${decimals}`);
  const negative = minor < 0;
  const power = POWERS_OF_TEN[decimals];
  if (power !== undefined && decimals > 0) {
    // Integer arithmetic (exact for safe integers): the same text as the general path below, which
    // a money column of an export calls for every cell.
    const units = negative ? -minor : minor;
    const fraction = units % power;
    let digits = String(fraction);
    while (digits.length < decimals) digits = `0${digits}`;
    const text = `${(units - fraction) / power}.${digits}`;
    return negative ? `-${text}` : text;
  }
  const digits = Math.abs(minor).toFixed(0);
  if (decimals === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(decimals + 1, '0');
  const text = `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/**
 * Integer minor units → the nearest double in currency units (1999 → 19.99), for numeric spreadsheet cells:
 * the same double a person typing `19.99` gets. A division does it exactly: the minor units and the power
 * of ten are exact doubles, and IEEE 754 rounds their quotient to the nearest double, which is what
 * parsing the decimal text `19.99` (= 1999 / 100) gives. Called for every money cell of an XLSX export.
 */
export function minorToUnits(minor: number, decimals: number): number {
  const power = POWERS_OF_TEN[decimals];
  if (power === undefined || !Number.isSafeInteger(minor)) return Number(formatMoney(minor, decimals));
  return minor / power;
}
