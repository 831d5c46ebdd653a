/**
 * Near matches between a header the user wrote and the headers a sheet format knows: the same
 * letters once case, spaces, dashes and underscores are set aside (`VariantSKU`, `variant-sku`), or
 * at most two letters apart (a letter missing, added, changed or two swapped: `Variant Prce`,
 * `Vairant Price`) in headers of four letters or more, so short words do not match anything.
 */
function squash(text: string): string {
  return text.toLowerCase().replace(/[\s_\-./()?]+/g, '');
}

/** Optimal string alignment distance (Levenshtein plus swapped neighbours), stopping past `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The known header `header` most likely means, as `known` writes it, or undefined when none is
 * near. Ties go to the first in `known`.
 */
export function nearestHeader(header: string, known: readonly string[]): string | undefined {
  const h = squash(header);
  if (h === '') return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const s = squash(k);
    if (s === h) return k;
    if (Math.min(s.length, h.length) < 4) continue;
    const d = distance(h, s, 2);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
