import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes a whole file so that a reader (or a process killed midway) only ever sees the old
 * content or the new content, never a half-written file: write a temporary sibling, flush it
 * to disk, rename it over the target, then flush the directory entry (best effort).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = temporarySibling(file);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  commitTemporary(tmp, file);
}

/** `<dir>/.<name>.<random>.tmp`: same directory as the target, so the rename stays atomic. */
export function temporarySibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Renames a flushed temporary file over its target and flushes the directory entry. */
export function commitTemporary(tmp: string, file: string): void {
  try {
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(file));
}

function syncDirectory(dir: string): void {
  // Directories cannot be opened for fsync on every platform (Windows); the rename is still atomic.
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
