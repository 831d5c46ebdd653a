import { PLAN_ACTIONS } from './product-plan.js';
import type { PlanEntry, PlanSummary } from './product-plan.js';

/** Counts per action (every action present, 0 when none) and the total. */
export function summarizePlan(plan: { entries: readonly Pick<PlanEntry, 'action'>[] }): PlanSummary {
  const summary = { total: 0 } as PlanSummary;
  for (const a of PLAN_ACTIONS) summary[a] = 0;
  for (const e of plan.entries) {
    summary[e.action]++;
    summary.total++;
  }
  return summary;
}
