/**
 * A small seeded pseudo-random number generator (sfc32, seeded through splitmix32) for everything in
 * the sandbox that must be random but reproducible: the synthetic store generator, latency jitter and
 * the fault injector. Same seed, same sequence, on every platform: only 32-bit integer arithmetic.
 * Not for anything secret.
 */

/** splitmix32: spreads a 32-bit seed (or counter) into a well-mixed 32-bit value. */
function splitmix32(state: number): [next: number, value: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  z ^= z >>> 15;
  return [next, z >>> 0];
}

/** FNV-1a of a string, for turning labels into seeds (`prng.fork('orders')`). */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** The seed this generator was made from (a 32-bit unsigned integer). */
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    let s = this.seed;
    let v: number;
    [s, v] = splitmix32(s);
    this.a = v;
    [s, v] = splitmix32(s);
    this.b = v;
    [s, v] = splitmix32(s);
    this.c = v;
    [s, v] = splitmix32(s);
    this.d = v;
    // Discard the first outputs: sfc32 needs a few rounds to mix a fresh state.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`int(${min}, ${max}): max < min`);
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** True with probability `p` (0..1). */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty array');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One element, chosen with the given relative weights (same length as `items`). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** Shuffles `items` in place (Fisher-Yates) and returns it. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** `count` distinct elements of `items`, in random order (count is capped at the length). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      const tmp = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = tmp;
    }
    return copy.slice(0, n);
  }

  /**
   * An independent generator derived from this one's seed and a label. Forks do not consume this
   * generator's sequence, so adding a draw in one part (say products) leaves another (customers)
   * unchanged.
   */
  fork(label: string): Prng {
    return new Prng((Math.imul(this.seed ^ hashSeed(label), 0x9e3779b1) ^ hashSeed(`${label}#`)) >>> 0);
  }
}

/** A generator for a seed (default 1). */
export function createPrng(seed = 1): Prng {
  return new Prng(seed);
}
