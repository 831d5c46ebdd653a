import type { ReviewPage } from './review-page.js';

function fact(page: ReviewPage, label: string): string | undefined {
  return page.facts.find(([l]) => l === label)?.[1];
}

/** What a run page is, from the run's status (`Status` fact): a plan, an applied, interrupted or failed run. */
const STATES: Record<string, [run: string, rollback: string, detail: string]> = {
  planned: ['Plan', 'Rollback plan', 'nothing has been written yet'],
  applying: ['Run being applied', 'Rollback being applied', 'writes are under way'],
  applied: ['Applied run', 'Applied rollback', 'every change was tried: see each outcome below'],
  interrupted: ['Interrupted run', 'Interrupted rollback', 'stopped before every change was written'],
  failed: ['Failed run', 'Failed rollback', 'stopped on an error before every change was written'],
};

/**
 * The page's first line: what it is (plan, applied run, interrupted run, rollback…) and the target
 * it writes to, e.g. `Plan · nothing has been written yet · target http://127.0.0.1:4010`.
 */
export function pageHeadline(page: ReviewPage): string {
  const status = fact(page, 'Status');
  const rollback = /^rollback\b/i.test(page.title);
  const state = status === undefined ? undefined : STATES[status];
  const parts = state
    ? [rollback ? state[1] : state[0], state[2]]
    : [rollback ? 'Rollback' : 'Run', ...(status ? [`status ${status}`] : [])];
  const target = fact(page, 'Target');
  if (target !== undefined) parts.push(`target ${target}`);
  return parts.join(' · ');
}
