import { describe, expect, it } from 'vitest';
import { countText } from '../../../src/report/count-text.js';

describe('countText', () => {
  it('writes a count as toLocaleString("en-US") does', () => {
    const values = [
      0, -0, 1, -1, 7, 12, 999, 1000, -1000, 1001, 9999, 10_000, 99_999, 100_000, 100_002, 999_999,
    ];
    values.push(
      1_000_000,
      1_234_567,
      -1_234_567,
      33_334,
      1_000_002,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    );
    for (let n = 1; n < 1e15; n = n * 7 + 3) values.push(n, -n);
    values.push(1.5, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY);
    for (const n of values) expect(countText(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});
