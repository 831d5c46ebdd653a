import type { StockPlan } from '../plan/stock-plan.js';
import type { ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard } from './review-page.js';
import { signed } from './review-value.js';

/** The review page body of a stock plan: one card per item whose quantity changes (SKU, before, after, delta). */
export function stockReview(
  file: { plan: StockPlan; refusal?: string | undefined },
  options: ReviewOptions = {},
): ReviewBody {
  const { plan } = file;
  const cards: ReviewCard[] = plan.changes.slice(0, MAX_REVIEW_CARDS).map((c) => {
    const key = c.sku ?? c.itemId;
    const card: ReviewCard = {
      action: 'update',
      name: c.name,
      key,
      rows: [{ cells: [key, String(c.before), String(c.after), signed(c.after - c.before)] }],
    };
    if (c.mode === 'delta') card.notes = [`sent as a delta of ${signed(c.value)} (--preserve-sales)`];
    return card;
  });
  for (const s of plan.skipped)
    cards.push({ action: 'skip', name: `${s.sheet} row ${s.rowNumber}`, key: '', notes: [s.reason] });
  const notes: string[] = [];
  if (file.refusal) notes.push(`Refused: ${file.refusal}`);
  for (const i of plan.issues) if (i.severity === 'warning') notes.push(`warning: ${reviewIssueText(i)}`);
  const body: ReviewBody = {
    notes,
    columns: [
      { label: 'SKU' },
      { label: 'Before', role: 'before' },
      { label: 'After', role: 'after' },
      { label: 'Delta', role: 'delta' },
    ],
    cards,
    ...(plan.changes.length > MAX_REVIEW_CARDS
      ? { totalCards: plan.changes.length + plan.skipped.length }
      : {}),
    invalid: invalidRows(plan.issues),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined && !file.refusal) body.applyCommand = options.applyCommand;
  return body;
}
