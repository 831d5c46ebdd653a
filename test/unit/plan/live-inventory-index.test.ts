import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LiveInventoryIndex, type LiveInventoryItem } from '../../../src/plan/live-inventory-index.js';
import { TextArena, textHash } from '../../../src/plan/text-arena.js';
import { liveProduct, variant } from './live-fixture.js';

/** Strings of every kind a store holds: ASCII, accents, a lone surrogate, an emoji, blank, near twins. */
const ODD = ['', ' ', 'é', 'e\u0301', '\uD83D\uDE00', '\uD800', 'A', 'a'];

/** The same string, made anew (not the one stored): what a sheet's parser hands the index. */
function fresh(s: string): string {
  return Buffer.from(`${s}|`, 'utf16le').toString('utf16le').slice(0, -1);
}

function items(n: number): LiveInventoryItem[] {
  const out: LiveInventoryItem[] = [];
  for (let i = 0; i < n; i++) {
    const odd = ODD[i % ODD.length] as string;
    out.push({
      itemId: i < ODD.length ? odd : `inv_${i.toString(36)}`,
      sku: i % 11 === 0 ? null : `SKU-${i.toString(36)}-${i % 7 === 0 ? 'ß' : 'x'}${odd}`,
      quantity: [5, 0, -3, 2 ** 40, -(2 ** 31) - 1, 2 ** 31 - 1, 7.5][i % 7] as number,
      productId: `prod_${i >> 2}`,
      variantId: i % 3 === 0 ? null : `var_${i}${odd}`,
      name: `Product ${i >> 2}${odd} / Variant ${i & 3}`,
      enabled: i % 5 !== 0,
      updatedAt: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00.${odd}Z`,
    });
  }
  return out;
}

describe('LiveInventoryIndex', () => {
  it('gives back every item as it was added, by id and by SKU, across many growths', () => {
    const all = items(20_000);
    const index = new LiveInventoryIndex(1);
    for (const i of all) index.add(i);
    expect(index.size).toBe(all.length);
    // Checked in plain code, one expect for all: 200,000 expect calls cost seconds on their own.
    const wrong: string[] = [];
    const check = (holds: boolean, what: string, i: LiveInventoryItem): void => {
      if (!holds) wrong.push(`${what} of item ${JSON.stringify(i.itemId)}`);
    };
    for (const i of all) {
      check(isDeepStrictEqual(index.get(fresh(i.itemId)), i), 'get', i);
      const n = index.findId(fresh(i.itemId));
      check(Object.is(index.quantity(n), i.quantity), 'quantity', i);
      check(index.enabled(n) === i.enabled, 'enabled', i);
      check(index.skuOf(n) === i.sku, 'skuOf', i);
      if (i.sku !== null) {
        check(index.findSku(fresh(i.sku)) === n, 'findSku', i);
        check(index.hasSku(n, fresh(i.sku)), 'hasSku', i);
        check(!index.sharesSku(n), 'sharesSku', i);
      }
      check(!index.hasSku(n, `${i.sku ?? ''}?`), 'hasSku of another SKU', i);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(index.get('inv_absent')).toBeUndefined();
    expect(index.findSku('SKU-absent')).toBe(-1);
    expect(index.findSku('')).toBe(-1);
  });

  it('keeps items whose keys have the same 32-bit hash apart', () => {
    // Two strings of one FNV-1a hash, found by brute force (the birthday bound: ~2^16 tries).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const k = `K${i.toString(36)}`;
      const other = seen.get(textHash(k));
      if (other !== undefined) pair = [other, k];
      else seen.set(textHash(k), k);
    }
    const [a, b] = pair;
    expect(textHash(a)).toBe(textHash(b));
    const index = new LiveInventoryIndex();
    const base = items(1)[0] as LiveInventoryItem;
    index.add({ ...base, itemId: a, sku: b, quantity: 1 });
    index.add({ ...base, itemId: b, sku: a, quantity: 2 });
    expect(index.get(a)?.quantity).toBe(1);
    expect(index.get(b)?.quantity).toBe(2);
    expect(index.quantity(index.findSku(b))).toBe(1);
    expect(index.quantity(index.findSku(a))).toBe(2);
  });

  it('links the items of a shared SKU, in the order they came, and finds an id added again as its last item', () => {
    const index = new LiveInventoryIndex();
    const base = items(1)[0] as LiveInventoryItem;
    index.add({ ...base, itemId: 'i1', sku: 'TWIN', name: 'One' });
    index.add({ ...base, itemId: 'i2', sku: 'SOLO', name: 'Two' });
    index.add({ ...base, itemId: 'i3', sku: 'TWIN', name: 'Three' });
    index.add({ ...base, itemId: 'i4', sku: 'TWIN', name: 'Four' });
    const first = index.findSku('TWIN');
    expect(index.get('i1')).toEqual(index.item(first));
    expect(index.sharesSku(first)).toBe(true);
    expect(index.sameSku(first).map((i) => i.name)).toEqual(['One', 'Three', 'Four']);
    expect(index.sharesSku(index.findSku('SOLO'))).toBe(false);

    index.add({ ...base, itemId: 'i2', sku: 'SOLO', name: 'Two again', quantity: 9 });
    expect(index.size).toBe(4);
    expect(index.get('i2')).toMatchObject({ name: 'Two again', quantity: 9 });
  });

  it('adds items that all share one SKU in linear time, and names them in order', () => {
    // A placeholder SKU on every variant of a big store: walking the chain on each add was quadratic.
    const index = new LiveInventoryIndex();
    const base = items(1)[0] as LiveInventoryItem;
    for (let i = 0; i < 100_000; i++) index.add({ ...base, itemId: `i${i}`, sku: 'N/A', name: `N${i}` });
    const first = index.findSku('N/A');
    expect(index.sharesSku(first)).toBe(true);
    const names = index.sameSku(first).map((i) => i.name);
    expect(names).toHaveLength(100_000);
    expect(names.slice(0, 2)).toEqual(['N0', 'N1']);
    expect(names.at(-1)).toBe('N99999');
  }, 10_000);

  it('takes an unlikely expected size as a guess: not a number, or huge', () => {
    for (const expected of [Infinity, Number.NaN, 1e300, -5, 2 ** 40]) {
      const index = new LiveInventoryIndex(expected);
      index.add(items(1)[0] as LiveInventoryItem);
      expect(index.size).toBe(1);
    }
  });

  it('indexes products: their own item, their variants, and the SKUs without an item', () => {
    const plain = liveProduct('p1', { sku: 'P-1' });
    const withVariants = liveProduct('p2', {
      name: 'Tee',
      inventory: null,
      inventory_enabled: false,
      variants: [
        variant('p2', 'v1', { name: 'Small', sku: 'TEE-S', qty: 4 }),
        variant('p2', 'v2', { name: 'Large', sku: 'TEE-L', inventory: null }),
      ],
    });
    const index = LiveInventoryIndex.fromProducts([plain, withVariants]);
    expect(index.size).toBe(2);
    expect(index.get(plain.inventory?.item_id ?? '')).toEqual({
      itemId: plain.inventory?.item_id,
      sku: 'P-1',
      quantity: plain.inventory?.quantity,
      productId: 'p1',
      variantId: null,
      name: plain.name,
      enabled: plain.inventory_enabled,
      updatedAt: plain.inventory?.updated_at,
    });
    expect(index.item(index.findSku('TEE-S'))).toEqual({
      itemId: 'inv_v1',
      sku: 'TEE-S',
      quantity: 4,
      productId: 'p2',
      variantId: 'v1',
      name: 'Tee / Small',
      enabled: false,
      updatedAt: withVariants.variants[0]?.inventory?.updated_at,
    });
    expect(index.untracked.get('TEE-L')).toBe('Tee / Large');
    expect(index.parents.get(withVariants.sku)).toBe('Tee');
  });

  it('marks items as seen, and forgets them all at once', () => {
    const index = new LiveInventoryIndex();
    for (const i of items(100)) index.add(i);
    const n = index.findId('inv_2r');
    expect(index.seenAt(n)).toBe(0);
    index.markSeen(n, 42);
    expect(index.seenAt(n)).toBe(42);
    expect(index.seenAt(index.findId('inv_2q'))).toBe(0);
    index.resetSeen();
    expect(index.seenAt(n)).toBe(0);
  });
});

describe('TextArena', () => {
  it('gives back strings longer than one read chunk, and compares them by code unit', () => {
    const arena = new TextArena(1);
    const long = `${'é\uD800x'.repeat(5000)}\uDE00`;
    arena.push('ab');
    arena.push(long);
    expect(arena.length).toBe(2 + long.length);
    expect(arena.read(2, long.length)).toBe(long);
    expect(arena.read(0, 2)).toBe('ab');
    expect(arena.equals(2, long.length, fresh(long))).toBe(true);
    expect(arena.equals(2, long.length, `${long.slice(0, -1)}\uDE01`)).toBe(false);
    expect(arena.equals(0, 2, 'a')).toBe(false);
  });
});
