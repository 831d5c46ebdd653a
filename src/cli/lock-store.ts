import { describeCommand, LockHeldError, type LockFile } from '../apply/lock-file.js';
import {
  acquireStoreLock,
  storeBusyMessage,
  storeLockDir,
  type StoreLockOptions,
} from '../apply/store-lock.js';
import { CliError } from './cli-error.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-code.js';
import type { ResolvedTarget } from './target.js';

/**
 * Takes the store's one-writer lock (apply/store-lock.ts) for this command, in the command's
 * `$MBULK_LOCK_DIR`, or refuses (exit 3) naming the process that holds it. Release it with
 * `release()` when the command ends. (`apply` and `runs resume` let `applySavedRun` take it.)
 */
export function lockStore(
  ctx: CommandContext,
  target: ResolvedTarget,
  store: { id: string; name: string },
  runId?: string,
): LockFile {
  try {
    return acquireStoreLock(target.describe, store, { ...commandStoreLock(ctx), runId });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    throw new CliError(storeBusyMessage(store, error), ExitCode.Refused);
  }
}

/** The store lock as this command takes it (applySavedRun's `lock`): its `$MBULK_LOCK_DIR`, its command line. */
export function commandStoreLock(ctx: CommandContext): StoreLockOptions {
  return { dir: storeLockDir(ctx.env), command: describeCommand(ctx.argv ?? process.argv.slice(2)) };
}
