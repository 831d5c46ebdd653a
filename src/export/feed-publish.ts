import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { LockFile } from '../apply/lock-file.js';
import { StateFileError } from '../errors/state-file-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import { loadExportState, saveExportState, WatermarkEntrySchema, withWatermarkEntry } from './watermark.js';

/**
 * A feed run's files published together with its watermark and ledger.
 *
 * Every file of a run (an accounting feed's invoice parts, credit notes, payments, changes and
 * totals; a plain feed's orders, lines, checks and summary) is written into a staging folder
 * beside its target (`.mbulk-feed-<key hash>`, same folder, so that moving a file out is a
 * rename). Once all are complete:
 *
 * 1. a marker is written atomically beside the state file (`.exports.json.publish-<key hash>.json`):
 *    the files to move and the state entry (watermark and ledger) to save. This is the commit
 *    point: from here the run counts as done;
 * 2. each staged file is moved to its target, never over a file that exists (link, then unlink);
 * 3. the state file gets the entry, in one atomic write;
 * 4. the marker and the staging folders are removed.
 *
 * A run killed before (1) leaves no published file and the old watermark: the next run removes the
 * staging folder and exports the same orders again. A run killed after (1) is finished by the next
 * run of the same feed, before it reads anything (finishPendingPublish): the moves not yet made,
 * then the entry. So an order a published file holds is never exported again, and none is missed.
 */

/** The steps of a publish, for the test hook `onStep` (see exportOrdersIncremental). */
export type FeedStep =
  /** The staging folders are made, nothing written yet. */
  | 'staging'
  /** Every file is complete in staging; nothing published. */
  | 'staged'
  /** The marker is written (the commit point). */
  | 'marked'
  /** The n-th file was moved into place (1-based). */
  | `published:${number}`
  /** The state file holds the new watermark and ledger. */
  | 'saved'
  /** The marker and staging folders are gone. */
  | 'done';

const MoveSchema = z.object({ staged: z.string(), target: z.string() });
const MarkerSchema = z.object({
  version: z.literal(1),
  key: z.string(),
  entry: WatermarkEntrySchema,
  moves: z.array(MoveSchema),
  staging: z.array(z.string()),
});
/** What a marker holds: the moves still to make and the entry to save. */
export type PublishMarker = z.infer<typeof MarkerSchema>;

function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** The staging folder of a feed beside `target` (a file of the run). */
export function stagingFolder(target: string, key: string): string {
  return join(dirname(target), `.mbulk-feed-${keyHash(key)}`);
}

/** The marker of a feed's publish, beside its state file. */
export function publishMarkerPath(stateFile: string, key: string): string {
  return join(dirname(stateFile), `.${basename(stateFile)}.publish-${keyHash(key)}.json`);
}

/**
 * Takes the feed's lock beside its state file (`.exports.json.feed-<key hash>.lock`): two runs of one
 * feed at once would export the same orders, and one would remove the other's staging folder. A live
 * holder is a LockHeldError (refused, exit 3) naming its process; a dead one's lock is taken over.
 */
export async function lockFeed(stateFile: string, key: string): Promise<LockFile> {
  await mkdir(dirname(stateFile), { recursive: true });
  return LockFile.acquire(join(dirname(stateFile), `.${basename(stateFile)}.feed-${keyHash(key)}.lock`));
}

/** The marker of an interrupted publish of this feed, or null. A damaged marker is a StateFileError. */
export async function readPublishMarker(stateFile: string, key: string): Promise<PublishMarker | null> {
  const file = publishMarkerPath(stateFile, key);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: ReturnType<typeof MarkerSchema.safeParse>;
  try {
    parsed = MarkerSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = MarkerSchema.safeParse(undefined);
  }
  if (!parsed.success || parsed.data.key !== key) {
    throw new StateFileError(
      file,
      `${file}: not a valid publish marker; it lists the files an interrupted feed run was publishing. Move them yourself from its staging folder, then delete it`,
    );
  }
  return parsed.data;
}

