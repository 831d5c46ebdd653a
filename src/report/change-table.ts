import type { ReviewBody, ReviewCard, ReviewTable } from './review-page.js';

/**
 * Plans that write to at least this many entities show them as one table (the stock page's:
 * totals, sort, filters, search, paging) instead of a card each: thousands of cards are a page
 * nobody reads to the end.
 */
export const TABLE_FROM_ENTITIES = 500;

/**
 * A big plan's page body: the cards of entities that write (`writes`) become the rows of one
 * table, a row per field change (entity, key, action, field, before, after, and after an apply
 * its outcome), with totals per action; the other cards (invalid, skipped, refused ones, marked)
 * stay cards below it. A body with fewer writing cards than TABLE_FROM_ENTITIES, or one that has a
 * table already, is returned as it is.
 */
export function withChangeTable(body: ReviewBody, writes: (card: ReviewCard) => boolean): ReviewBody {
  if (body.table !== undefined) return body;
  const written = body.cards.filter((c) => writes(c) && c.refused === undefined);
  if (written.length < TABLE_FROM_ENTITIES) return body;
  const applied = written.some((c) => c.outcome !== undefined);
  const perAction = new Map<string, number>();
  const rows: (string | number)[][] = [];
  for (const card of written) {
    perAction.set(card.action, (perAction.get(card.action) ?? 0) + 1);
    const outcome = applied ? [card.outcome ?? ''] : [];
    const lines = card.rows && card.rows.length > 0 ? card.rows : [{ cells: ['', '', ''] }];
    for (const line of lines) {
      const [field = '', before = '', after = ''] = line.cells;
      rows.push([card.name, card.key, card.action, field, before, after, ...outcome]);
    }
  }
  const table: ReviewTable = {
    columns: [
      { label: 'Name' },
      { label: 'Key' },
      { label: 'Action' },
      { label: 'Field' },
      { label: 'Before', role: 'before' },
      { label: 'After', role: 'after' },
      ...(applied ? [{ label: 'Outcome', role: 'outcome' as const }] : []),
    ],
    rows,
    totals: [...perAction, ['field changes', rows.length]],
  };
  const kept = new Set(written);
  const cards = body.cards.filter((c) => !kept.has(c));
  return {
    ...body,
    table,
    cards,
    ...(body.totalCards !== undefined ? { totalCards: body.totalCards - written.length } : {}),
  };
}
