import type { TemplatePlan } from '../plan/template-plan.js';
import type { TemplateButton } from '../schema/template.js';
import { entityOutcome, type ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import type { ReviewBody, ReviewCard } from './review-page.js';
import { reviewValue } from './review-value.js';

const BUTTON_KINDS: Record<string, string> = {
  QUICK_REPLY: 'Quick reply',
  URL: 'Link',
  PHONE_NUMBER: 'Call',
};

/** Buttons as people read them, one a line: `Quick reply: Yes`, `Link: Track it (https://…)`. */
function buttonsText(buttons: readonly TemplateButton[]): string {
  if (buttons.length === 0) return '(none)';
  return buttons
    .map((b) => {
      const type = b.type ?? 'BUTTON';
      const kind = BUTTON_KINDS[type] ?? type.toLowerCase().replace(/_/g, ' ');
      const target = b.url ?? b.phone_number;
      return `${kind}: ${b.text ?? ''}${target ? ` (${target})` : ''}`;
    })
    .join('\n');
}

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
      cells: [field, field === 'buttons' && Array.isArray(value) ? buttonsText(value) : reviewValue(value)],
    }));
    if (rows.length > 0) card.rows = rows;
    if (options.applied && e.action === 'create') card.outcome = entityOutcome(options.applied, e.key);
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
  if (options.resumeCommand !== undefined) body.resumeCommand = options.resumeCommand;
  return body;
}
