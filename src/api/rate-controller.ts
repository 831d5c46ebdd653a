import pLimit, { type LimitFunction } from 'p-limit';
import { systemClock, type Clock } from './clock.js';

/** What progress callbacks see. */
export interface RateProgress {
  /** Requests on the wire right now. */
  inFlight: number;
  /** Current concurrency limit (adapts between 1 and the maximum). */
  concurrency: number;
  /** Responses per second over the last second. */
  rps: number;
  /** Current ceiling on requests per second (user's `rps` and/or learned from 429s), if any. */
  rpsLimit: number | undefined;
  /** Attempts that were retries. */
  retries: number;
  /** Attempts sent (first attempts and retries). */
  requests: number;
  /** 429 answers received. */
  rateLimited: number;
}

export interface RateControllerOptions {
  /** Upper bound of concurrency (`--concurrency`). Default 4. */
  maxConcurrency?: number;
  /** Fixed ceiling on requests per second (`--rps`). Default: none. */
  rps?: number | undefined;
  /** Successes in a row before concurrency grows by one. Default 20. */
  successStreak?: number;
  /** Learn an rps ceiling from 429s (see `onRateLimited`). Default true. */
  adaptRps?: boolean;
  clock?: Clock;
  onProgress?: ((progress: RateProgress) => void) | undefined;
}

/**
 * How a request shares the rate with others: `background` goes on what `normal` requests leave
 * (see `RateController.run`).
 */
export type SendPriority = 'normal' | 'background';

/** Handed to the task that holds a slot; reported back with the outcome. */
export interface SendTicket {
  readonly startedAt: number;
}

/** Growth of a learned rps ceiling per second without 429: slow, so probing costs few 429s. */
const RPS_GROWTH_PER_SECOND = 0.005;
const RPS_GROWTH_PER_SECOND_QUIET = 0.02;
const QUIET_MS = 15_000;
/** Margin under a measured server rate (a good estimate) and under a rough one. */
const MARGIN_MEASURED = 0.97;
const MARGIN_ROUGH = 0.9;
const WINDOW_MS = 1000;
/** The learned ceiling grows only while the rate sent is at least this share of it. */
const BINDING = 0.85;
/** Successes needed before a rate is believed. */
const MIN_SAMPLE = 5;
/** While normal requests are going, a background one goes after at least this many of them. */
const NORMAL_SENDS_PER_BACKGROUND = 4;
/** Normal requests count as going while one is queued or out, and this long after one was sent or finished. */
const NORMAL_IDLE_MS = 250;

/**
 * One shared limiter for every request of a client: concurrency (p-limit) that halves on a 429 and
 * grows by one after a streak of successes, an optional requests-per-second spacing, and a global
 * pause that honours Retry-After for every sender.
 *
 * Why also an rps ceiling: a server with a token bucket lets a burst through, then refuses. Halving
 * concurrency alone oscillates (and every 429 costs a Retry-After pause). After a 429 the bucket is
 * empty, so the successes between two 429s divided by the time between them is the server's refill
 * rate; we send slightly under it and probe upwards slowly.
 */
export class RateController {
  private readonly limit: LimitFunction;
  private readonly clock: Clock;
  private readonly maxConcurrency: number;
  private readonly userRps: number | undefined;
  private readonly successStreak: number;
  private readonly adaptRps: boolean;
  private readonly onProgress: ((progress: RateProgress) => void) | undefined;

  private inFlight = 0;
  private requests = 0;
  private retries = 0;
  private rateLimited = 0;
  private streak = 0;
  private pausedUntil = 0;
  private nextSendAt = 0;
  private lastDecreaseAt = -Infinity;
  private learnedRps: number | undefined;
  private lastEventAt: number | undefined;
  private successesSinceEvent = 0;
  private lastRpsGrowthAt = 0;
  private readonly recent: number[] = [];
  /** Normal requests queued, waiting for their turn or in flight. */
  private normalActive = 0;
  /** When a normal request was last sent or last finished. */
  private lastNormalActivityAt = -Infinity;
  private normalSendsSinceBackground = 0;
  /** Background senders waiting for the next normal send or finish. */
  private readonly normalEventWaiters = new Set<() => void>();

