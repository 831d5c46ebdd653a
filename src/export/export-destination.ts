import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../errors/usage-error.js';

/**
 * Makes an export's file writable before anything is read: creates its folder, and refuses a
 * folder that cannot be created or a path that is a folder. Both are usage errors (exit 2): the
 * user named a place the export cannot go.
 */
export async function prepareExportDestination(path: string, shown = path): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`cannot create the folder of ${shown} (${code}): check the path`);
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`${shown} is a folder; name a file inside it`);
}
