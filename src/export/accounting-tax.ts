import { UsageError } from '../errors/usage-error.js';
import type { Store } from '../schema/store.js';
import { accountFor, type AccountMap } from './accounting-accounts.js';
import type { AccountingProfile } from './accounting-profile.js';
import { allocateLargestRemainder } from './allocate-largest-remainder.js';

/**
 * How a profile file carries the store's tax. Never as a sales line:
 *
 * - `inclusive` (the store's prices include tax): every line is the amount the customer paid, with
 *   the store's tax rate in the tax column; the program takes the tax out of each line. Import the
 *   file with "amounts are tax inclusive".
 * - `exclusive` (prices exclude tax): every line is the net amount with the store's tax rate; the
 *   program adds the tax line by line. Where its per-line rounding gives a tax other than the
 *   store's, a `Tax rounding` line with the zero rate carries the difference to the `rounding`
 *   account, so the invoice total is the order's. Import with "amounts are tax exclusive".
 * - `line` (`--accounts tax=…`): for programs or regions whose tax rates cannot express the store's
 *   tax: net lines with the zero rate, and the store's tax as a line of its own on the `tax`
 *   (liability) account. Import as tax exclusive.
 *
 * The API's orders carry one tax amount per order and no rate per line: every taxable line takes
 * the store's rate (`store.tax.percent`).
 */
export type TaxMode = 'inclusive' | 'exclusive' | 'line';

export interface TaxPolicy {
  mode: TaxMode;
  /** The store's rate in percent. */
  percent: number;
  /** The program's name of the store's rate (Xero `*TaxType`, QuickBooks `Item tax code`). */
  taxed: string;
  /** The program's name of a rate with no tax (rounding, differences, `line` mode). */
  zero: string;
  /** How the program computes an invoice's tax (TaxComputation). */
  computation: TaxComputation;
}

export interface TaxOptions {
  /** `--tax-type`: the program's name of the store's tax rate. */
  taxType?: string;
  /** `--zero-tax-type`: the program's name of a rate with no tax. */
  zeroTaxType?: string;
}

/**
 * Tax rate names a program has by default in an organisation of a country, by rate: Xero's default
 * tax rates (UK: "20% (VAT on Income)", "No VAT"; Australia: "GST on Income", "GST Free Income";
 * New Zealand: "15% GST on Income", "No GST"; elsewhere "Tax Exempt" for no tax). QuickBooks Online
 * US: the codes `TAX` and `NON`; UK: its VAT codes `20.0% S`, `5.0% R`, `No VAT`. Anything else
 * must be named with --tax-type / --zero-tax-type.
 */
/** Per profile, per country (`*`: any other), the zero rate and the rates by percent (`*`: any rate). */
const IMPLIED: Record<AccountingProfile, Record<string, { zero: string; rates: Record<string, string> }>> = {
  xero: {
    GB: { zero: 'No VAT', rates: { 20: '20% (VAT on Income)', 5: '5% (VAT on Income)' } },
    AU: { zero: 'GST Free Income', rates: { 10: 'GST on Income' } },
    NZ: { zero: 'No GST', rates: { 15: '15% GST on Income' } },
    '*': { zero: 'Tax Exempt', rates: {} },
  },
  quickbooks: {
    US: { zero: 'NON', rates: { '*': 'TAX' } },
    // Intuit, "VAT codes in QuickBooks Online: A complete guide" (en-uk): the codes QuickBooks sets
    // up for a UK company, 20.0% S, 5.0% R, 0.0% Z, No VAT (out of scope: "typically recorded
    // using the No VAT code"), Exempt.
    GB: { zero: 'No VAT', rates: { 20: '20.0% S', 5: '5.0% R' } },
  },
};

function implied(profile: AccountingProfile, country: string, percent: number) {
  const byCountry = IMPLIED[profile];
  const entry = byCountry[country.toUpperCase()] ?? byCountry['*'];
  if (!entry) return { zero: undefined, taxed: undefined };
  const rates: Record<string, string | undefined> = entry.rates;
  return { zero: entry.zero, taxed: percent === 0 ? entry.zero : (rates[String(percent)] ?? rates['*']) };
}

const PROGRAM: Record<AccountingProfile, string> = { xero: 'Xero', quickbooks: 'QuickBooks Online' };
/** What the program calls a rate: Xero a tax rate, QuickBooks Online a tax (VAT, GST) code. */
const RATE_WORD: Record<AccountingProfile, string> = { xero: 'tax rate', quickbooks: 'tax code' };

/**
 * The tax policy of a profile file for a store, or a UsageError (exit 2) naming the flag to give
 * when the program's required tax column would otherwise be blank.
 */
