import type { StockPlan } from '../plan/stock-plan.js';
import type { ReviewOptions } from './product-review.js';
import { invalidRows, reviewIssueText } from './review-issues.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard, type ReviewTable } from './review-page.js';
import { plannedRefusal } from './review-refusals.js';

/** What an apply did, per item: failed rows (with the reason) and the items it did not reach. */
export interface StockOutcomes {
  /** Failed rows of the input (failed or outcome unknown), by row number. */
  failedRows: readonly { row: number; code: string; message: string }[];
  /** Inventory item ids the run did not reach (interrupted): pending, resume the run. */
  pendingItems: readonly string[];
}

/**
 * The review page body of a stock plan: one table row per item whose quantity changes (SKU, name,
 * before, after, delta, and after an apply its outcome), with totals (items up, down, to zero;
 * units added and removed); skipped rows are cards below it.
 */
export function stockReview(
  file: { plan: StockPlan; refusal?: string | undefined },
  options: ReviewOptions & { outcomes?: StockOutcomes | undefined } = {},
): ReviewBody {
  const { plan } = file;
  const changes = plan.changes.slice(0, MAX_REVIEW_CARDS);
  const { outcomes } = options;
  const failed = new Map(outcomes?.failedRows.map((f) => [f.row, `failed: ${f.code}: ${f.message}`]));
  const pending = new Set(outcomes?.pendingItems);
  const totals = { up: 0, down: 0, zero: 0, added: 0, removed: 0 };
  const rows = changes.map((c) => {
    const delta = c.after - c.before;
    if (delta > 0) {
      totals.up++;
      totals.added += delta;
    } else if (delta < 0) {
      totals.down++;
      totals.removed -= delta;
    }
    if (c.after === 0 && c.before > 0) totals.zero++;
    const row: (string | number)[] = [c.sku ?? c.itemId, c.name, c.before, c.after, delta];
    if (c.mode === 'delta') row[1] = `${c.name} (sent as a delta, --preserve-sales)`;
    if (outcomes)
      row.push(failed.get(c.rowNumber) ?? (pending.has(c.itemId) ? 'pending (resume the run)' : 'done'));
    return row;
  });
  const table: ReviewTable = {
    columns: [
      { label: 'SKU' },
      { label: 'Name' },
      { label: 'Before', role: 'before' },
      { label: 'After', role: 'after' },
      { label: 'Delta', role: 'delta' },
      ...(outcomes ? [{ label: 'Outcome', role: 'outcome' as const }] : []),
    ],
    rows,
    totals: [
      ['items up', totals.up],
      ['items down', totals.down],
      ['items to zero', totals.zero],
      ['units added', totals.added],
      ['units removed', totals.removed],
    ],
  };
  const cards: ReviewCard[] = plan.skipped.map((s) => ({
    action: 'skip',
    name: `${s.sheet} row ${s.rowNumber}`,
    key: '',
    notes: [s.reason],
  }));
  const notes: string[] = [];
  for (const i of plan.issues) if (i.severity === 'warning') notes.push(`warning: ${reviewIssueText(i)}`);
  if (plan.changes.length > MAX_REVIEW_CARDS)
    notes.push(
      `The table holds the first ${MAX_REVIEW_CARDS} of ${plan.changes.length} changes; every one is in report.md beside this page (and in plan.json).`,
    );
  const body: ReviewBody = {
    refusals: file.refusal ? [plannedRefusal(file.refusal)] : [],
    notes,
    columns: [{ label: 'Reason' }],
    cards,
    table,
    invalid: invalidRows(plan.issues),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined && !file.refusal) body.applyCommand = options.applyCommand;
  if (options.resumeCommand !== undefined) body.resumeCommand = options.resumeCommand;
  if (options.counts !== undefined) body.counts = options.counts;
  return body;
}
