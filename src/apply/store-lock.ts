import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeOwner, LockFile, type LockHeldError } from './lock-file.js';

/**
 * One writer per store on this machine: `import … --apply`, `apply`, `runs resume` and `runs
 * rollback --apply` (and `applySavedRun`, by default) hold a lock named after the store (where it
 * is served, and its id) in `$MBULK_LOCK_DIR` (default `<tmp>/mbulk-locks`), from before the first
 * write until the last. A second writer is refused and told who holds it. It does not protect
 * against a writer on another machine, or a person editing the store meanwhile (drift checks cover
 * those).
 */

/** Where store locks are: `$MBULK_LOCK_DIR`, else `<tmp>/mbulk-locks`. */
export function storeLockDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['MBULK_LOCK_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : path.join(os.tmpdir(), 'mbulk-locks');
}

/**
 * The lock file of a store in `dir` (created if needed): the same for every process on this
 * machine that writes to it. `where` names the service as runs record it (`run.meta.target`: the
 * base URL, or the local sandbox with its data file).
 */
export function storeLockFile(dir: string, where: string, storeId: string): string {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    // Shared by every user of the machine, like /tmp itself.
    try {
      fs.chmodSync(dir, 0o1777);
    } catch {
      // another user's directory, or a file system without modes
    }
  }
  const hash = createHash('sha256').update(`${where}\n${storeId}`).digest('hex').slice(0, 24);
  return path.join(dir, `store-${hash}.lock`);
}

export interface StoreLockOptions {
  /** Where the lock files are (default: `storeLockDir()`, i.e. `$MBULK_LOCK_DIR` or `<tmp>/mbulk-locks`). */
  dir?: string | undefined;
  /** What the holder is doing, shown to whoever is refused (default: this process's command line). */
  command?: string | undefined;
}

/**
 * Takes the lock of `store` served at `where` (see storeLockFile); throws LockHeldError naming the
 * live holder. Release it with `release()` when the last write is done.
 */
export function acquireStoreLock(
  where: string,
  store: { id: string },
  options: StoreLockOptions & { runId?: string | undefined } = {},
): LockFile {
  return LockFile.acquire(storeLockFile(options.dir ?? storeLockDir(), where, store.id), {
    ...(options.command !== undefined ? { command: options.command } : {}),
    ...(options.runId !== undefined ? { runId: options.runId } : {}),
  });
}

/** The refusal of a second writer, for people: who holds the store and what to do. */
export function storeBusyMessage(store: { id: string; name: string }, error: LockHeldError): string {
  return `refused: another mbulk is writing to store ${store.name} (${store.id}): ${describeOwner(error.owner)}. Nothing was written; run again when it has finished (a lock left by a process that is gone is taken over; the lock is ${error.file})`;
}
