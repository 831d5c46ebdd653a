import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StateFileError } from '../errors/state-file-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';

/**
 * The remembered feeds (`sources.json` beside a runs directory): for each feed, the version last
 * applied in full, so that a feed that has not changed since is reported and skipped, not imported
 * again. Keyed by a hash (of a URL, which may carry secrets; of a fleet store's feed file and target).
 */
export interface FeedMemory {
  /** The validators of a downloaded feed, sent back as If-None-Match / If-Modified-Since. */
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** sha256 (hex) of the feed's bytes. */
  sha256: string;
  appliedAt: string;
  /** The run that applied it (absent in files written before runs were remembered). */
  run?: string | undefined;
}

/** The remembered feeds ({} when the file does not exist yet); a damaged file is a StateFileError. */
export function readFeedMemory(stateFile: string): Record<string, FeedMemory> {
  let text: string;
  try {
    text = readFileSync(stateFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const damaged = (why: string, cause?: unknown): StateFileError =>
    new StateFileError(
      stateFile,
      `${stateFile} is damaged (${why}); delete it: every feed is then downloaded and imported as new`,
      { cause },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw damaged(`not valid JSON: ${(error as Error).message}`, error);
  }
  if (!isRecord(value) || !Object.values(value).every(isFeedMemory)) throw damaged('not a sources file');
  return value as Record<string, FeedMemory>;
}

/** Remembers `entry` as the version of feed `key` applied (the file rewritten atomically). */
export function rememberFeed(stateFile: string, key: string, entry: FeedMemory): void {
  const latest = readFeedMemory(stateFile);
  latest[key] = entry;
  mkdirSync(dirname(stateFile), { recursive: true });
  writeFileAtomic(stateFile, `${JSON.stringify(latest, null, 2)}\n`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFeedMemory(value: unknown): value is FeedMemory {
  const optionalText = (v: unknown) => v === undefined || typeof v === 'string';
  return (
    isRecord(value) &&
    typeof value['sha256'] === 'string' &&
    typeof value['appliedAt'] === 'string' &&
    optionalText(value['etag']) &&
    optionalText(value['lastModified']) &&
    optionalText(value['run'])
  );
}
