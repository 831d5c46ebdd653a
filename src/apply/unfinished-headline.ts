/** How far a run's write operations got, from its run.json counts (the executor writes them after every apply). */
export function opsProgress(
  counts: Readonly<Record<string, number>>,
): { done: number; total: number; failed: number } | undefined {
  if (counts['ops_total'] === undefined) return undefined;
  return {
    done: counts['ops_done'] ?? 0,
    total: counts['ops_total'],
    failed: (counts['ops_failed'] ?? 0) + (counts['ops_unknown'] ?? 0),
  };
}

/**
 * The headline of an apply that did not complete: `Interrupted: 73 of 400 written · continue with:
 * mbulk runs resume RUN`, in entities (a product, a stock item) from the run's counts, with the
 * write operations in brackets when they differ (`(2 of 8 batches)`: a stock batch holds many
 * items). The CLI prints it, and `mbulk fleet` shows it for a store (`resume` then names the
 * store's runs directory).
 */
export function unfinishedHeadline(
  runId: string,
  status: string,
  counts: Readonly<Record<string, number>>,
  resume = `mbulk runs resume ${runId}`,
): string {
  const ops = opsProgress(counts);
  const word = status === 'interrupted' ? 'Interrupted' : 'Stopped';
  let written = '';
  if (counts['changes_total'] !== undefined) {
    written = `: ${counts['changes_done'] ?? 0} of ${counts['changes_total']} written`;
    if (ops !== undefined && ops.total !== counts['changes_total'])
      written += ` (${ops.done} of ${ops.total} ${ops.total === 1 ? 'batch' : 'batches'})`;
  } else if (ops !== undefined) written = `: ${ops.done} of ${ops.total} written`;
  return `${word}${written} · continue with: ${resume}`;
}
