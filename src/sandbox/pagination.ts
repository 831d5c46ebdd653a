import { invalidParam } from './sandbox-error.js';

/** Default and maximum page sizes of every list endpoint (spec, Limits). */
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** An entity kept in creation order; `seq` only grows, so new items always sort last. */
export interface Sequenced {
  seq: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * The cursor is base64url JSON of the last seen sequence number. Paging walks items in ascending
 * `seq`; items created while paging get higher numbers and appear on later pages, so no item is
 * skipped or repeated. Deleted items simply disappear.
 */
export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString('base64url');
}

/** Decodes a cursor or throws a 400 with `param` = `cursor`. */
export function decodeCursor(cursor: string): number {
  try {
    if (!/^[A-Za-z0-9_-]+=*$/.test(cursor)) throw new Error('not base64');
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const s = (value as { s?: unknown } | null)?.s;
    if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) throw new Error('bad cursor');
    return s;
  } catch {
    throw invalidParam('cursor', 'cursor is malformed; pass next_cursor from the previous page');
  }
}

/** Parses `limit` (integer 1..100, default 25) or throws a 400 with `param` = `limit`. */
export function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  if (!/^[0-9]+$/.test(raw)) throw invalidParam('limit', 'limit must be an integer from 1 to 100');
  const n = Number(raw);
  if (n < 1 || n > MAX_LIMIT) throw invalidParam('limit', 'limit must be an integer from 1 to 100');
  return n;
}

/** Items kept sorted by `seq` (appends only at the end), with binary-searched cursor positions. */
export class SeqList<T extends Sequenced> {
  private items: T[] = [];

  get length(): number {
    return this.items.length;
  }

  /** Appends; `item.seq` must be higher than every seq already held. */
  push(item: T): void {
    const last = this.items[this.items.length - 1];
    if (last !== undefined && last.seq >= item.seq) {
      // Out of order (loading persisted state): insert at its place.
      this.items.splice(this.firstAfter(item.seq), 0, item);
      return;
    }
    this.items.push(item);
  }

  /** Appends many at once (a load), sorting once when they are not already in order. */
  pushAll(items: readonly T[]): void {
    if (items.length === 0) return;
    const all = this.items.concat(items);
    for (let i = 1; i < all.length; i++) {
      if ((all[i - 1] as T).seq >= (all[i] as T).seq) {
        all.sort((a, b) => a.seq - b.seq);
        break;
      }
    }
    this.items = all;
  }

  remove(item: T): void {
    const i = this.firstAfter(item.seq - 1);
    if (this.items[i] === item) this.items.splice(i, 1);
  }

  values(): readonly T[] {
    return this.items;
  }

  /** Index of the first item whose seq is greater than `seq`. */
  private firstAfter(seq: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] as T).seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** One page after `cursor` (raw query value or null), keeping only items that pass `filter`. */
  page(cursor: string | null, limit: number, filter?: (item: T) => boolean): Page<T> {
    const after = cursor === null ? -1 : decodeCursor(cursor);
    const out: T[] = [];
    let hasMore = false;
    for (let i = this.firstAfter(after); i < this.items.length; i++) {
      const item = this.items[i] as T;
      if (filter !== undefined && !filter(item)) continue;
      if (out.length === limit) {
        hasMore = true;
        break;
      }
      out.push(item);
    }
    const last = out[out.length - 1];
    return { items: out, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(last.seq) : null };
  }
}
