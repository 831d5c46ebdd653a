import type { RunDirectory } from '../apply/run-directory.js';
import { readPlanChanges } from '../jobs/read-plan-changes.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { PlanFieldChange } from '../plan/plan-changes.js';
import { moneyOf, type Money, type PlanMoney } from './money-value.js';
import { inToolTerms } from './tool-terms.js';

/**
 * One planned change as data: what it does to which entity, from which sheet row, and each field's
 * value before and after (money as `{amount, currency}` in currency units). Values are the sheet's
 * or the store's, never instructions.
 */
export interface ChangeRow {
  /** Position in the plan's list of changes (0-based): `show_plan` pages by it. */
  index: number;
  action: string;
  entity: string;
  id: string | null;
  label: string;
  /** The input sheet and row it was planned from (null: no row, e.g. a rollback or `missing`). */
  sheet: string | null;
  row: number | null;
  fields: { field: string; before: unknown; after: unknown; note?: string }[];
}

/** A price change refused unless allowed (×10 or more, or over 10× the catalog median), in currency units. */
export interface PriceJumpView {
  label: string;
  row: number | null;
  before: Money | null;
  after: Money;
  reason: string;
  /** One line for people, amounts in currency units. */
  message: string;
}

/** An invalid row of the plan's input: where, and why (the first ones, and how many there are). */
export interface InvalidRowView {
  sheet: string;
  row: number;
  column: string | null;
  header: string | null;
  code: string;
  message: string;
}

/** What a run's plan.json says, for the tools: counts, writes, guards, changes. */
export interface PlanView {
  kind: string;
  /** Entities the plan writes (what `--max-changes` counts). */
  writes: number;
  /** Products the plan hides (0 for other kinds). */
  hides: number;
  /** Products the plan deletes. */
  deletes: number;
  /** Live products when planned (products plans), else null. */
  liveCount: number | null;
  priceJumps: PriceJumpView[];
  /** Why the planner refused the plan (it is never applied). */
  refusal: string | null;
  /** Products: stock the sheet tracks without giving it, and no `stock_unknown` mode chosen. */
  stockUnknown: string | null;
  /** Products: new products without a category, and no category_map, default_category or no_category. */
  noCategory: string | null;
  /** Row errors: the rows nothing is planned from. */
  invalid: RowIssue[];
  /** A rollback: what it cannot (or will not) undo, and why (in tool terms). */
  notReversible: { type: string; id: string; label: string; reason: string }[];
  changes: ChangeRow[];
}

/** A field's value as the tools return it: money in currency units with its currency. */
function fieldValue(value: unknown, change: PlanFieldChange, money: PlanMoney | null): unknown {
  if (change.money !== true || money === null) return value;
  if (typeof value === 'number') return moneyOf(value, money);
  // A variant as a rollback shows it: `{name, price, stock?}`, its price in minor units.
  if (typeof value === 'object' && value !== null && 'price' in value && typeof value.price === 'number')
    return { ...value, price: moneyOf(value.price, money) };
  return value;
}

/** A row issue as `plan_import` returns it. */
export function invalidRowView(issue: RowIssue): InvalidRowView {
  return {
    sheet: issue.sheet,
    row: issue.rowNumber,
    column: issue.column ?? null,
    header: issue.header ?? null,
    code: issue.code,
    message: issue.message,
  };
}

/** Reads a run's plan as the tools show it, through the kind's own plan schema (see readPlanChanges). */
export function readPlanView(run: RunDirectory): PlanView {
  const plan = readPlanChanges(run);
  const { money } = plan;
  return {
    kind: plan.kind,
    writes: plan.writes,
    hides: plan.hides,
    deletes: plan.deletes,
    liveCount: plan.liveCount,
    priceJumps: plan.priceJumps.map((j) => ({
      label: j.label,
      row: j.rowNumber ?? null,
      before: j.before === null || money === null ? null : moneyOf(j.before, money),
      after: money === null ? { amount: String(j.after), currency: '' } : moneyOf(j.after, money),
      reason: j.reason,
      message: j.message,
    })),
    refusal: plan.refusal,
    stockUnknown: plan.stockUnknown,
    noCategory: plan.noCategory,
    invalid: plan.issues.filter((i) => i.severity === 'error'),
    notReversible: plan.notReversible.map((n) => ({
      type: n.type,
      id: n.id,
      label: n.label,
      reason: inToolTerms(n.reason),
    })),
    changes: plan.changes.map((c, index) => ({
      index,
      action: c.action,
      entity: c.entity,
      id: c.id,
      label: c.label,
      sheet: c.sheet,
      row: c.row,
      fields: c.fields.map((f) => ({
        field: f.field,
        before: fieldValue(f.before, f, money),
        after: fieldValue(f.after, f, money),
        ...(f.note !== undefined ? { note: f.note } : {}),
      })),
    })),
  };
}
