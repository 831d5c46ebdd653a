import { isSupportedCountry } from 'libphonenumber-js';
import { CliError } from './cli-error.js';
import type { GlobalArgs } from './command-context.js';
import { ExitCode } from './exit-code.js';

/** The store `--empty [--currency] [--country]` asks for. */
export interface EmptyStore {
  currency: string;
  country: string;
}

/**
 * `--empty [--currency USD] [--country US]`, checked: the currency an ISO 4217 code, the country an
 * ISO 3166 alpha-2 code; either without `--empty` is a usage error. Undefined without `--empty`.
 */
export function emptyStoreOf(
  args: Pick<GlobalArgs, 'empty' | 'currency' | 'country'>,
): EmptyStore | undefined {
  if (args.empty !== true) {
    const given = args.currency !== undefined ? '--currency' : args.country !== undefined ? '--country' : '';
    if (given !== '')
      throw new CliError(
        `${given} sets the ${given.slice(2)} of a new empty sandbox store: add --empty`,
        ExitCode.Usage,
      );
    return undefined;
  }
  const currency = (args.currency ?? 'USD').trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency) || !Intl.supportedValuesOf('currency').includes(currency))
    throw new CliError(
      `--currency ${args.currency ?? ''}: not an ISO 4217 currency code such as USD, EUR, MYR`,
      ExitCode.Usage,
    );
  const country = (args.country ?? 'US').trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(country) || !isSupportedCountry(country))
    throw new CliError(
      `--country ${args.country ?? ''}: not an ISO 3166 country code such as US, DE, MY`,
      ExitCode.Usage,
    );
  return { currency, country };
}

/**
 * A state file that exists already keeps its store: `--empty --currency X` on a store of another
 * currency or country is refused (its prices would be read in the wrong currency), naming both.
 */
export function checkEmptyStore(
  wanted: EmptyStore,
  store: { currency: string; country: string },
  dataFile: string,
  otherwise: string,
): void {
  if (store.currency.toUpperCase() === wanted.currency && store.country.toUpperCase() === wanted.country)
    return;
  throw new CliError(
    `the sandbox state ${dataFile} already exists with a ${store.currency} store in ${store.country}, not the empty ${wanted.currency} store in ${wanted.country} that --empty asks for; ${otherwise}`,
    ExitCode.Usage,
  );
}