export function taxPolicy(
  store: Pick<Store, 'tax' | 'country'>,
  profile: AccountingProfile,
  options: TaxOptions,
  accounts: AccountMap,
): TaxPolicy {
  const percent = store.tax.percent;
  const guess = implied(profile, store.country, percent);
  const program = PROGRAM[profile];
  const zero = options.zeroTaxType ?? guess.zero ?? (percent === 0 ? options.taxType : undefined);
  const needZero = (why: string): string => {
    if (zero !== undefined) return zero;
    throw new UsageError(
      `--profile ${profile}: ${why}: name ${program}'s ${RATE_WORD[profile]} with no tax, exactly as ${program} shows it (e.g. ${profile === 'xero' ? '"Tax Exempt"' : '"Exempt" or "Out of Scope"'}), with --zero-tax-type`,
      'zero-tax-type',
    );
  };
  if (accounts.lines.tax !== undefined) {
    if (accounts.lines.tax === accountFor('sales', accounts, profile)) {
      throw new UsageError(
        `--accounts: tax=${accounts.lines.tax} is the sales account: tax would be booked as sales; name the tax liability account`,
        'accounts',
      );
    }
    const z = needZero(
      'with tax=ACCOUNT the tax is a line of its own and every line takes a rate with no tax',
    );
    return { mode: 'line', percent, taxed: z, zero: z, computation: 'line' };
  }
  const taxed = options.taxType ?? guess.taxed;
  if (taxed === undefined) {
    // Both flags at once when both are missing: the store's rate, and (a store with tax) the rate
    // with no tax that tips outside it and rounding lines take.
    const alsoZero =
      zero === undefined
        ? `, and its ${RATE_WORD[profile]} with no tax (for tips outside the tax and rounding lines) with --zero-tax-type`
        : '';
    throw new UsageError(
      percent === 0
        ? `--profile ${profile}: this store charges no tax: name ${program}'s ${RATE_WORD[profile]} with no tax (e.g. ${profile === 'xero' ? '"Tax Exempt"' : '"Exempt" or "Out of Scope"'}) with --tax-type (${program} requires a ${RATE_WORD[profile]} on every line)`
        : `--profile ${profile}: ${program}'s ${RATE_WORD[profile]}s for a store in ${store.country.toUpperCase() || 'this country'} are not known here; this store's prices ${store.tax.inclusive ? 'include' : 'exclude'} ${percent}% tax: name ${program}'s ${RATE_WORD[profile]} for it, exactly as ${program} shows it, with --tax-type${alsoZero} (or book tax to a liability account of its own with --accounts tax=ACCOUNT)`,
      'tax-type',
    );
  }
  // QuickBooks Online US works sales tax out on the taxable subtotal; Xero and QuickBooks outside
  // the US (tax codes per line) line by line.
  const computation: TaxComputation =
    profile === 'quickbooks' && store.country.toUpperCase() === 'US' ? 'subtotal' : 'line';
  if (percent === 0) return { mode: 'exclusive', percent, taxed, zero: zero ?? taxed, computation };
  return {
    mode: store.tax.inclusive ? 'inclusive' : 'exclusive',
    percent,
    taxed,
    zero: needZero(
      `this store's prices ${store.tax.inclusive ? 'include' : 'exclude'} ${percent}% tax and lines outside its tax (tips, rounding) need a rate with no tax`,
    ),
    computation,
  };
}

/** Rounds half away from zero (how the programs round a line's tax to the minor unit). */
function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** The tax a program adds to a net line at `percent` (exclusive amounts), in minor units. */
export function taxOnNet(amount: number, percent: number): number {
  return roundHalfAway((amount * percent) / 100);
}

/** The tax contained in a tax-inclusive line at `percent`, in minor units. */
export function taxInGross(amount: number, percent: number): number {
  return roundHalfAway((amount * percent) / (100 + percent));
}

/**
 * How the program computes an invoice's tax from its taxed lines: `line` (Xero, and QuickBooks
 * Online outside the US: each line's tax rounded, then summed) or `subtotal` (QuickBooks Online US
 * sales tax: the rate on the taxable subtotal, rounded once).
 */
export type TaxComputation = 'line' | 'subtotal';

/** The tax the program computes for taxed amounts (net when `inclusive` is false, gross when true). */
export function programTax(
  amounts: readonly number[],
  policy: Pick<TaxPolicy, 'percent' | 'computation'>,
  inclusive: boolean,
): number {
  const one = (a: number): number =>
    inclusive ? taxInGross(a, policy.percent) : taxOnNet(a, policy.percent);
  if (policy.computation === 'subtotal') return one(amounts.reduce((s, a) => s + a, 0));
  return amounts.reduce((s, a) => s + one(a), 0);
}

/**
 * Each taxed line's share of the program's tax: its own rounded tax (`line`), or the subtotal's tax
 * split in proportion to the lines (`subtotal`), so that the shares add up to programTax.
 */
export function programLineTaxes(
  amounts: readonly number[],
  policy: Pick<TaxPolicy, 'percent' | 'computation'>,
  inclusive: boolean,
): number[] {
  if (policy.computation === 'subtotal') {
    return allocateLargestRemainder(programTax(amounts, policy, inclusive), amounts);
  }
  return amounts.map((a) => (inclusive ? taxInGross(a, policy.percent) : taxOnNet(a, policy.percent)));
}
