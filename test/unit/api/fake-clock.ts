import type { Clock } from '../../../src/api/clock.js';

/** A manual clock: `sleep` resolves only when `advance` passes its deadline. */
export class FakeClock implements Clock {
  private t = 0;
  private timers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), resolve });
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
