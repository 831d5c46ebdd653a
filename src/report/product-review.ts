import type { RowIssue } from '../mapping/row-issue.js';
import type { FieldChange, PlanEntry, ProductPlan } from '../plan/product-plan.js';
import { stockUnknownMessage } from '../plan/stock-unknown.js';
import type { Product } from '../schema/product.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard, type ReviewRow } from './review-page.js';
import { invalidRow, reviewIssueText as issueText } from './review-issues.js';
import { reviewValue } from './review-value.js';

/** What the products page needs of a products plan file (plan.json). */
export interface ProductReviewInput {
  store: { currency: string };
  plan: ProductPlan;
  /** Issues that belong to no product (header warnings, rows without a key). */
  issues: readonly RowIssue[];
  /** Live products as read when planning, by id (names and images of updates, hides, deletes). */
  before: Readonly<Record<string, Product>>;
  refusal?: string | undefined;
}

export interface ReviewOptions {
  /** The exact command that applies the plan (omit once applied). */
  applyCommand?: string | undefined;
  /** Whether failed.csv has been written (the run was applied). */
  failedWritten?: boolean;
}

const ACTION_NAMES: Record<string, string> = { noop: 'unchanged', skip: 'marked skip' };

interface VariantLike {
  name?: string | undefined;
  sku?: string | null | undefined;
  price?: number | undefined;
}

/** The review page body of a products plan: one card per product, before → after per field. */
export function productReview(file: ProductReviewInput, options: ReviewOptions = {}): ReviewBody {
  const money = { decimals: file.plan.decimals, currency: file.store.currency };
  const cards = file.plan.entries
    .slice(0, MAX_REVIEW_CARDS)
    .map((entry) => productCard(entry, file.before, money));
  const notes: string[] = [];
  if (file.plan.stockUnknown) notes.push(`Stock unknown: ${stockUnknownMessage(file.plan.stockUnknown)}`);
  if (file.refusal) notes.push(`Refused: ${file.refusal}`);
  if (file.plan.missingSkipped) notes.push(file.plan.missingSkipped);
  if (file.plan.replaceSkipped) notes.push(file.plan.replaceSkipped);
  for (const i of file.issues) if (i.severity === 'warning') notes.push(`warning: ${issueText(i)}`);
  const errors = [...file.issues, ...file.plan.entries.flatMap((e) => e.issues)].filter(
    (i) => i.severity === 'error',
  );
  const body: ReviewBody = {
    notes,
    columns: [{ label: 'Field' }, { label: 'Before', role: 'before' }, { label: 'After', role: 'after' }],
    cards,
    ...(file.plan.entries.length > MAX_REVIEW_CARDS ? { totalCards: file.plan.entries.length } : {}),
    invalid: errors.map(invalidRow),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.applyCommand !== undefined && !file.refusal) body.applyCommand = options.applyCommand;
  return body;
}

function productCard(
  entry: PlanEntry,
  before: Readonly<Record<string, Product>>,
  money: { decimals: number; currency: string },
): ReviewCard {
  const live = entry.productId !== null ? before[entry.productId] : undefined;
  const body = (entry.body ?? {}) as { name?: string; images?: string[]; variants?: VariantLike[] };
  const name = body.name ?? live?.name ?? entry.label;
  const key = entry.match ? entry.match.value : (live?.reference_id ?? live?.sku ?? entry.productId ?? '');
  const card: ReviewCard = {
    action: ACTION_NAMES[entry.action] ?? entry.action,
    name,
    key: key === name && entry.productId !== null ? entry.productId : key,
  };
  const images = body.images ?? live?.images ?? [];
  if (images.length > 0) card.images = [...images];
  const rows: ReviewRow[] = [];
  for (const change of entry.changes) {
    const row = changeRow(change, body.variants ?? [], money);
    if (row) rows.push(row);
  }
  if (rows.length > 0) card.rows = rows;
  const notes: string[] = [];
  if (entry.reason) notes.push(entry.reason);
  for (const i of entry.issues) notes.push(`${i.severity}: ${issueText(i)}`);
  if (notes.length > 0) card.notes = notes;
  return card;
}

function changeRow(
  change: FieldChange,
  variants: readonly VariantLike[],
  money: { decimals: number; currency: string },
): ReviewRow | undefined {
  if (change.note === 'created') return undefined;
  if (change.note === 'removed') return { cells: [change.path, 'removed', '—'], tone: 'removed' };
  if (change.note === 'added') {
    const label = /^variants\[(.*)\]$/.exec(change.path)?.[1];
    const variant =
      label === undefined ? undefined : variants.find((v) => v.sku === label || v.name === label);
    const after = variant
      ? [
          variant.name,
          variant.sku,
          variant.price === undefined ? undefined : reviewValue(variant.price, money),
        ]
          .filter((part) => part !== undefined && part !== null && part !== '')
          .join(' · ')
      : 'added';
    return { cells: [change.path, '—', after], tone: 'added' };
  }
  const m = change.money ? money : undefined;
  return { cells: [change.path, reviewValue(change.before, m), reviewValue(change.after, m)] };
}
