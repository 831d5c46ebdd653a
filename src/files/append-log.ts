import * as fs from 'node:fs';
import { GroupFsync } from './group-fsync.js';

/** The file call an append log writes with: a seam for tests that need a full disk or short writes. */
export interface AppendLogFs {
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
}

export interface AppendLogOptions {
  /** `flush()` and `close()` fdatasync (default true): records then survive a power loss too. */
  durable?: boolean | undefined;
  /** Where records are written (default: node:fs). */
  fs?: AppendLogFs | undefined;
}

/**
 * An append-only file of one record per line: the run's journal (journal.ndjson) and backup log
 * (backup.ndjson). Opening it ends a torn last line first (a process killed mid-write leaves one),
 * so the torn record cannot swallow the next one; readers skip the torn line. Each `append` is one
 * write(2), continued until the whole record is written (a nearly full disk writes less than
 * asked): once it returns, the record survives the process being killed. `flush()` makes what was
 * appended durable against a power loss as well (fdatasync, shared by concurrent callers).
 */
export class AppendLog {
  private fd: number | undefined;
  private readonly durable: boolean;
  private readonly writer: AppendLogFs;
  private readonly sync: GroupFsync;

  private constructor(
    readonly file: string,
    fd: number,
    options: AppendLogOptions,
  ) {
    this.fd = fd;
    this.durable = options.durable ?? true;
    this.writer = options.fs ?? fs;
    this.sync = new GroupFsync(() => this.fd);
  }

  /** Opens (creating if needed) `file` for appending, ending a torn last line. */
  static open(file: string, options: AppendLogOptions = {}): AppendLog {
    const fd = fs.openSync(file, 'a+');
    try {
      const size = fs.fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) fs.writeSync(fd, '\n');
      }
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    return new AppendLog(file, fd, options);
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.fd === undefined;
  }

  /**
   * Appends `data` (whole lines, newline included) with write(2) before returning. Any error, or a
   * write that makes no progress (EIO), is thrown: the record may then be torn, and never counts.
   */
  append(data: string | Uint8Array): void {
    if (this.fd === undefined) throw new Error(`${this.file} is closed.`);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < bytes.length) {
      const written = this.writer.writeSync(this.fd, bytes, offset, bytes.length - offset);
      if (!(written > 0)) throw Object.assign(new Error('no bytes written'), { code: 'EIO' });
      offset += written;
    }
  }

  /** Resolves when everything appended so far is on disk (a no-op unless durable). */
  flush(): Promise<void> {
    if (!this.durable || this.fd === undefined) return Promise.resolve();
    return this.sync.flush();
  }

  /** Closes the file, after an fdatasync when `sync` (default: durable). Await pending `flush()` calls first. Safe to call twice. */
  close(sync = this.durable): void {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    try {
      if (sync) fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}
