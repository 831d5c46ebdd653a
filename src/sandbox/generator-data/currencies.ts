// A data table of the sandbox generator (src/sandbox/generator.ts): values, no generation logic.
/** Approximate value of one MYR in a few currencies, so that generated prices look plausible. */
export const MYR_RATE: Readonly<Record<string, number>> = {
  MYR: 1,
  SGD: 0.3,
  USD: 0.22,
  EUR: 0.2,
  GBP: 0.17,
  AUD: 0.33,
  JPY: 33,
  KRW: 300,
  IDR: 3500,
  VND: 5500,
  THB: 7.7,
  PHP: 13,
  KWD: 0.07,
  BHD: 0.085,
};
