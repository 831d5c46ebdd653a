/**
 * The creation time a run id (`20261122-001530-products-a1b2`, or with milliseconds
 * `20261122-001530-123-fleet-a1b2`; UTC) carries, as ISO text; undefined if it has none.
 */
export function runIdTime(runId: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(?:(\d{3})-)?/.exec(runId);
  if (!m) return undefined;
  const ms = m[7] !== undefined ? `.${m[7]}` : '';
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${ms}Z`;
}
