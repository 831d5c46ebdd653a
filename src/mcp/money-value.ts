import { z } from 'zod';
import { formatMoney } from '../sheets/money.js';

/**
 * An amount as every tool returns it: a decimal string in currency units, as the files write it
 * (`"12.50"`, JPY `"1200"`), with the store's currency: an assistant quotes it as it is.
 */
export interface Money {
  amount: string;
  currency: string;
}

/** The output schema of an amount. */
export const MoneySchema = z
  .object({
    amount: z.string().describe('Decimal amount in currency units, e.g. "12.50"'),
    currency: z.string().describe('ISO 4217 code, e.g. "MYR"'),
  })
  .describe('An amount in currency units');

/** The currency a plan's amounts are in, and its decimals (plans keep money in minor units). */
export interface PlanMoney {
  currency: string;
  decimals: number;
}

/** Minor units (1250) as an amount in currency units (`{amount: "12.50", currency}`). */
export function moneyOf(minor: number, money: PlanMoney): Money {
  return {
    amount: Number.isSafeInteger(minor) ? formatMoney(minor, money.decimals) : String(minor),
    currency: money.currency,
  };
}
