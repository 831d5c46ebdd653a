/**
 * `target.push(...items)` and `target.unshift(...items)` without spreading: a spread passes every
 * item as a call argument, and past ~100k items (200k unknown columns, say) that overflows the
 * stack ("Maximum call stack size exceeded"). These take input-sized arrays safely.
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** `target.unshift(...items)` for input-sized arrays: `items` first, in order. */
export function prependAll<T>(target: T[], items: readonly T[]): void {
  if (items.length === 0) return;
  const rest = target.splice(0, target.length);
  appendAll(target, items);
  appendAll(target, rest);
}
