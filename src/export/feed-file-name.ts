import { UsageError } from '../errors/usage-error.js';
import { suffixedPath } from './suffixed-path.js';
import { zoneOffsetMs } from '../sheets/sheet-writer.js';

/** Placeholders a feed's file name may hold. */
const PLACEHOLDER = /\{(date|from|to)\}/g;

export interface FeedFileNameValues {
  /** The run's start. */
  runAt: Date;
  /** The watermark the run starts from (ISO), or null on a first run. */
  from: string | null;
  /** The store's time zone: dates in file names are the store's. */
  timezone: string;
}

/** True when the name holds `{date}`, `{from}` or `{to}`. */
export function hasFeedPlaceholders(name: string): boolean {
  return /\{(date|from|to)\}/.test(name);
}

/** An instant in a zone as `YYYY-MM-DD` (day) or `YYYY-MM-DDTHHMM` (no colons: valid on every file system). */
function local(ms: number, timezone: string, withTime: boolean): string {
  const iso = new Date(ms + zoneOffsetMs(ms, timezone)).toISOString();
  return withTime ? `${iso.slice(0, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}` : iso.slice(0, 10);
}

/**
 * The file name of one run: `{date}` = the run's day in the store's zone (`2026-11-23`), `{to}` =
 * the run's start, `{from}` = the watermark it starts from (`2026-11-22T0300`, store zone; `start`
 * on a first run). Throws RangeError for another `{…}` placeholder.
 */
export function feedFileName(name: string, values: FeedFileNameValues): string {
  const other = /\{([^}]*)\}/g;
  for (const m of name.matchAll(other)) {
    if (!['date', 'from', 'to'].includes(m[1] ?? '')) {
      throw new RangeError(`unknown placeholder {${m[1] ?? ''}} in ${name}: use {date}, {from} or {to}`);
    }
  }
  const run = values.runAt.getTime();
  return name.replace(PLACEHOLDER, (_all, key: string) => {
    if (key === 'date') return local(run, values.timezone, false);
    if (key === 'to') return local(run, values.timezone, true);
    const from = values.from === null ? Number.NaN : Date.parse(values.from);
    return Number.isNaN(from) ? 'start' : local(from, values.timezone, true);
  });
}

/** `feedFileName` for the library: an unknown placeholder is a UsageError (exit 2). */
function fileNameOrUsageError(name: string, values: FeedFileNameValues): string {
  try {
    return feedFileName(name, values);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The file name of a dated export that is not a feed (`orders-{date}.xlsx`): `{date}` and `{to}`
 * filled for the run's time in the store's zone; a name without placeholders is returned as it
 * is. `{from}` (the watermark) needs a feed: UsageError.
 */
export function datedFileName(name: string, runAt: Date, timezone: string): string {
  if (!hasFeedPlaceholders(name)) return name;
  if (name.includes('{from}')) {
    throw new UsageError(`{from} in the file name goes with --incremental (got ${name})`);
  }
  return fileNameOrUsageError(name, { runAt, from: null, timezone });
}

/**
 * The file of one run of a feed: placeholders filled (`{from}` = the watermark the run starts
 * from), and for a dated name a file that no earlier run wrote (unusedFeedFileName). `earlier` is
 * the name that an earlier run took, when this run had to step aside.
 */
export function feedRunFileName(
  name: string,
  values: FeedFileNameValues & { exists: (candidate: string) => boolean },
): { name: string; earlier?: string } {
  if (!/\{[^}]*\}/.test(name)) return { name };
  const dated = fileNameOrUsageError(name, values);
  if (!hasFeedPlaceholders(name)) return { name: dated };
  const free = unusedFeedFileName(dated, values.exists);
  return free === dated ? { name: free } : { name: free, earlier: dated };
}

/**
 * A dated feed's file for this run that no earlier run wrote: `name` itself when it is free, else
 * `orders-2026-11-23-run2.csv`, `-run3`, … (before the extension; a
 * split profile export's parts then follow as `-run2-part3`, so a rerun never looks like a part). A second run on the same day must not
 * overwrite the first one's file: the watermark already counts those orders as exported, so they
 * would be in no file at all.
 */
export function unusedFeedFileName(name: string, exists: (candidate: string) => boolean): string {
  if (!exists(name)) return name;
  for (let n = 2; ; n++) {
    const candidate = suffixedPath(name, `-run${n}`);
    if (!exists(candidate)) return candidate;
  }
}