  constructor(options: RateControllerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.maxConcurrency = Math.max(1, Math.floor(options.maxConcurrency ?? 4));
    this.userRps = options.rps !== undefined && options.rps > 0 ? options.rps : undefined;
    this.successStreak = options.successStreak ?? 20;
    this.adaptRps = options.adaptRps ?? true;
    this.onProgress = options.onProgress;
    this.limit = pLimit(this.maxConcurrency);
  }

  /**
   * Runs `task` when a slot is free, the global pause is over and the rps spacing allows.
   *
   * A `background` request goes on what normal ones leave: while normal requests are going (one
   * queued or in flight, or one sent or finished in the last NORMAL_IDLE_MS), at most one
   * background request per NORMAL_SENDS_PER_BACKGROUND normal ones, and under an rps ceiling only
   * when a normal request after it still goes on time. Two cursor chains read side by side (a
   * store's VISIBLE and HIDDEN products) otherwise share the rate, the client's event loop and the
   * server half and half, and the long chain, the one that bounds the read, goes at two thirds of
   * its pace until the short one ends. With one slot (concurrency halved by 429s) a background
   * request still takes its share, between two normal ones: the next normal one then waits for it.
   */
  async run<T>(
    task: (ticket: SendTicket) => Promise<T>,
    signal?: AbortSignal,
    priority: SendPriority = 'normal',
  ): Promise<T> {
    // A background request waits for its share before it takes a slot: holding one, it would
    // keep out the normal sends it waits for.
    if (priority === 'background') await this.backgroundTurn(signal);
    else this.normalActive++;
    try {
      return await this.limit(async () => {
        await this.waitForTurn(signal, priority);
        const ticket: SendTicket = { startedAt: this.clock.now() };
        this.inFlight++;
        this.requests++;
        this.emit();
        try {
          return await task(ticket);
        } finally {
          this.inFlight--;
          this.emit();
        }
      });
    } finally {
      if (priority === 'normal') {
        this.normalActive--;
        this.normalEvent();
      }
    }
  }

  /** A response that was not a 429 (errors included: the server kept up). */
  onSuccess(_ticket?: SendTicket): void {
    const now = this.clock.now();
    this.recent.push(now);
    this.trimRecent(now);
    this.successesSinceEvent++;
    this.streak++;
    if (this.streak >= this.successStreak) {
      this.streak = 0;
      if (this.limit.concurrency < this.maxConcurrency) this.limit.concurrency += 1;
    }
    if (this.learnedRps !== undefined && now - this.lastRpsGrowthAt >= 1000) {
      const seconds = (now - this.lastRpsGrowthAt) / 1000;
      // Probe upwards only while the ceiling is what holds us back: a ceiling that grew while a
      // slower sender stayed under it (one cursor chain at its latency) would let the next burst
      // (the writes after a read) straight into the server's limit, and pay a Retry-After for it.
      if (this.recentRps() >= this.learnedRps * BINDING) {
        // Quiet for long (no 429 in 15 s): the ceiling may be an underestimate; probe faster.
        const quiet = this.lastEventAt !== undefined && now - this.lastEventAt > QUIET_MS;
        const growth = quiet ? RPS_GROWTH_PER_SECOND_QUIET : RPS_GROWTH_PER_SECOND;
        this.learnedRps *= 1 + growth * Math.min(seconds, 5);
      }
      this.lastRpsGrowthAt = now;
    }
  }

