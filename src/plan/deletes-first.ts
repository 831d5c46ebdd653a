/** Where an action comes in a plan shown to people: what removes products first. */
const RANK: Readonly<Record<string, number>> = { delete: 0, hide: 1 };

/**
 * A plan's entries as people review them: deletes first, then hides, then the rest in the plan's
 * own order (stable). A delete is the change a reviewer must not miss: on the page and in the
 * terminal it is never below a screenful of unchanged or updated products.
 */
export function deletesFirst<T extends { action: string }>(entries: readonly T[]): T[] {
  return entries
    .map((entry, index) => ({ entry, index, rank: RANK[entry.action] ?? 2 }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((e) => e.entry);
}
