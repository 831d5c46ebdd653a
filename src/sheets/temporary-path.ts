import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** `<dir>/.<name>.<random>.tmp`: beside the target, so the final rename over it is atomic. */
export function temporaryPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Fails at once (EISDIR, like opening the target itself would) when the target is a folder,
 * instead of at the final rename after the whole file was written.
 */
export async function assertNotDirectory(path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${path}'`), {
      code: 'EISDIR',
      path,
    });
  }
}
