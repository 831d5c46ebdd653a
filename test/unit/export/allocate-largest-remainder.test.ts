import { describe, expect, it } from 'vitest';
import { allocateLargestRemainder } from '../../../src/export/allocate-largest-remainder.js';
import { createPrng } from '../../../src/sandbox/prng.js';

const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);

describe('allocateLargestRemainder', () => {
  it('splits in proportion and gives leftover units to the largest remainders', () => {
    // 100 over 1:1:1 → 33.33 each; the one leftover unit goes to the first (tie by index).
    expect(allocateLargestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    // 10 over 3000:1000 → exactly 7.5 / 2.5: the tie goes to index 0.
    expect(allocateLargestRemainder(10, [3000, 1000])).toEqual([8, 2]);
    // 500 over 2000/550 → 392.15 / 107.84: remainder .84 beats .15.
    expect(allocateLargestRemainder(500, [2000, 550])).toEqual([392, 108]);
  });

  it('is exact when the proportions are exact', () => {
    expect(allocateLargestRemainder(300, [100, 200])).toEqual([100, 200]);
    expect(allocateLargestRemainder(0, [5, 7])).toEqual([0, 0]);
  });

  it('rounds a negative total like its positive mirror', () => {
    expect(allocateLargestRemainder(-100, [1, 1, 1])).toEqual([-34, -33, -33]);
    expect(allocateLargestRemainder(-500, [2000, 550])).toEqual([-392, -108]);
  });

  it('splits evenly when every weight is zero, the first lines taking the remainder', () => {
    expect(allocateLargestRemainder(10, [0, 0, 0])).toEqual([4, 3, 3]);
    expect(allocateLargestRemainder(-10, [0, 0, 0])).toEqual([-4, -3, -3]);
  });

  it('returns [] when there are no lines, and counts negative weights by size', () => {
    expect(allocateLargestRemainder(100, [])).toEqual([]);
    expect(allocateLargestRemainder(100, [-100, 300])).toEqual([25, 75]);
  });

  it('rejects fractional money', () => {
    expect(() => allocateLargestRemainder(10.5, [1])).toThrow(RangeError);
    expect(() => allocateLargestRemainder(10, [1.5])).toThrow(RangeError);
  });

  it('stays exact beyond 2^53 intermediate products (BigInt path)', () => {
    const total = 9_007_199_254_740; // ~9e12 minor units
    const weights = [3_000_000_001, 7_000_000_003, 1];
    const shares = allocateLargestRemainder(total, weights);
    expect(sum(shares)).toBe(total);
    const W = 3_000_000_001n + 7_000_000_003n + 1n;
    shares.forEach((s, i) => {
      const exactFloor = (BigInt(total) * BigInt(weights[i] as number)) / W;
      expect(BigInt(s) - exactFloor).toBeGreaterThanOrEqual(0n);
      expect(BigInt(s) - exactFloor).toBeLessThanOrEqual(1n);
    });
  });

  it('sums exactly and stays within one unit of the exact share (10,000 seeded random cases)', () => {
    const prng = createPrng(20261122);
    const failures: string[] = [];
    for (let c = 0; c < 10_000; c++) {
      const n = prng.int(1, 12);
      const weights = Array.from({ length: n }, () => (prng.chance(0.1) ? 0 : prng.int(1, 5_000_000)));
      const total = prng.int(-2_000_000, 2_000_000);
      const shares = allocateLargestRemainder(total, weights);
      const W = sum(weights);
      const ok =
        shares.length === n &&
        sum(shares) === total &&
        shares.every((s, i) => {
          const exact = W === 0 ? total / n : (total * (weights[i] as number)) / W;
          const sameSign = total === 0 || s === 0 || Math.sign(s) === Math.sign(total);
          return Number.isInteger(s) && sameSign && Math.abs(s - exact) < 1;
        });
      if (!ok) failures.push(JSON.stringify({ total, weights, shares }));
    }
    expect(failures).toEqual([]);
  });
});
