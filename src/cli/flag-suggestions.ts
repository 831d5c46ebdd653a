/**
 * Usage errors as people read them: yargs' "Unknown argument(s): dry-run, dryRun" lists each
 * unknown flag twice (its camelCase alias too) and suggests nothing. `explainUnknownArguments`
 * keeps the names as typed and adds the closest known flag ("did you mean --apply?").
 */

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two names. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...new Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** The known flag closest to `name` (close enough to be a typo, or one it starts), else undefined. */
export function suggestFlag(name: string, known: readonly string[]): string | undefined {
  let best: { flag: string; distance: number } | undefined;
  for (const flag of known) {
    if (flag.length <= 1 || /[A-Z]/.test(flag)) continue;
    const distance = flag.startsWith(name) && name.length >= 3 ? 1 : editDistance(name, flag);
    if (
      distance <= Math.max(1, Math.floor(flag.length / 3)) &&
      (best === undefined || distance < best.distance)
    )
      best = { flag, distance };
  }
  return best?.flag;
}

/** `dryRun` → `dry-run`: how yargs' camelCase alias of a flag was typed. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * "Unknown argument(s): a, b" as the names typed (camelCase echoes dropped), each `--flag`, with a
 * suggestion where one is close: `unknown option --aply (did you mean --apply?)`. Other messages
 * come back as they are.
 */
export function explainUnknownArguments(message: string, known: readonly string[]): string {
  const m = /^Unknown arguments?: (.*)$/s.exec(message);
  if (m === undefined || m === null) return message;
  const names = [...new Set((m[1] as string).split(', ').map((n) => kebab(n.trim())))];
  const parts = names.map((name) => {
    const shown = name.length === 1 ? `-${name}` : `--${name}`;
    const suggestion = suggestFlag(name, known);
    return suggestion === undefined ? shown : `${shown} (did you mean --${suggestion}?)`;
  });
  return `unknown option${parts.length === 1 ? '' : 's'} ${parts.join(', ')}`;
}
