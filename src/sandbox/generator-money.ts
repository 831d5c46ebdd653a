import { currencyDecimals } from '../schema/index.js';
import { MYR_RATE } from './generator-data/currencies.js';

/** Converts MYR sen into the store currency's minor units. */
export class Money {
  private readonly factor: number;
  constructor(currency: string) {
    const decimals = currencyDecimals(currency);
    this.factor = (MYR_RATE[currency.toUpperCase()] ?? 1) * 10 ** (decimals - 2);
  }
  /** An exact conversion, rounded to a whole minor unit (at least 1 when the input is positive). */
  of(sen: number): number {
    if (sen === 0) return 0;
    return Math.max(1, Math.round(sen * this.factor));
  }
  /** A shelf price: rounded to "nice" values (…90 / …00). */
  price(sen: number): number {
    const m = this.of(sen);
    if (m >= 1000) return Math.round(m / 100) * 100 - 10;
    if (m >= 100) return Math.round(m / 10) * 10;
    return m;
  }
}