  /** A 429: pause everyone for Retry-After, halve concurrency once per congestion event, learn rps. */
  onRateLimited(ticket: SendTicket, retryAfterMs?: number): void {
    const now = this.clock.now();
    this.rateLimited++;
    // Requests sent before our last reaction saw the old rate: one congestion, one reaction.
    if (ticket.startedAt >= this.lastDecreaseAt) this.react(now);
    // After learning: the pause leaves no slack under the ceiling just learned (see pauseFor).
    if (retryAfterMs !== undefined && retryAfterMs > 0) this.pauseFor(retryAfterMs);
    this.emit();
  }

  /** One congestion: halve concurrency, learn (or lower) the rps ceiling. */
  private react(now: number): void {
    this.lastDecreaseAt = now;
    this.streak = 0;
    this.limit.concurrency = Math.max(1, Math.floor(this.limit.concurrency / 2));
    if (this.adaptRps) {
      const since = this.lastEventAt === undefined ? 0 : now - this.lastEventAt;
      this.trimRecent(now);
      const current = this.learnedRps ?? Infinity;
      let estimate: number | undefined;
      if (this.lastEventAt !== undefined && since >= 1000 && this.successesSinceEvent >= MIN_SAMPLE) {
        // The bucket was empty at the last 429 and is empty again: what got through is its refill.
        estimate = ((this.successesSinceEvent * 1000) / since) * MARGIN_MEASURED;
      } else if (this.recent.length >= MIN_SAMPLE) {
        // First 429 (or two in quick succession): stay under the rate we were just sending at.
        estimate = this.recentRps() * MARGIN_ROUGH;
      } else if (this.learnedRps !== undefined) {
        estimate = this.learnedRps * MARGIN_ROUGH;
      }
      // Too few successes to measure anything (e.g. the very first request was refused): only the
      // concurrency halves; a ceiling learned from nothing would throttle the whole run.
      if (estimate !== undefined)
        this.learnedRps = Math.max(1, Math.min(estimate, current * MARGIN_MEASURED));
      this.lastRpsGrowthAt = now;
    }
    this.lastEventAt = now;
    this.successesSinceEvent = 0;
  }

  /** An attempt is about to be retried (for progress figures). */
  onRetry(): void {
    this.retries++;
    this.emit();
  }

  /** Holds every sender until `ms` from now (Retry-After is global: the limit is per token). */
  pauseFor(ms: number): void {
    const until = this.clock.now() + ms;
    if (until > this.pausedUntil) this.pausedUntil = until;
    // No slack carried over a pause: the first sends after it are spaced as usual, not a pair at
    // once into a bucket the server has only just refilled.
    const floor = this.pausedUntil + this.slackMs();
    if (this.nextSendAt < floor) this.nextSendAt = floor;
  }

  /**
   * How early against the spacing a send may go (see waitForTurn): one interval under a learned
   * ceiling, none under a user's `--rps` (a promise about every second, kept to the letter even
   * when a ceiling learned from 429s is lower) or with no ceiling.
   */
  private slackMs(): number {
    const rps = this.rpsLimit();
    return rps === undefined || this.userRps !== undefined ? 0 : 1000 / rps;
  }

  progress(): RateProgress {
    const now = this.clock.now();
    this.trimRecent(now);
    return {
      inFlight: this.inFlight,
      concurrency: this.limit.concurrency,
      rps: this.recentRps(),
      rpsLimit: this.rpsLimit(),
      retries: this.retries,
      requests: this.requests,
      rateLimited: this.rateLimited,
    };
  }

  private rpsLimit(): number | undefined {
    if (this.userRps === undefined) return this.learnedRps;
    if (this.learnedRps === undefined) return this.userRps;
    return Math.min(this.userRps, this.learnedRps);
  }

