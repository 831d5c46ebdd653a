import type { CustomerPlan } from '../plan/customer-plan.js';
import { customerFieldChanges } from '../plan/plan-changes.js';
import { entityOutcome, type ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard } from './review-page.js';
import { reviewValue } from './review-value.js';
import { withChangeTable } from './change-table.js';

const ACTION_NAMES: Record<string, string> = { noop: 'unchanged' };

/** The review page body of a customers plan: one card per customer row, before → after per field. */
export function customerReview(file: { plan: CustomerPlan }, options: ReviewOptions = {}): ReviewBody {
  const { plan } = file;
  const cards = plan.entries.slice(0, MAX_REVIEW_CARDS).map((e): ReviewCard => {
    const name = e.create?.name ?? e.update?.name ?? e.before?.name ?? `${e.sheet} row ${e.rowNumber}`;
    const phone = e.create?.phone ?? e.before?.phone ?? e.update?.phone ?? '';
    const card: ReviewCard = { action: ACTION_NAMES[e.action] ?? e.action, name, key: phone };
    if (e.changes.length > 0)
      card.rows = customerFieldChanges(e.changes).map((c) => ({
        cells: [c.field, e.action === 'create' ? '—' : reviewValue(c.before), reviewValue(c.after)],
      }));
    const notes = [`${e.sheet} row ${e.rowNumber}`];
    if (e.customerId)
      notes.push(`customer ${e.customerId}${e.matchedBy ? ` (matched by ${e.matchedBy})` : ''}`);
    card.notes = notes;
    if (options.applied && (e.action === 'create' || e.action === 'update'))
      card.outcome = entityOutcome(options.applied, e.key);
    return card;
  });
  const body: ReviewBody = {
    notes: plan.issues.filter((i) => i.severity === 'warning').map((i) => `warning: ${reviewIssueText(i)}`),
    columns: [{ label: 'Field' }, { label: 'Before', role: 'before' }, { label: 'After', role: 'after' }],
    cards,
    ...(plan.entries.length > MAX_REVIEW_CARDS ? { totalCards: plan.entries.length } : {}),
    invalid: invalidRows(plan.issues),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined) body.applyCommand = options.applyCommand;
  if (options.resumeCommand !== undefined) body.resumeCommand = options.resumeCommand;
  if (options.counts !== undefined) body.counts = options.counts;
  // Thousands of customers that change: one table, as stock plans have.
  return withChangeTable(body, (card) => card.action === 'create' || card.action === 'update');
}
