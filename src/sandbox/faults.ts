/** Fault options of the sandbox (all off by default). */
export interface FaultOptions {
  /** Added latency per /api/v2 request in ms, with ±50% jitter (default 0). */
  latencyMs?: number;
  /** Token bucket: sustained requests per second before 429 (default: unlimited). */
  rateLimitRps?: number;
  /** Probability 0..1 of a 500 api_error, decided before acting (default 0). */
  failRate?: number;
  /**
   * Probability 0..1 of closing the connection without a response (default 0). Half of the drops
   * happen before acting (nothing changed) and half after committing (the response is lost).
   */
  dropRate?: number;
  /** Seed of the fault PRNG, so tests are deterministic (default 1). */
  faultSeed?: number;
}

/** What happens to one request. */
export type FaultDecision =
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'fail' }
  | { kind: 'drop_before' }
  | { kind: 'drop_after' }
  | { kind: 'none' };

/** mulberry32: small, fast, seedable. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function probability(name: string, p: number | undefined): number {
  if (p === undefined) return 0;
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${name} must be between 0 and 1`);
  return p;
}

/**
 * Decides faults for /api/v2 requests. Every decision is taken before the request acts, so a
 * faulted request either fully happened (drop_after) or not at all (rate_limited, fail,
 * drop_before); the request log says which.
 */
export class FaultInjector {
  private readonly random: () => number;
  private readonly latencyMs: number;
  private readonly rps: number | undefined;
  private readonly failRate: number;
  private readonly dropRate: number;
  private tokens: number;
  private refilledAt: number;

  constructor(
    options: FaultOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.random = mulberry32(options.faultSeed ?? 1);
    this.latencyMs = Math.max(0, options.latencyMs ?? 0);
    if (options.rateLimitRps !== undefined && !(options.rateLimitRps > 0)) {
      throw new RangeError('rateLimitRps must be above 0');
    }
    this.rps = options.rateLimitRps;
    this.failRate = probability('failRate', options.failRate);
    this.dropRate = probability('dropRate', options.dropRate);
    this.tokens = this.capacity;
    this.refilledAt = this.now();
  }

  /** Burst size of the bucket: one second's worth (at least 1). */
  private get capacity(): number {
    return Math.max(1, this.rps ?? 1);
  }

  /** Takes a token; when none is left, says how many whole seconds to wait (>= 1). */
  private takeToken(): number | null {
    if (this.rps === undefined) return null;
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.refilledAt) / 1000) * this.rps);
    this.refilledAt = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.rps));
  }

  decide(): FaultDecision {
    const wait = this.takeToken();
    if (wait !== null) return { kind: 'rate_limited', retryAfterSeconds: wait };
    if (this.failRate > 0 && this.random() < this.failRate) return { kind: 'fail' };
    if (this.dropRate > 0 && this.random() < this.dropRate) {
      return this.random() < 0.5 ? { kind: 'drop_before' } : { kind: 'drop_after' };
    }
    return { kind: 'none' };
  }

  /** Latency for one request: latencyMs ± 50%. */
  latency(): number {
    if (this.latencyMs === 0) return 0;
    return Math.round(this.latencyMs * (0.5 + this.random()));
  }
}
