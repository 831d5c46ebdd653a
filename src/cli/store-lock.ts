import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeCommand, describeOwner, LockFile, LockHeldError } from '../apply/lock-file.js';
import { CliError } from './cli-error.js';
import type { CommandContext, GlobalArgs } from './command-context.js';
import { ExitCode } from './exit-code.js';
import { resolveTargetConfig, type ResolvedTarget } from './target.js';

/**
 * One writer per store on this machine: `import … --apply`, `apply`, `runs resume` and `runs
 * rollback --apply` hold a lock named after the store (where it is served, and its id) in
 * `$MBULK_LOCK_DIR` (default `<tmp>/mbulk-locks`), from before planning until the last write.
 * A second writer refuses with exit 3 and names the holder. It does not protect against a
 * writer on another machine, or a person editing the store meanwhile (drift checks cover those).
 */

/** The lock file of a store: the same for every process on this machine that writes to it. */
export function storeLockFile(env: NodeJS.ProcessEnv, where: string, storeId: string): string {
  const dir = env['MBULK_LOCK_DIR'] ?? path.join(os.tmpdir(), 'mbulk-locks');
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

/** Takes the store's lock for this command; throws LockHeldError when another process holds it. */
export function acquireStoreLock(
  args: GlobalArgs,
  ctx: CommandContext,
  target: ResolvedTarget,
  store: { id: string; name: string },
  runId?: string,
): LockFile {
  const config = resolveTargetConfig(args, ctx.env, ctx.cwd);
  const where =
    config.kind === 'embedded' ? `embedded:${config.dataFile}` : target.baseUrl.replace(/\/+$/, '');
  return LockFile.acquire(storeLockFile(ctx.env, where, store.id), {
    command: describeCommand(ctx.argv ?? process.argv.slice(2)),
    ...(runId !== undefined ? { runId } : {}),
  });
}

/**
 * Takes the store's lock for this command, or refuses (exit 3) naming the process that holds it.
 * Release it with `release()` when the command ends.
 */
export function lockStore(
  args: GlobalArgs,
  ctx: CommandContext,
  target: ResolvedTarget,
  store: { id: string; name: string },
  runId?: string,
): LockFile {
  try {
    return acquireStoreLock(args, ctx, target, store, runId);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    throw new CliError(
      `refused: another mbulk is writing to store ${store.name} (${store.id}): ${describeOwner(error.owner)}. Nothing was written; run again when it has finished (a lock left by a process that is gone is taken over; the lock is ${error.file})`,
      ExitCode.Refused,
    );
  }
}
