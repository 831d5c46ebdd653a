import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parseLimit, SeqList } from '../../../src/sandbox/pagination.js';
import { SandboxError } from '../../../src/sandbox/sandbox-error.js';

describe('cursor and limit', () => {
  it('round-trips cursors and rejects garbage with param cursor', () => {
    expect(decodeCursor(encodeCursor(123))).toBe(123);
    for (const bad of [
      '',
      '!!',
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('{"s":1.5}').toString('base64url'),
    ]) {
      const err = (() => {
        try {
          decodeCursor(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as SandboxError).param).toBe('cursor');
    }
  });
  it('parses limit 1..100 with default 25', () => {
    expect(parseLimit(null)).toBe(25);
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('100')).toBe(100);
    for (const bad of ['0', '101', 'x', '2e1']) expect(() => parseLimit(bad)).toThrow(SandboxError);
  });
});

describe('SeqList', () => {
  it('pages in seq order with a filter and survives removals', () => {
    const list = new SeqList<{ seq: number; even: boolean }>();
    const items = Array.from({ length: 10 }, (_, i) => ({ seq: i + 1, even: (i + 1) % 2 === 0 }));
    for (const item of items) list.push(item);
    const p1 = list.page(null, 3, (x) => x.even);
    expect(p1.items.map((x) => x.seq)).toEqual([2, 4, 6]);
    expect(p1.hasMore).toBe(true);
    list.remove(items[5] as { seq: number; even: boolean }); // seq 6, the cursor's anchor
    const p2 = list.page(p1.nextCursor, 3, (x) => x.even);
    expect(p2.items.map((x) => x.seq)).toEqual([8, 10]);
    expect(p2).toMatchObject({ hasMore: false, nextCursor: null });
    list.push({ seq: 0, even: true }); // out of order: inserted at its place
    expect(list.values()[0]?.seq).toBe(0);
  });
});
