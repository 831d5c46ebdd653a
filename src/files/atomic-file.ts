import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * Files replaced atomically: the new content goes to a temporary sibling (`.<name>.<random>.tmp`,
 * in the target's folder so that the rename stays atomic), which is flushed to disk, renamed over
 * the target, and the folder's entry flushed (best effort). A reader, a process killed at any
 * instant or a power loss after the commit sees the old content or the new one, never part of
 * either; a write that fails or is discarded leaves the target as it was and no temporary file.
 *
 * - `writeFileAtomic(file, data)`: the whole content at once (sync): run.json, plan.json, reports,
 *   the stores' memory files, the export watermarks.
 * - `AtomicFileSync`: written piece by piece with write(2) (backup.json, the sandbox's state, which
 *   must be one moment of the store).
 * - `AtomicFile`: written piece by piece through a stream, with backpressure, the disk writing while
 *   the caller makes the next piece (the CSV writer, JSON exports, XLSX workbooks).
 *
 * Both writers refuse a folder as target when they open (EISDIR, as opening it would), not at the
 * final rename after the whole content was written.
 */

/** `<dir>/.<name>.<random>.tmp`: beside the target, so the final rename over it is atomic. */
function temporarySibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Options of the files written atomically. */
export interface AtomicFileOptions {
  /** Permission bits of a new file (default 0o666, less the umask). */
  mode?: number | undefined;
}

/** Writes `data` as the whole new content of `file`, atomically (see above). */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicFileOptions = {},
): void {
  const out = new AtomicFileSync(file, options);
  try {
    out.write(data);
  } catch (error) {
    out.discard();
    throw error;
  }
  out.commit();
}

/** A file written piece by piece with write(2) that replaces `path` on `commit()`. */
export class AtomicFileSync {
  readonly tmp: string;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    options: AtomicFileOptions = {},
  ) {
    refuseDirectorySync(path);
    this.tmp = temporarySibling(path);
    this.fd = fs.openSync(this.tmp, 'w', options.mode);
  }

  /** Appends to the temporary file (the whole of `data`: short writes are continued). */
  write(data: string | Uint8Array): void {
    if (this.fd === undefined) throw new Error(`${this.path} is already closed.`);
    fs.writeFileSync(this.fd, data);
  }

  /** Flushes the content to disk and renames it over `path`. On failure the temporary file is removed. */
  commit(): void {
    const fd = this.take();
    if (fd === undefined) return;
    try {
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(this.tmp, this.path);
    } catch (error) {
      fs.rmSync(this.tmp, { force: true });
      throw error;
    }
    syncDirectory(path.dirname(this.path));
  }

  /** Drops what was written: `path` is left as it was. Safe to call after `commit` (does nothing). */
  discard(): void {
    const fd = this.take();
    if (fd === undefined) return;
    fs.closeSync(fd);
    fs.rmSync(this.tmp, { force: true });
  }

  private take(): number | undefined {
    const fd = this.fd;
    this.fd = undefined;
    return fd;
  }
}

/**
 * A file written through a stream that replaces `path` on `commit()`. Text goes through `write`,
 * encoded as it comes into a buffer of `flushAt` bytes that goes to the stream, with backpressure,
 * when the next text may not fit (never one giant string: V8 strings stop at ~512 MB, and memory
 * should not grow with the store); a library that writes to a stream itself (exceljs) gets
 * `stream`. Any failure of the file is reported as `cannot write <path>: <reason>` by the next call.
 *
 * Encoded text by text, not gathered into a string first: a 256 KB string of thousands of `+=`
 * pieces had to be flattened, then encoded, at every flush (a million lines of results.csv: ~1 s
 * of that against ~0.3 s encoding each line into the buffer). So each text must be whole: a
 * surrogate pair split across two writes is written as two U+FFFD (no caller splits one).
 */
export class AtomicFile {
  readonly tmp: string;
  /** The stream onto the temporary file, for writers that take a stream; text goes through `write`. */
  readonly stream: fs.WriteStream;
  /** Encoded text not yet handed to the stream: `used` bytes of `chunk`. */
  private chunk: Buffer;
  private used = 0;
  private failure: Error | undefined;
  private readonly opened: Promise<void>;
  private finished: Promise<void> | undefined;

  constructor(
    readonly path: string,
    /** Bytes buffered before one write to the stream (default 64 KiB). */
    private readonly flushAt = 64 * 1024,
  ) {
    this.chunk = Buffer.allocUnsafeSlow(flushAt);
    this.tmp = temporarySibling(path);
    this.stream = fs.createWriteStream(this.tmp);
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
    this.opened = new Promise<void>((resolve) => {
      this.stream.once('open', () => {
        stat(path).then(
          (existing) => {
            if (existing.isDirectory()) this.failure ??= directoryError(path);
            resolve();
          },
          () => resolve(),
        );
      });
      this.stream.once('error', () => resolve());
    });
  }

