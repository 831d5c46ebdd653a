/**
 * What is wrong with the shape of a run's plan.json (edited or damaged by hand), or undefined:
 * checked before anything reads it, so a missing field is "damaged plan", not a TypeError.
 */
export function planShapeProblem(kind: string, plan: unknown): string | undefined {
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) return 'not a JSON object';
  const p = plan as Record<string, unknown>;
  if (kind !== 'rollback') {
    if (p['kind'] !== kind) return `its kind is ${JSON.stringify(p['kind'])}, not "${kind}"`;
    const store = p['store'] as { id?: unknown } | undefined;
    if (typeof store !== 'object' || store === null || typeof store.id !== 'string')
      return 'store.id is missing';
    if (typeof p['input'] !== 'object' || p['input'] === null) return 'input is missing';
  }
  const inner = p['plan'] as Record<string, unknown> | undefined;
  const list = (name: string): string | undefined =>
    typeof inner === 'object' && inner !== null && Array.isArray(inner[name])
      ? undefined
      : `plan.${name} is missing`;
  switch (kind) {
    case 'stock': {
      const batch = p['batchSize'];
      if (typeof batch !== 'number' || !Number.isInteger(batch) || batch < 1) return 'batchSize is missing';
      return list('changes') ?? list('issues') ?? list('skipped');
    }
    case 'products':
      return list('entries');
    default:
      return undefined;
  }
}
