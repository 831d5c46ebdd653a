import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { MbulkError } from '../errors/mbulk-error.js';

/**
 * Reads a whole file the user named, refusing anything but a regular file: a FIFO, a socket or a
 * device would block a synchronous read forever (and with it the signal handlers: SIGTERM would
 * not be heard). Opened without blocking, then checked on the open descriptor (what was checked
 * is what is read), so a path swapped in between cannot slip one through.
 * Throws NotRegularFileError for those; open errors (ENOENT, EACCES…) are thrown as they are.
 */
export function readRegularFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new NotRegularFileError(path);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The path names a FIFO, socket, device or directory: not a file to read. Category `usage` (exit code 2). */
export class NotRegularFileError extends MbulkError {
  static override readonly errorName: string = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  constructor(readonly path: string) {
    super('usage', 'not a regular file (a pipe, socket, device or directory)');
  }
}
