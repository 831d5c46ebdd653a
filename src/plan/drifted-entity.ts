/** A field of a drifted entity: what the plan writes, what the store holds now, what it held when planned. */
export interface DriftedField {
  /** The plan's path: `price`, `variants[S-1].price`, `quantity`. */
  field: string;
  /** The values for people (money in currency units). */
  planned: string;
  live: string;
  atPlanning: string;
}

/** An entity a saved plan touches that changed in the live store since planning. */
export interface DriftedEntity {
  type: string;
  id: string;
  label: string;
  reason: string;
  /** The planned fields whose live value moved since planning (absent: the kind does not tell). */
  fields?: DriftedField[] | undefined;
}

/** A drifted field as one line: `price: planned 11.90 · live 13.00 (12.50 when planned)`. */
export function describeDriftedField(f: DriftedField): string {
  return `${f.field}: planned ${f.planned} · live ${f.live} (${f.atPlanning} when planned)`;
}

/**
 * A drifted entity as the CLI lists it: a line naming it and why, then one indented line per
 * drifted field.
 */
export function describeDriftedEntity(d: DriftedEntity): string[] {
  return [
    `${d.type} ${d.id} (${d.label}): ${d.reason}`,
    ...(d.fields ?? []).map((f) => `    ${describeDriftedField(f)}`),
  ];
}

/** The first `max` drifted entities as the CLI lists them (fields indented below each), then how many more. */
export function describeDriftedList(drifted: readonly DriftedEntity[], max = 20): string[] {
  const lines = drifted.slice(0, max).flatMap(describeDriftedEntity);
  if (drifted.length > max) lines.push(`… and ${drifted.length - max} more`);
  return lines;
}
