import type { TemplatePlan } from '../plan/template-plan.js';
import type { ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import type { ReviewBody, ReviewCard } from './review-page.js';
import { reviewValue } from './review-value.js';

/** The review page body of a templates plan: one card per template, its fields and its body as a preview. */
export function templateReview(file: { plan: TemplatePlan }, options: ReviewOptions = {}): ReviewBody {
  const { plan } = file;
  const cards = plan.entries.map((e): ReviewCard => {
    const { body: text, name: _name, ...fields } = e.body;
    const card: ReviewCard = {
      action: e.action,
      name: e.name,
      key: e.existing ? `${e.existing.id} (${e.existing.status})` : `${e.sheet} row ${e.rowNumber}`,
      preview: text,
    };
    const rows = Object.entries(fields).map(([field, value]) => ({
      cells: [field, reviewValue(value)],
    }));
    if (rows.length > 0) card.rows = rows;
    return card;
  });
  const body: ReviewBody = {
    notes: plan.issues.filter((i) => i.severity === 'warning').map((i) => `warning: ${reviewIssueText(i)}`),
    columns: [{ label: 'Field' }, { label: 'Value', role: 'after' }],
    cards,
    invalid: invalidRows(plan.issues),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined) body.applyCommand = options.applyCommand;
  return body;
}
