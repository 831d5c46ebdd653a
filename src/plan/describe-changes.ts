import { formatMoney } from '../sheets/money.js';
import { visibleCut } from '../sheets/visible-text.js';
import type { FieldChange, PlanEntry, PlanValue } from './product-plan.js';

const MAX_TEXT = 60;

/**
 * A plan value for people: money in currency units, lists joined, long text cut, its control
 * characters shown as escapes before the cut (`visibleCut`).
 */
export function showPlanValue(value: PlanValue, money: boolean, decimals: number): string {
  if (value === null) return '(none)';
  if (money && typeof value === 'number' && Number.isSafeInteger(value)) return formatMoney(value, decimals);
  if (Array.isArray(value)) return value.length === 0 ? '(empty)' : value.join('|');
  if (typeof value === 'string') {
    const oneLine = value.replace(/\r?\n/g, '⏎');
    if (oneLine === '') return '""';
    return visibleCut(oneLine, MAX_TEXT);
  }
  return String(value);
}

/** One change as a line: `price: 19.90 → 21.00`, `variants[S-2]: added`. */
export function describeChange(change: FieldChange, decimals: number): string {
  if (change.note !== undefined) return `${change.path}: ${change.note}`;
  const money = change.money === true;
  return `${change.path}: ${showPlanValue(change.before, money, decimals)} → ${showPlanValue(change.after, money, decimals)}`;
}

/** The change lines of one plan entry, for the terminal and the report. */
export function describeChanges(entry: Pick<PlanEntry, 'changes'>, decimals: number): string[] {
  return entry.changes.map((c) => describeChange(c, decimals));
}