/**
 * Makes empty staging folders beside the targets (one per target folder): what an earlier run left
 * there unpublished (no marker: it never reached its commit point) is removed first.
 */
export async function prepareStaging(targets: readonly string[], key: string): Promise<string[]> {
  const folders = [...new Set(targets.map((t) => stagingFolder(t, key)))];
  for (const folder of folders) {
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
  }
  return folders;
}

/** Removes staging folders (a run that failed before its commit point). */
export async function discardStaging(folders: readonly string[]): Promise<void> {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

/** The staged files of the folders (temporary files of an unfinished write left out), each with its target. */
export async function stagedMoves(folders: readonly string[]): Promise<PublishMarker['moves']> {
  const moves: PublishMarker['moves'] = [];
  for (const folder of folders) {
    for (const name of (await readdir(folder)).sort()) {
      if (name.startsWith('.')) continue;
      moves.push({ staged: join(folder, name), target: join(dirname(folder), name) });
    }
  }
  return moves;
}

export interface PublishOptions {
  stateFile: string;
  /** Called after each step (tests kill the process there). */
  onStep?: ((step: FeedStep) => void) | undefined;
}

/**
 * Publishes a run: the marker (commit point), the moves, the state entry, then removes the marker and
 * staging folders (see the module's doc).
 */
export async function publishFeedRun(
  marker: Omit<PublishMarker, 'version'>,
  options: PublishOptions,
): Promise<void> {
  const file = publishMarkerPath(options.stateFile, marker.key);
  await mkdir(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify({ version: 1, ...marker })}\n`);
  options.onStep?.('marked');
  await completePublish({ version: 1, ...marker }, options);
}

/**
 * Finishes the publish of a run of this feed that was interrupted after its commit point, if any;
 * returns the files it published (empty when there was none).
 */
export async function finishPendingPublish(stateFile: string, key: string): Promise<string[] | null> {
  const marker = await readPublishMarker(stateFile, key);
  if (marker === null) return null;
  await completePublish(marker, { stateFile });
  return marker.moves.map((m) => m.target);
}

async function completePublish(marker: PublishMarker, options: PublishOptions): Promise<void> {
  let n = 0;
  for (const move of marker.moves) {
    moveNoClobber(move.staged, move.target);
    options.onStep?.(`published:${++n}`);
  }
  // Re-read the state: another feed may have saved meanwhile.
  const latest = await loadExportState(options.stateFile);
  await saveExportState(options.stateFile, withWatermarkEntry(latest, marker.key, marker.entry));
  options.onStep?.('saved');
  await rm(publishMarkerPath(options.stateFile, marker.key), { force: true });
  await discardStaging(marker.staging);
  options.onStep?.('done');
}

/**
 * Moves `from` to `to`, never over a file at `to` that is not `from` itself: a hard link, then the
 * staged name removed (a move that was made before an interruption is found done). Where hard links
 * are not supported, a rename after checking that `to` is free.
 */
function moveNoClobber(from: string, to: string): void {
  const staged = fs.statSync(from, { throwIfNoEntry: false });
  const target = fs.statSync(to, { throwIfNoEntry: false });
  if (staged === undefined) {
    if (target !== undefined) return; // moved before an interruption
    throw new StateFileError(
      from,
      `cannot publish ${to}: its staged file ${from} is gone; the feed's state was not saved, so its next run exports those orders again once this marker is deleted`,
    );
  }
  if (target !== undefined) {
    if (target.ino === staged.ino && target.dev === staged.dev) {
      fs.rmSync(from);
      return;
    }
    throw new StateFileError(
      to,
      `cannot publish ${to}: a file of that name appeared meanwhile, and a feed never overwrites one. Move it aside and run the feed again; the staged file is ${from}`,
    );
  }
  try {
    fs.linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return moveNoClobber(from, to);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw error;
    fs.renameSync(from, to);
    syncFolder(dirname(to));
    return;
  }
  syncFolder(dirname(to));
  fs.rmSync(from);
}

function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // best effort (not every platform opens folders)
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
