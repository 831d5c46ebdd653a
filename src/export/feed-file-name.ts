import { basename } from 'node:path';
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
 * Refuses a feed's file name that holds no `{date}`, `{to}` or `{from}` (UsageError, exit 2): each
 * run of a feed writes new files, and a fixed name would be replaced by the next run while the
 * watermark counts its orders as exported (they would then be in no file).
 */
export function requireDatedFeedName(name: string, option: string): void {
  if (hasFeedPlaceholders(name)) return;
  const shown = basename(name);
  throw new UsageError(
    `${option} ${shown}: a feed writes new files each run, so its file names must hold {date} (e.g. ${suffixedPath(shown, '-{date}')}); a fixed name would be replaced by the next run`,
    option.replace(/^--/, ''),
  );
}

/** The suffixes of the files a run derives from its main file (parts, CSV sheets, a profile's files). */
const MAIN_FILE_SUFFIXES = [
  '',
  '-part2',
  '-lines',
  '-checks',
  '-summary',
  '-credit-notes',
  '-credit-notes-part2',
  '-changes',
  '-totals',
];

export interface FeedRunFiles {
  /** The main file of this run (placeholders filled, `-runN` added when needed). */
  path: string;
  /** The payments file of this run, named alike. */
  payments?: string;
  /** 1 for the first run of a name, 2 for `-run2`… */
  run: number;
  /** The main file an earlier run of the same name wrote, when this run writes beside it. */
  earlier?: string;
}

/**
 * The files of one run of a feed: placeholders filled (`{from}` = the watermark the run starts
 * from), and the first run number whose files no earlier run wrote: the names themselves, else
 * `xero-2026-11-23-run2.csv`, `-run3`, … for every file of the run alike (the main file, its parts
 * `-run2-part2`, credit notes, changes, totals, and the payments file): a second run on the same
 * day never writes over the first's files, whose orders the watermark already counts as exported.
 */
export function feedRunFiles(
  names: { path: string; payments?: string | undefined },
  values: FeedFileNameValues & { exists: (candidate: string) => boolean },
): FeedRunFiles {
  const path = fileNameOrUsageError(names.path, values);
  const payments = names.payments === undefined ? undefined : fileNameOrUsageError(names.payments, values);
  const taken = (candidate: string, suffixes: readonly string[]): boolean =>
    suffixes.some((s) => values.exists(s === '' ? candidate : suffixedPath(candidate, s)));
  for (let run = 1; ; run++) {
    const name = (n: string): string => (run === 1 ? n : suffixedPath(n, `-run${run}`));
    if (taken(name(path), MAIN_FILE_SUFFIXES)) continue;
    if (payments !== undefined && taken(name(payments), ['', '-part2'])) continue;
    return {
      path: name(path),
      ...(payments === undefined ? {} : { payments: name(payments) }),
      run,
      ...(run === 1 ? {} : { earlier: path }),
    };
  }
}
