import type { RunDirectory } from '../apply/run-directory.js';
import type { RowIssue } from '../mapping/row-issue.js';
import {
  customerPlanChanges,
  messagePlanChanges,
  productPlanChanges,
  rollbackPlanChanges,
  stockPlanChanges,
  templatePlanChanges,
  type PlanChange,
} from '../plan/plan-changes.js';
import type { PriceJump } from '../plan/price-jumps.js';
import { stockUnknownRefusal } from '../plan/stock-unknown.js';
import { categoryRefusal } from '../plan/category-plan.js';
import { CustomerPlanFileSchema } from './customers/customer-plan-file.js';
import { MessagePlanFileSchema, sendRefusal } from './messages/message-plan-file.js';
import { readProductPlan } from './products/product-plan-file.js';
import { readRollbackPlan } from './rollback/rollback-plan-file.js';
import { readPlanFile } from './runner/plan-file.js';
import { StockPlanFileSchema } from './stock/stock-plan-file.js';
import { TemplatePlanFileSchema } from './templates/template-plan-file.js';

/** A run's planned writes as every reader shows them, read through its kind's own plan schema. */
export interface RunPlanChanges {
  kind: string;
  /** The store's currency and its decimals, for the plan's money (null: the plan holds none). */
  money: { currency: string; decimals: number } | null;
  /** Every planned write, in plan order. */
  changes: PlanChange[];
  /** Entities the plan writes (what a max-changes limit counts). */
  writes: number;
  /** Products the plan hides, and deletes. */
  hides: number;
  deletes: number;
  /** Live products when planned (products plans: what a hide or delete share is of); else null. */
  liveCount: number | null;
  /** Prices the plan writes that look like typos (products). */
  priceJumps: readonly PriceJump[];
  /** Why the plan was refused when planned (it is never applied), or null. */
  refusal: string | null;
  /** Products: stock the sheet tracks without giving it, with no mode chosen (applying is refused). */
  stockUnknown: string | null;
  /** Products: new products that would have no category, with no choice made (applying is refused). */
  noCategory: string | null;
  /** Row issues of the plan (errors are invalid rows; warnings), in row order as planned. */
  issues: readonly RowIssue[];
  /** A rollback: what the run did that it cannot (or will not) undo, and why. */
  notReversible: readonly { type: string; id: string; label: string; reason: string }[];
}

const NONE = {
  hides: 0,
  deletes: 0,
  liveCount: null,
  priceJumps: [],
  refusal: null,
  stockUnknown: null,
  noCategory: null,
  notReversible: [],
};

/**
 * Reads a run's plan.json with its kind's schema (a damaged or foreign plan throws
 * DamagedPlanError) as its planned changes: the one reader the MCP tools use, built from the same
 * per-kind mappings (plan/plan-changes.ts) as the review pages.
 */
export function readPlanChanges(run: RunDirectory): RunPlanChanges {
  const kind = run.meta.kind;
  const done = (
    changes: PlanChange[],
    rest: Partial<RunPlanChanges> & Pick<RunPlanChanges, 'money' | 'issues'>,
  ) => ({
    ...NONE,
    kind,
    changes,
    writes: changes.length,
    ...rest,
  });
  switch (kind) {
    case 'products': {
      const file = readProductPlan(run);
      const changes = productPlanChanges(file.plan);
      return done(changes, {
        money: { currency: file.store.currency, decimals: file.plan.decimals },
        hides: changes.filter((c) => c.action === 'hide').length,
        deletes: changes.filter((c) => c.action === 'delete').length,
        liveCount: file.plan.liveCount,
        priceJumps: file.priceJumps ?? [],
        refusal: file.refusal ?? null,
        stockUnknown: stockUnknownRefusal(file.plan) ?? null,
        noCategory: categoryRefusal(file.plan) ?? null,
        issues: [...file.issues, ...file.plan.entries.flatMap((e) => e.issues)],
      });
    }
    case 'customers': {
      const file = readPlanFile(run, CustomerPlanFileSchema);
      return done(customerPlanChanges(file.plan), { money: null, issues: file.plan.issues });
    }
    case 'stock': {
      const file = readPlanFile(run, StockPlanFileSchema);
      return done(stockPlanChanges(file.plan), {
        money: null,
        refusal: file.refusal ?? null,
        issues: file.plan.issues,
      });
    }
    case 'rollback': {
      const file = readRollbackPlan(run);
      const changes = rollbackPlanChanges(file.restores);
      return done(changes, {
        money: { currency: file.store.currency, decimals: file.store.decimals },
        deletes: changes.filter((c) => c.action === 'delete').length,
        refusal: file.refusal ?? null,
        issues: [],
        notReversible: file.notReversible,
      });
    }
    case 'templates': {
      const file = readPlanFile(run, TemplatePlanFileSchema);
      return done(templatePlanChanges(file.plan), { money: null, issues: file.plan.issues });
    }
    case 'messages': {
      const file = readPlanFile(run, MessagePlanFileSchema);
      return done(messagePlanChanges(file.plan), {
        money: null,
        refusal: sendRefusal(file) ?? null,
        issues: file.plan.issues,
      });
    }
    default:
      return done([], { money: null, issues: [] });
  }
}
