import type { RowIssue } from '../mapping/row-issue.js';
import { deletesFirst } from '../plan/deletes-first.js';
import type { PriceJump } from '../plan/price-jumps.js';
import { productFieldChanges, type PlanFieldChange } from '../plan/plan-changes.js';
import type { PlanEntry, ProductPlan } from '../plan/product-plan.js';
import { stockUnknownMessage, stockUnknownSettled } from '../plan/stock-unknown.js';
import type { Product } from '../schema/product.js';
import {
  MAX_REVIEW_CARDS,
  type ReviewBody,
  type ReviewCard,
  type ReviewRefusal,
  type ReviewRow,
} from './review-page.js';
import { invalidRow, reviewIssueText as issueText } from './review-issues.js';
import { plannedRefusal, priceJumpsRefusal } from './review-refusals.js';
import { reviewValue } from './review-value.js';
import { withChangeTable } from './change-table.js';

/** What the products page needs of a products plan file (plan.json). */
export interface ProductReviewInput {
  store: { currency: string };
  plan: ProductPlan;
  /** Issues that belong to no product (header warnings, rows without a key). */
  issues: readonly RowIssue[];
  /** Live products as read when planning, by id (names and images of updates, hides, deletes). */
  before: Readonly<Record<string, Product>>;
  refusal?: string | undefined;
  /** Prices the plan would write that look like typos: `mbulk apply` refuses them unless allowed. */
  priceJumps?: readonly PriceJump[] | undefined;
}

export interface ReviewOptions {
  /** The exact command that applies the plan (omit once applied). */
  applyCommand?: string | undefined;
  /** Whether failed.csv has been written (the run was applied). */
  failedWritten?: boolean;
  /** The run was planned with `--allow-price-jumps`: its price jumps are not refused. */
  priceJumpsAllowed?: boolean | undefined;
  /** The command that continues the run (it was interrupted or stopped on an error). */
  resumeCommand?: string | undefined;
  /** The counts of this state only (planned, or after an apply done): they replace the report's on the page. */
  counts?: [string, number][] | undefined;
  /**
   * After an apply: what became of each entry that was not written, by key (`pending`,
   * `failed: …`); every other entry that writes is `done`.
   */
  applied?: { notWritten: Readonly<Record<string, string>> } | undefined;
}

/** What an apply did with the entry of plan key `key`: `done` unless it is among those not written. */
export function entityOutcome(
  applied: { notWritten: Readonly<Record<string, string>> },
  key: string,
): string {
  return applied.notWritten[key] ?? 'done';
}

const ACTION_NAMES: Record<string, string> = { noop: 'unchanged', skip: 'marked skip' };
/** Plan actions that write (the entries an apply gives an outcome). */
const WRITES = new Set(['create', 'update', 'hide', 'delete']);

interface VariantLike {
  name?: string | undefined;
  sku?: string | null | undefined;
  price?: number | undefined;
}

/** The review page body of a products plan: one card per product, before → after per field. */
export function productReview(file: ProductReviewInput, options: ReviewOptions = {}): ReviewBody {
  const money = { decimals: file.plan.decimals, currency: file.store.currency };
  // Price jumps refuse the plan only while it is still to apply, and only when not allowed.
  const apply = options.applyCommand;
  const jumps = apply !== undefined && !options.priceJumpsAllowed ? (file.priceJumps ?? []) : [];
  const jumpsByKey = new Map<string, string[]>();
  for (const j of jumps) jumpsByKey.set(j.key, [...(jumpsByKey.get(j.key) ?? []), j.message]);
  // Deletes first: a reviewer never scrolls past unchanged products to find them.
  const cards = deletesFirst(file.plan.entries)
    .slice(0, MAX_REVIEW_CARDS)
    .map((entry) => {
      const card = productCard(entry, file.before, money);
      const refused = jumpsByKey.get(entry.key);
      if (refused) card.refused = `suspicious price: ${refused.join('; ')} (--allow-price-jumps)`;
      if (options.applied && WRITES.has(entry.action))
        card.outcome = entityOutcome(options.applied, entry.key);
      return card;
    });
  const refusals: ReviewRefusal[] = [];
  if (file.refusal) refusals.push(plannedRefusal(file.refusal));
  if (apply !== undefined && jumps.length > 0) refusals.push(priceJumpsRefusal(jumps.length, apply));
  const notes: string[] = [];
  // Unknown stock without --stock-unknown: `mbulk apply` refuses it whatever the flags; chosen, a note.
  const unknownStock = file.plan.stockUnknown;
  const stockRefused = unknownStock !== undefined && !stockUnknownSettled(unknownStock);
  if (stockRefused)
    refusals.push({
      message: `Stock unknown: ${stockUnknownMessage(unknownStock)}`,
      fix: 'mbulk apply refuses this plan (exit 3): plan it again with --stock-unknown untracked, zero or keep.',
    });
  else if (unknownStock) notes.push(`Stock unknown: ${stockUnknownMessage(unknownStock)}`);
  if (file.plan.missingSkipped) notes.push(file.plan.missingSkipped);
  if (file.plan.replaceSkipped) notes.push(file.plan.replaceSkipped);
  if (file.plan.stockChoicesUnused) notes.push(file.plan.stockChoicesUnused);
  for (const i of file.issues) if (i.severity === 'warning') notes.push(`warning: ${issueText(i)}`);
  const errors = [...file.issues, ...file.plan.entries.flatMap((e) => e.issues)].filter(
    (i) => i.severity === 'error',
  );
  const body: ReviewBody = {
    refusals,
    notes,
    columns: [{ label: 'Field' }, { label: 'Before', role: 'before' }, { label: 'After', role: 'after' }],
    cards,
    ...(file.plan.entries.length > MAX_REVIEW_CARDS ? { totalCards: file.plan.entries.length } : {}),
    invalid: errors.map(invalidRow),
    failedFile: { href: 'failed.csv', written: options.failedWritten ?? false },
  };
  if (options.counts !== undefined) body.counts = options.counts;
  if (options.resumeCommand !== undefined) body.resumeCommand = options.resumeCommand;
  // A plan refused when planned has no apply command; price jumps need the flag.
  if (apply !== undefined && !file.refusal && !stockRefused)
    body.applyCommand = jumps.length > 0 ? `${apply} --allow-price-jumps` : apply;
  // Thousands of products that change: one table, as stock plans have.
  return withChangeTable(body, (card) => WRITES.has(card.action));
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
  for (const change of productFieldChanges(entry.changes)) {
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
  change: PlanFieldChange,
  variants: readonly VariantLike[],
  money: { decimals: number; currency: string },
): ReviewRow | undefined {
  if (change.note === 'created') return undefined;
  if (change.note === 'removed') return { cells: [change.field, 'removed', '—'], tone: 'removed' };
  if (change.note === 'added') {
    const label = /^variants\[(.*)\]$/.exec(change.field)?.[1];
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
    return { cells: [change.field, '—', after], tone: 'added' };
  }
  const m = change.money ? money : undefined;
  return { cells: [change.field, reviewValue(change.before, m), reviewValue(change.after, m)] };
}
