/**
 * Strings kept as UTF-16 code units in one growing typed array, each known by where it starts and
 * its length. A million live inventory items hold five or six short strings each: as JS strings
 * that is millions of heap objects, which every full garbage collection marks one by one (a pause
 * of half a second and more at a million items, taken in the middle of a plan); here they are one
 * buffer the collector does not look into. Any string round-trips, lone surrogates included.
 */
export class TextArena {
  private units: Uint16Array;
  private used = 0;

  constructor(expectedUnits = 1024) {
    this.units = new Uint16Array(Math.max(16, expectedUnits));
  }

  /** Code units held. */
  get length(): number {
    return this.used;
  }

  /** Appends `text`; it starts at the `length` read before. */
  push(text: string): void {
    const n = text.length;
    if (this.used + n > this.units.length) this.grow(this.used + n);
    const units = this.units;
    let at = this.used;
    for (let i = 0; i < n; i++) units[at++] = text.charCodeAt(i);
    this.used = at;
  }

  /** Whether the `length` code units at `start` are those of `text`. */
  equals(start: number, length: number, text: string): boolean {
    if (text.length !== length) return false;
    const units = this.units;
    for (let i = 0; i < length; i++) if (units[start + i] !== text.charCodeAt(i)) return false;
    return true;
  }

  /** Whether the `length` code units at `start` are those at `otherStart` in `other`. */
  equalsIn(start: number, length: number, other: TextArena, otherStart: number): boolean {
    const units = this.units;
    const theirs = other.units;
    for (let i = 0; i < length; i++) if (units[start + i] !== theirs[otherStart + i]) return false;
    return true;
  }

  /** The string of the `length` code units at `start`. */
  read(start: number, length: number): string {
    let out = '';
    // fromCharCode takes its units as arguments: a few thousand at a time stays clear of the limit.
    for (let at = start, end = start + length; at < end; at += 4096) {
      out += String.fromCharCode(...this.units.subarray(at, Math.min(end, at + 4096)));
    }
    return out;
  }

  private grow(needed: number): void {
    let size = this.units.length * 2;
    while (size < needed) size *= 2;
    const units = new Uint16Array(size);
    units.set(this.units.subarray(0, this.used));
    this.units = units;
  }
}

/** FNV-1a (32 bits, as a signed integer) over the string's UTF-16 code units. */
export function textHash(text: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}
