import * as fs from 'node:fs';

/**
 * Group commit for an append-only file: `flush()` resolves once everything written to the fd
 * before the call is on disk. Callers that flush at the same time share one fdatasync, and the
 * fdatasync runs on libuv's thread pool, so concurrent operations neither wait for each
 * other's flushes one by one nor block the event loop (a synchronous fdatasync per record
 * costs ~2 ms on this machine's disk and capped the executor at ~120 operations/s).
 *
 * Data written with write(2) already survives the process being killed (it is in the page
 * cache); the fdatasync is what makes it survive a power loss or an OS crash too.
 */
export class GroupFsync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly fd: () => number | undefined) {}

  /** Resolves when every byte written before this call is on disk. */
  flush(): Promise<void> {
    // A sync already running may have started before our write: it does not count. Queue one
    // more, shared by everyone who asks while the current one runs.
    if (this.running) {
      this.next ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.next = undefined;
          return this.start();
        });
      return this.next;
    }
    return this.start();
  }

  /** Whether a flush is under way (close only after awaiting it). */
  get busy(): boolean {
    return this.running !== undefined || this.next !== undefined;
  }

  private start(): Promise<void> {
    const fd = this.fd();
    if (fd === undefined) return Promise.resolve();
    const run = new Promise<void>((resolve, reject) => {
      fs.fdatasync(fd, (error) => {
        if (this.running === run) this.running = undefined;
        if (error) reject(error);
        else resolve();
      });
    });
    this.running = run;
    return run;
  }
}
