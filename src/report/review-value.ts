import { formatMoney } from '../sheets/money.js';

/** Longest text shown in one table cell (a description is cut there, with an ellipsis). */
export const MAX_CELL_TEXT = 2000;

/** How a value reads on the review page: money in the store's currency, lists joined, nothing as `—`. */
export function reviewValue(value: unknown, money?: { decimals: number; currency: string }): string {
  if (value === null || value === undefined) return '—';
  if (money && typeof value === 'number' && Number.isSafeInteger(value))
    return `${formatMoney(value, money.decimals)} ${money.currency}`;
  if (Array.isArray(value))
    return value.length === 0 ? '(empty)' : value.map((v) => reviewValue(v)).join(' | ');
  if (typeof value === 'string') {
    if (value === '') return '""';
    return value.length > MAX_CELL_TEXT ? `${value.slice(0, MAX_CELL_TEXT)}…` : value;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as number | boolean);
}

/** `+3`, `-2`, `0`. */
export function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