  /** Resolves once the temporary file is open; rejects (removing it) when it cannot be, or `path` is a folder. */
  async ready(): Promise<void> {
    await this.opened;
    if (this.failure !== undefined) {
      await this.discard();
      this.throwIfFailed();
    }
  }

  /**
   * Appends text, or bytes (UTF-8 already); returns a promise only when it flushed (await it: it
   * carries backpressure and failures).
   */
  write(data: string | Uint8Array): void | Promise<void> {
    this.throwIfFailed();
    // At most 3 bytes of UTF-8 per UTF-16 code unit: room for that, or what is buffered goes first.
    const most = typeof data === 'string' ? data.length * 3 : data.byteLength;
    if (this.used + most <= this.flushAt) {
      this.used += this.put(data);
      return undefined;
    }
    if (most <= this.flushAt) {
      const flushed = this.flush(); // hands the buffer to the stream now, then waits for drain
      this.used += this.put(data);
      return flushed;
    }
    // Longer than a whole buffer: after what is buffered, as it is.
    return this.flush(data);
  }

  /** Writes what is buffered (then `data`, if given) and waits for the stream to drain. */
  async flush(data?: string | Uint8Array): Promise<void> {
    this.throwIfFailed();
    let fits = true;
    if (this.used > 0) {
      const bytes = this.chunk.subarray(0, this.used);
      // The stream keeps the bytes until written: the next text goes into a new buffer.
      this.chunk = Buffer.allocUnsafeSlow(this.flushAt);
      this.used = 0;
      fits = this.stream.write(bytes);
    }
    if (data !== undefined && data.length > 0) fits = this.stream.write(data) && fits;
    if (!fits) {
      try {
        await once(this.stream, 'drain'); // rejects on 'error'
      } catch {
        // reported below, with the path
      }
    }
    this.throwIfFailed();
  }

  /** Copies `data` into the buffer after what it holds (there is room); returns the bytes it took. */
  private put(data: string | Uint8Array): number {
    if (typeof data === 'string') return this.chunk.write(data, this.used);
    this.chunk.set(data, this.used);
    return data.byteLength;
  }

  /**
   * Flushes, closes, flushes the content to disk and renames it over `path`. On failure the
   * temporary file is removed and `path` is left as it was.
   */
  commit(): Promise<void> {
    this.finished ??= (async () => {
      try {
        await this.opened;
        await this.flush();
        if (!this.stream.writableEnded) this.stream.end();
        if (!this.stream.closed) await once(this.stream, 'close').catch(() => undefined);
        this.throwIfFailed();
        const handle = await open(this.tmp, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(this.tmp, this.path);
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        await this.removeTemporary();
        this.throwIfFailed();
      }
      syncDirectory(path.dirname(this.path));
    })();
    return this.finished;
  }

  /** Drops what was written: `path` is left as it was (a later `commit` throws). After `commit` it only waits for it. */
  async discard(): Promise<void> {
    if (this.finished !== undefined) {
      await this.finished.catch(() => undefined);
      return;
    }
    this.failure ??= new Error('discarded');
    this.used = 0;
    await this.removeTemporary();
  }

  private async removeTemporary(): Promise<void> {
    if (!this.stream.closed) {
      const closed = once(this.stream, 'close').catch(() => undefined);
      this.stream.destroy();
      await closed;
    }
    await rm(this.tmp, { force: true });
  }

  /**
   * Throws the failure as `cannot write <path>: <reason>`, the system error as its `cause` (the CLI
   * reports a full disk found there as the local failure it is, exit code 5).
   */
  private throwIfFailed(): void {
    if (this.failure !== undefined)
      throw new Error(`cannot write ${this.path}: ${this.failure.message}`, { cause: this.failure });
  }
}

/** What `writeThenCommit` completes: an AtomicFile, or a writer built on one. */
export interface Committable {
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Runs `work` (which writes `file`), then commits `file`; when `work` throws, discards it (the
 * target is left as it was) and rethrows. Resolves to what `work` returned.
 */
export async function writeThenCommit<T>(file: Committable, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await file.discard();
    throw error;
  }
  await file.commit();
  return result;
}

/** The error opening a folder for writing gives (EISDIR). */
function directoryError(file: string): Error {
  return Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${file}'`), {
    code: 'EISDIR',
    syscall: 'open',
    path: file,
  });
}

function refuseDirectorySync(file: string): void {
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw directoryError(file);
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
