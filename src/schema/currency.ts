/**
 * ISO 4217 minor units (decimals) per currency. The spec only says "smallest currency unit; decimals
 * vary by currency"; docs/architecture.md ("The API: gaps and rules") decides on the ISO table,
 * overridable per run.
 */
const ZERO = [
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
];
const THREE = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const FOUR = ['CLF', 'UYW'];

const TABLE: ReadonlyMap<string, number> = new Map([
  ...ZERO.map((c) => [c, 0] as const),
  ...THREE.map((c) => [c, 3] as const),
  ...FOUR.map((c) => [c, 4] as const),
]);

/** Decimals of a currency's minor unit (2 unless ISO 4217 says otherwise). */
export function currencyDecimals(currency: string): number {
  return TABLE.get(currency.toUpperCase()) ?? 2;
}
