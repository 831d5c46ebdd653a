import type { Clock } from '../../src/api/clock.js';

/**
 * Time shared by a client and a sandbox that talk over real sockets, without waiting for it: it
 * stands still while anything happens (every `now()` or `sleep()` is activity) and, once nothing
 * has touched it for `quietMs` of real time (every request answered, every caller asleep), jumps to
 * the end of the earliest sleep and wakes it. A client that never sleeps sees time stand still,
 * so a rate limit on this clock never refills for it.
 */
export class VirtualClock implements Clock {
  private t = 0;
  private sleepers: { at: number; wake: () => void }[] = [];
  private quiet: NodeJS.Timeout | undefined;

  constructor(private readonly quietMs = 2) {}

  /** Virtual milliseconds since the clock was made. */
  readonly now = (): number => {
    this.touched();
    return this.t;
  };

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const sleeper = {
        at: this.t + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
      this.touched();
    });
  }

  private touched(): void {
    clearTimeout(this.quiet);
    this.quiet = this.sleepers.length > 0 ? setTimeout(() => this.jump(), this.quietMs) : undefined;
  }

  private jump(): void {
    this.quiet = undefined;
    const next = Math.min(...this.sleepers.map((s) => s.at));
    if (!Number.isFinite(next)) return;
    this.t = Math.max(this.t, next);
    const due = this.sleepers.filter((s) => s.at <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    for (const s of due) s.wake();
    this.touched();
  }
}
