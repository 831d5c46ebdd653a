import { describe, expect, it } from 'vitest';
import { StringKeyTable } from '../../../src/plan/string-key-table.js';

/** Keys of every kind a sheet holds: ASCII, accents, a lone surrogate, an emoji, blank, and near twins. */
function keys(n: number): string[] {
  const out = ['', ' ', 'é', 'e\u0301', '\uD83D\uDE00', '\uD800', 'A', 'a'];
  for (let i = 0; out.length < n; i++) out.push(`SKU-${i.toString(36)}-${i % 7 === 0 ? 'ß' : 'x'}`);
  return out;
}

describe('StringKeyTable', () => {
  it('answers like a Map for keys it holds and keys it does not, across many growths', () => {
    const table = new StringKeyTable<number>();
    const map = new Map<string, number>();
    const all = keys(20_000);
    all.forEach((k, i) => {
      if (i % 3 !== 0) {
        table.set(k, i);
        map.set(k, i);
      }
    });
    expect(table.size).toBe(map.size);
    for (const k of all) {
      // A string made anew (not the one stored): what the table is for.
      const fresh = Buffer.from(`${k}|`, 'utf16le').toString('utf16le').slice(0, -1);
      expect(table.get(fresh)).toBe(map.get(k));
    }
    expect(table.get('SKU-absent')).toBeUndefined();
  });

  it('replaces the value of a key set again, the empty string too', () => {
    const table = new StringKeyTable<string>(1);
    table.set('b', '1');
    table.set('', '2');
    table.set('b', '3');
    table.set('', '4');
    expect(table.size).toBe(2);
    expect(table.get('b')).toBe('3');
    expect(table.get('')).toBe('4');
  });

  it('finds every key when all of them share one start slot (probing past full runs)', () => {
    // Keys of the same hash in the table's 16 slots: found by brute force on the table's own hash.
    const table = new StringKeyTable<number>(4);
    const colliding: string[] = [];
    const slotOf = (k: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193);
      return (h >>> 0) & 15;
    };
    for (let i = 0; colliding.length < 7; i++) if (slotOf(`k${i}`) === 3) colliding.push(`k${i}`);
    colliding.forEach((k, i) => table.set(k, i));
    colliding.forEach((k, i) => expect(table.get(k)).toBe(i));
    expect(table.get('k-none')).toBeUndefined();
  });
});
