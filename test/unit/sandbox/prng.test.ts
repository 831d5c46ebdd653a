import { describe, expect, it } from 'vitest';
import { Prng, createPrng, hashSeed } from '../../../src/sandbox/prng.js';

const draw = (r: Prng, n: number) => Array.from({ length: n }, () => r.nextUint32());

describe('Prng', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    expect(draw(createPrng(42), 20)).toEqual(draw(createPrng(42), 20));
    expect(draw(createPrng(42), 20)).not.toEqual(draw(createPrng(43), 20));
    // Pinned values: a change of algorithm would silently change every generated store.
    expect(draw(createPrng(1), 3)).toEqual(draw(new Prng(1), 3));
    expect(createPrng(1).nextUint32()).toMatchInlineSnapshot(`1130556604`);
  });

  it('keeps int() within its inclusive bounds and reaches both ends', () => {
    const r = createPrng(5);
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) seen.add(r.int(-3, 3));
    expect([...seen].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
    expect(() => r.int(2, 1)).toThrow(RangeError);
  });

  it('keeps next() in [0, 1) with a sane mean; chance() follows p', () => {
    const r = createPrng(9);
    let sum = 0;
    let hits = 0;
    let min = 1;
    let max = 0;
    for (let i = 0; i < 20000; i++) {
      const x = r.next();
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
      if (r.chance(0.25)) hits++;
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    expect(Math.abs(sum / 20000 - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(hits / 20000 - 0.25)).toBeLessThan(0.02);
  });

  it('shuffles in place into a permutation; sample() picks distinct items', () => {
    const r = createPrng(3);
    const items = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = r.shuffle([...items]);
    expect(shuffled).not.toEqual(items);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items);
    const picked = r.sample(items, 10);
    expect(new Set(picked).size).toBe(10);
    expect(r.sample(items, 100)).toHaveLength(50);
    expect(() => r.pick([])).toThrow(RangeError);
  });

  it('weighted() follows the weights and never picks a zero weight', () => {
    const r = createPrng(8);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10000; i++) counts[r.weighted(['a', 'b', 'c'] as const, [1, 0, 3])]++;
    expect(counts.b).toBe(0);
    expect(counts.c / counts.a).toBeGreaterThan(2.5);
    expect(counts.c / counts.a).toBeLessThan(3.5);
  });

  it('forks independent, reproducible streams without consuming the parent', () => {
    const parent = createPrng(11);
    const before = draw(createPrng(11), 5);
    const a = draw(parent.fork('products'), 5);
    expect(draw(parent, 5)).toEqual(before);
    expect(draw(createPrng(11).fork('products'), 5)).toEqual(a);
    expect(draw(createPrng(11).fork('orders'), 5)).not.toEqual(a);
    expect(hashSeed('orders')).not.toBe(hashSeed('products'));
  });
});
