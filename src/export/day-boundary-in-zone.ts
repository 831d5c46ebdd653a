/**
 * Calendar arithmetic in an IANA time zone with `Intl` only (no date library): the CLI turns
 * `--since 2026-11-01` into the instant the store's day starts, and the exporter shows each
 * order's local calendar date.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // Throws RangeError for an unknown zone, which is what callers should see.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localParts(epochMs: number, timeZone: string): LocalParts {
  const out: LocalParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const p of formatter(timeZone).formatToParts(epochMs)) {
    if (p.type in out) out[p.type as keyof LocalParts] = Number(p.value);
  }
  return out;
}

/** Offset of the zone from UTC at an instant, in ms (local − UTC), to the second. */
function offsetMs(epochMs: number, timeZone: string): number {
  const p = localParts(epochMs, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant at which the calendar day `date` (`YYYY-MM-DD`, plus `dayOffset` days) begins in
 * `timezone`: local midnight, or the first instant of the day where a DST change skips midnight.
 * Use `dayBoundaryInZone(until, tz, 1)` for an inclusive `--until` day as an exclusive bound.
 * Throws RangeError for a malformed date or an unknown zone.
 */
export function dayBoundaryInZone(date: string, timezone: string, dayOffset = 0): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`expected a date as YYYY-MM-DD, got "${date}"`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const valid = new Date(Date.UTC(y, mo - 1, d));
  if (valid.getUTCFullYear() !== y || valid.getUTCMonth() !== mo - 1 || valid.getUTCDate() !== d) {
    throw new RangeError(`not a calendar date: "${date}"`);
  }
  const guess = Date.UTC(y, mo - 1, d + dayOffset);
  const day = new Date(guess);
  const target = { y: day.getUTCFullYear(), m: day.getUTCMonth() + 1, d: day.getUTCDate() };
  // Two fixed-point steps find midnight; around a DST change the candidates differ, and the day's
  // start is the earliest candidate that falls on the target day.
  const c1 = guess - offsetMs(guess, timezone);
  const c2 = guess - offsetMs(c1, timezone);
  const c3 = guess - offsetMs(c2, timezone);
  const onDay = (t: number): boolean => {
    const p = localParts(t, timezone);
    return p.year === target.y && p.month === target.m && p.day === target.d;
  };
  const candidates = [c1, c2, c3].filter(onDay).sort((a, b) => a - b);
  return new Date(candidates[0] ?? c1);
}

/** The calendar date (`YYYY-MM-DD`) of an instant in `timezone`. */
export function localDateInZone(instant: Date | string, timezone: string): string {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  if (Number.isNaN(ms)) return '';
  const p = localParts(ms, timezone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}
