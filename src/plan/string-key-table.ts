/**
 * A table from strings to values for lookups by strings just made: the SKUs of a sheet's
 * million rows, each a new string from the CSV parser, looked up among a million live SKUs.
 *
 * A `Map` does the same job, but V8 computes a new string's hash for `Map.get` outside the compiled
 * code, and compares a key found under that hash through the runtime too: 1.1–1.2 µs a lookup of a
 * string read from the sheet against ~0.35 µs for the very string the map holds (1,000,002 SKUs of
 * the bench's million-row sheet, `node` 20). Here the hash (FNV-1a over the UTF-16 code units) and
 * the comparison (`===`) are ordinary compiled code, and each slot keeps its key's hash beside the
 * entry number, so that a probe reads a key string only when the hashes match (a probe past another
 * key costs no trip to that key's memory). Open addressing with linear probing, at most half full.
 *
 * Only what an index needs: `get`, `set` (insert or replace) and `size`. No deletion.
 */
export class StringKeyTable<V> {
  /** Two numbers per slot: the key's hash, and its entry's number + 1 (0: an empty slot). */
  private slots: Int32Array;
  /** Mask of a slot number: the slot count (a power of two) - 1. */
  private mask: number;
  /** Key and value of each entry, side by side (one trip to memory for both). */
  private readonly entryData: (string | V)[] = [];

  constructor(expected = 16) {
    const count = slotCountFor(expected);
    this.slots = new Int32Array(count * 2);
    this.mask = count - 1;
  }

  get size(): number {
    return this.entryData.length / 2;
  }

  get(key: string): V | undefined {
    const { slots, mask, entryData } = this;
    const h = hash(key);
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1] as number;
      if (entry === 0) return undefined;
      if (slots[2 * i] === h && entryData[2 * entry - 2] === key) return entryData[2 * entry - 1] as V;
    }
  }

  set(key: string, value: V): void {
    const { slots, mask, entryData } = this;
    const h = hash(key);
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1] as number;
      if (entry === 0) break;
      if (slots[2 * i] === h && entryData[2 * entry - 2] === key) {
        entryData[2 * entry - 1] = value;
        return;
      }
    }
    entryData.push(key, value);
    slots[2 * i] = h;
    slots[2 * i + 1] = this.size;
    if (this.size * 2 > mask + 1) this.grow();
  }

  private grow(): void {
    const count = (this.mask + 1) * 2;
    const slots = new Int32Array(count * 2);
    const mask = count - 1;
    const old = this.slots;
    for (let j = 0; j < old.length; j += 2) {
      const entry = old[j + 1] as number;
      if (entry === 0) continue;
      const h = old[j] as number;
      let i = h & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = h;
      slots[2 * i + 1] = entry;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** Slots for `expected` entries at most half full: a power of two, at least 16. */
function slotCountFor(expected: number): number {
  let count = 16;
  while (count < expected * 2) count *= 2;
  return count;
}

/** FNV-1a (32 bits, as a signed integer) over the string's UTF-16 code units. */
function hash(key: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}
