/**
 * Timestamps that strictly increase, even for several changes within one millisecond, so that
 * `updated_at` always advances and `updated_after` filters never miss a change.
 */
export class Clock {
  constructor(private last = 0) {}

  /** The last millisecond handed out (persisted so a restart never goes back in time). */
  get lastMs(): number {
    return this.last;
  }

  /** Moves the clock past `ms` (used when loading data stamped in the future). */
  observe(ms: number): void {
    if (Number.isFinite(ms) && ms > this.last) this.last = ms;
  }

  /** A new ISO timestamp, strictly later than every one returned before. */
  tick(): string {
    const now = Date.now();
    this.last = now > this.last ? now : this.last + 1;
    return new Date(this.last).toISOString();
  }
}
