import { formatMoney } from '../sheets/money.js';
import { visibleCut } from '../sheets/visible-text.js';
import { productFieldChanges, type PlanFieldChange } from './plan-changes.js';
import type { PlanEntry } from './product-plan.js';

const MAX_TEXT = 60;

/**
 * A plan value for people: money in currency units, lists joined, long text cut, its control
 * characters shown as escapes before the cut (`visibleCut`).
 */
export function showPlanValue(value: unknown, money: boolean, decimals: number): string {
  if (value === null) return '(none)';
  if (money && typeof value === 'number' && Number.isSafeInteger(value)) return formatMoney(value, decimals);
  if (Array.isArray(value)) return value.length === 0 ? '(empty)' : value.map(String).join('|');
  if (typeof value === 'string') {
    const oneLine = value.replace(/\r?\n/g, '⏎');
    if (oneLine === '') return '""';
    return visibleCut(oneLine, MAX_TEXT);
  }
  if (typeof value === 'object') return visibleCut(JSON.stringify(value), MAX_TEXT);
  return String(value as number | boolean | bigint | undefined);
}

/**
 * One change as a line, read through the shared reader's shape (plan-changes.ts), the same the
 * MCP tools return: `price: 19.90 → 21.00`, `variants[S-2]: added`.
 */
export function describeChange(change: PlanFieldChange, decimals: number): string {
  if (change.note !== undefined) return `${change.field}: ${change.note}`;
  const money = change.money === true;
  return `${change.field}: ${showPlanValue(change.before, money, decimals)} → ${showPlanValue(change.after, money, decimals)}`;
}

/** The change lines of one products plan entry, for the terminal and the report. */
export function describeChanges(entry: Pick<PlanEntry, 'changes'>, decimals: number): string[] {
  return productFieldChanges(entry.changes).map((c) => describeChange(c, decimals));
}
