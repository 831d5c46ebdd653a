import type { Clock } from '../../../src/api/clock.js';

/** A manual clock: `sleep` resolves only when `advance` passes its deadline. */
export class FakeClock implements Clock {
  private t = 0;
  private timers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.t;
  }

  /** As the system clock's: rejects with the signal's reason when it is aborted (timer dropped). */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const timer = { at: this.t + Math.max(0, ms), resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward, firing timers in order and letting promise chains run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await flush();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (next === undefined || next.at > target) break;
      this.timers.shift();
      this.t = next.at;
      next.resolve();
      await flush();
    }
    this.t = target;
    await flush();
  }
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
}
