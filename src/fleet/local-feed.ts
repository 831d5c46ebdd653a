import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readFeedMemory, rememberFeed, type FeedMemory } from '../feeds/feed-memory.js';
import { fileSha256 } from '../jobs/input-identity.js';
import type { FleetStore } from './fleet-file.js';

/**
 * A fleet store whose feed is a file on this machine is remembered like a URL feed (feeds/): once
 * its run applied in full, the same bytes for the same store are not run again ("already applied by
 * run R at T (feed unchanged since: not run again)"), whatever they hold; changed bytes are run as
 * usual, and `force: true` in the store's options runs them anyway. A URL feed is remembered by the
 * store's own process (mbulk import … URL), which downloads it.
 */
export interface LocalFeed {
  stateFile: string;
  key: string;
  /** sha256 (hex) of the file's bytes when the fleet looked. */
  sha256: string;
  /** When and by which run these bytes were applied to this store, if they were. */
  applied?: FeedMemory | undefined;
}

/** `<fleet-dir>/stores/<name>/sources.json`: the store's remembered feeds (its process's too). */
export function storeFeedMemory(fleetDir: string, store: { name: string }): string {
  return join(fleetDir, 'stores', store.name, 'sources.json');
}

/**
 * The store's file feed as the fleet finds it, or undefined when it is not one the fleet remembers:
 * a URL, an apply with `force`, a plan only, or a file that cannot be read (the store's process
 * then says why).
 */
export function localFeed(store: FleetStore, stateFile: string, apply: boolean): LocalFeed | undefined {
  if (!apply || /^https?:\/\//i.test(store.feed) || store.options['force'] === true) return undefined;
  let sha256: string;
  try {
    sha256 = fileSha256(store.feed);
  } catch {
    return undefined;
  }
  // The file and where it goes: another base_url under the same name is another feed.
  const key = createHash('sha256')
    .update(JSON.stringify(['mbulk-fleet-file-1', store.baseUrl, store.feed]))
    .digest('hex');
  const known = readFeedMemory(stateFile)[key];
  return { stateFile, key, sha256, applied: known?.sha256 === sha256 ? known : undefined };
}

/** Remembers the file's bytes as applied to the store by `run` (after the store ended 0). */
export function rememberLocalFeed(feed: LocalFeed, run: string | undefined): void {
  rememberFeed(feed.stateFile, feed.key, { sha256: feed.sha256, appliedAt: new Date().toISOString(), run });
}
