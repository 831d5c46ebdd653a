import type { ReviewBody } from './review-page.js';

const ACTIONS = new Set([
  'create',
  'update',
  'hide',
  'delete',
  'restore',
  'recreate',
  'send',
  'skip',
  'noop',
]);

/**
 * A page body for runs whose job builds no cards of its own (e.g. rollbacks): one card per
 * change line of report.md, its action taken from the line's first word when it names one, and
 * one per issue line, its action taken from the line's `prefix: ` (drift, not reversible, failed…).
 */
export function reviewFromLines(changes: readonly string[], issues: readonly string[]): ReviewBody {
  const cards = changes.map((line) => {
    const word = /^([a-z]+)\b/.exec(line)?.[1] ?? '';
    return { action: ACTIONS.has(word) ? word : 'change', name: line, key: '' };
  });
  for (const line of issues) {
    // `drift: …`, `not reversible: …`, `failed: …`, `warning: …`: the prefix is the filter.
    const prefix = /^([a-z][a-z ]{0,20}): /.exec(line);
    cards.push(
      prefix
        ? { action: prefix[1]!.replace(/ /g, '-'), name: line.slice(prefix[0].length), key: '' }
        : { action: 'issue', name: line, key: '' },
    );
  }
  return { columns: [], cards, invalid: [] };
}