  private async waitForTurn(signal: AbortSignal | undefined, priority: SendPriority): Promise<void> {
    for (;;) {
      if (await this.waitedOutPause(signal)) continue;
      let now = this.clock.now();
      const rps = this.rpsLimit();
      if (rps !== undefined) {
        // Spacing as a virtual scheduler (GCRA): a send is due one interval after the one before,
        // and under a learned ceiling may go up to one interval early (slackMs). A cursor chain
        // whose pages come back in 12–33 ms (20 ms ± 50%) at a ceiling of 48.5/s otherwise waits
        // out the spacing after every quick page: 24.3 instead of 22.9 ms a page. The long-run
        // rate stays under the ceiling (at most one request more in any second).
        const at = Math.max(now, this.nextSendAt - this.slackMs());
        this.nextSendAt = Math.max(this.nextSendAt, at) + 1000 / rps;
        if (at > now) await this.clock.sleep(at - now, signal);
        now = this.clock.now();
        // A Retry-After arrived while we waited: wait for it too.
        if (this.pausedUntil > now) continue;
      }
      if (priority === 'normal') {
        this.normalSendsSinceBackground++;
        this.normalEvent();
      }
      return;
    }
  }

  /**
   * Resolves when a background request may go (see `run`): normal requests have had their share,
   * and under an rps ceiling it leaves them their turn: it goes only when the spacing, without its
   * slack, is due (a normal send after it then still goes on time), reserving nothing ahead.
   */
  private async backgroundTurn(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      if (await this.waitedOutPause(signal)) continue;
      const now = this.clock.now();
      const idleFor = now - this.lastNormalActivityAt;
      const normalGoing = this.normalActive > 0 || idleFor < NORMAL_IDLE_MS;
      if (normalGoing && this.normalSendsSinceBackground < NORMAL_SENDS_PER_BACKGROUND) {
        // Looks again at the next normal send or finish, or once the normal ones may have stopped.
        await this.untilNormalEventOr(NORMAL_IDLE_MS - (this.normalActive > 0 ? 0 : idleFor), signal);
        continue;
      }
      const rps = this.rpsLimit();
      const due = rps === undefined ? now : this.nextSendAt - this.slackMs() + 1000 / rps;
      if (due > now) {
        await this.clock.sleep(due - now, signal);
        continue;
      }
      // Its share is taken now: a second background request waits for the next one.
      this.normalSendsSinceBackground = 0;
      return;
    }
  }

  /** Throws when aborted; waits out a Retry-After pause and answers true (look again), else false. */
  private async waitedOutPause(signal: AbortSignal | undefined): Promise<boolean> {
    signal?.throwIfAborted();
    const left = this.pausedUntil - this.clock.now();
    if (left <= 0) return false;
    await this.clock.sleep(left, signal);
    return true;
  }

  /**
   * The normal requests that background ones yield to have ended for now (a listing's leading
   * chain is over): background senders stop waiting out NORMAL_IDLE_MS for a next one. A normal
   * request in flight, or sent later, is yielded to as before.
   */
  normalEnded(): void {
    this.lastNormalActivityAt = -Infinity;
    for (const wake of this.normalEventWaiters) wake();
    this.normalEventWaiters.clear();
  }

  /** A normal request was sent or finished: background senders look again. */
  private normalEvent(): void {
    this.lastNormalActivityAt = this.clock.now();
    for (const wake of this.normalEventWaiters) wake();
    this.normalEventWaiters.clear();
  }

  /** Resolves at the next normal send or finish, or after `ms`, whichever comes first. */
  private async untilNormalEventOr(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const timer = new AbortController();
    const stop = () => timer.abort();
    signal?.addEventListener('abort', stop, { once: true });
    let wake: (() => void) | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => this.normalEventWaiters.add((wake = resolve))),
        // Aborted when the race is over (no timer left behind) or by the caller's signal (the
        // caller's loop then throws its reason).
        this.clock.sleep(ms, timer.signal).catch(() => undefined),
      ]);
    } finally {
      if (wake) this.normalEventWaiters.delete(wake);
      timer.abort();
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Responses per second over the last window (trimmed by the caller). */
  private recentRps(): number {
    return this.recent.length * (1000 / WINDOW_MS);
  }

  private trimRecent(now: number): void {
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - WINDOW_MS) this.recent.shift();
  }

  private emit(): void {
    this.onProgress?.(this.progress());
  }
}
