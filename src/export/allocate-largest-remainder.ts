/**
 * Splits an integer `total` (minor currency units) over lines in proportion to `weights` (their
 * line totals), so that the shares are integers and add up to `total` exactly.
 *
 * Method (largest remainder, also called Hamilton's method):
 * 1. Each line gets `floor(|total| × w / W)` where `W` is the sum of the weights.
 * 2. The units left over go one each to the lines with the largest fractional remainders
 *    (`|total| × w mod W`); ties go to the lower index, so the result is deterministic.
 * 3. A negative total is split as its absolute value and negated, so a negative amount rounds
 *    exactly like the positive one (the same lines absorb the extra unit).
 *
 * Edge cases, chosen so that every share has the sign of `total`:
 * - Negative weights (a refund line inside an order) count with their absolute value.
 * - All weights zero (free items only): the total is split evenly, the first lines taking the
 *   remainder (`allocate(10, [0, 0, 0])` → `[4, 3, 3]`).
 * - No weights: nothing can carry the amount; the result is `[]` (a caller that cares checks
 *   `total !== 0`).
 *
 * Exact for any safe integers: the products switch to BigInt when they could pass 2^53.
 * Throws RangeError when `total` or a weight is not a safe integer (money is never fractional).
 */
export function allocateLargestRemainder(total: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(total)) throw new RangeError(`total must be a safe integer, got ${total}`);
  const n = weights.length;
  if (n === 0) return [];
  const abs: number[] = new Array<number>(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const w = weights[i] as number;
    if (!Number.isSafeInteger(w)) throw new RangeError(`weight ${i} must be a safe integer, got ${w}`);
    abs[i] = Math.abs(w);
    sum += abs[i] as number;
  }
  const sign = total < 0 ? -1 : 1;
  const t = Math.abs(total);
  let shares: number[];
  if (t === 0) {
    shares = new Array<number>(n).fill(0);
  } else if (sum === 0) {
    shares = evenSplit(t, n);
  } else if (Number.isSafeInteger(sum) && t * sum <= Number.MAX_SAFE_INTEGER) {
    shares = splitNumber(t, abs, sum);
  } else {
    shares = splitBigInt(t, abs);
  }
  if (sign < 0) for (let i = 0; i < n; i++) shares[i] = -(shares[i] as number) || 0;
  return shares;
}

function evenSplit(t: number, n: number): number[] {
  const base = Math.floor(t / n);
  const extra = t - base * n;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = base + (i < extra ? 1 : 0);
  return out;
}

function splitNumber(t: number, w: readonly number[], sum: number): number[] {
  const n = w.length;
  const shares = new Array<number>(n);
  const rems = new Array<number>(n);
  let given = 0;
  for (let i = 0; i < n; i++) {
    const p = t * (w[i] as number); // exact: t × w ≤ t × sum ≤ 2^53
    const q = Math.floor(p / sum);
    shares[i] = q;
    rems[i] = p - q * sum;
    given += q;
  }
  distribute(shares, t - given, (a, b) => (rems[b] as number) - (rems[a] as number));
  return shares;
}

function splitBigInt(t: number, w: readonly number[]): number[] {
  const n = w.length;
  const bt = BigInt(t);
  let bsum = 0n;
  for (const x of w) bsum += BigInt(x);
  const shares = new Array<number>(n);
  const rems = new Array<bigint>(n);
  let given = 0;
  for (let i = 0; i < n; i++) {
    const p = bt * BigInt(w[i] as number);
    const q = p / bsum;
    shares[i] = Number(q);
    rems[i] = p - q * bsum;
    given += Number(q);
  }
  distribute(shares, t - given, (a, b) => {
    const ra = rems[a] as bigint;
    const rb = rems[b] as bigint;
    return ra === rb ? 0 : ra > rb ? -1 : 1;
  });
  return shares;
}

/** Gives one unit each to the `left` lines first in `order` (ties by index: the sort is stable). */
function distribute(shares: number[], left: number, order: (a: number, b: number) => number): void {
  if (left <= 0) return;
  const idx = Array.from(shares.keys()).sort((a, b) => order(a, b) || a - b);
  for (let k = 0; k < left; k++) {
    const i = idx[k % idx.length] as number;
    shares[i] = (shares[i] as number) + 1;
  }
}
