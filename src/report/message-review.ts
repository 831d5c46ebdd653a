import { renderTemplate, type MessagePlan } from '../plan/message-plan.js';
import { entityOutcome, type ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import { plannedRefusal } from './review-refusals.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard } from './review-page.js';

/** Messages shown with their rendered text (the rest show their parameters only, to keep the page small). */
export const MESSAGE_PREVIEWS = 500;

/** The review page body of a messages plan: one card per recipient, the first ones with the message as it will read. */
export function messageReview(
  file: { plan: MessagePlan; template: { body: string }; refusal?: string | undefined },
  options: ReviewOptions = {},
): ReviewBody {
  const { plan } = file;
  const cards = plan.sends.slice(0, MAX_REVIEW_CARDS).map((s, n): ReviewCard => {
    const card: ReviewCard = {
      action: 'send',
      name: s.to,
      key: s.customerId ?? `${s.sheet} row ${s.rowNumber}`,
    };
    const rows = Object.entries(s.parameters).map(([name, value]) => ({ cells: [name, value] }));
    if (rows.length > 0) card.rows = rows;
    if (n < MESSAGE_PREVIEWS) card.preview = renderTemplate(file.template.body, s.parameters);
    if (options.applied) card.outcome = entityOutcome(options.applied, s.key);
    return card;
  });
  for (const d of plan.duplicates)
    cards.push({
      action: 'duplicate',
      name: `${d.sheet} row ${d.rowNumber}`,
      key: '',
      notes: [`same recipient as row ${d.firstRow}: sent once`],
    });
  for (const a of plan.alreadySent ?? [])
    cards.push({
      action: 'already-sent',
      name: `${a.sheet} row ${a.rowNumber}`,
      key: a.runId,
      notes: [`already ${a.status === 'sent' ? 'sent' : 'possibly sent'} by run ${a.runId}`],
    });
  const notes: string[] = [];
  for (const i of plan.issues) if (i.severity === 'warning') notes.push(`warning: ${reviewIssueText(i)}`);
  const body: ReviewBody = {
    refusals: file.refusal ? [plannedRefusal(file.refusal)] : [],
    notes,
    columns: [{ label: 'Parameter' }, { label: 'Value', role: 'after' }],
    cards,
    ...(plan.sends.length > MAX_REVIEW_CARDS
      ? { totalCards: plan.sends.length + plan.duplicates.length + (plan.alreadySent?.length ?? 0) }
      : {}),
    invalid: invalidRows(plan.issues),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined && !file.refusal) body.applyCommand = options.applyCommand;
  if (options.resumeCommand !== undefined) body.resumeCommand = options.resumeCommand;
  return body;
}
