import { SeqList } from '../pagination.js';
import { entryJson, listJson, type Entry } from './list-json.js';
import type { StoreContext } from './store-context.js';

/**
 * Entities kept by id and in creation order (customers, orders, templates): the storage and
 * paging every such resource shares. The resource tables hold the API's rules.
 */
export class EntryTable<T extends { id: string }> {
  private readonly byId = new Map<string, Entry<T>>();
  private readonly list = new SeqList<Entry<T>>();

  constructor(private readonly ctx: StoreContext) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Entry<T> | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds a loaded entity, with its saved sequence number if there is one. */
  load(value: T, savedSeq: number | undefined): Entry<T> {
    const e: Entry<T> = { seq: this.ctx.loadedSeq(savedSeq), value, json: null };
    this.insert(e);
    return e;
  }

  /** Adds a new entity, last in creation order. */
  add(value: T): Entry<T> {
    const e: Entry<T> = { seq: this.ctx.nextSeq(), value, json: null };
    this.insert(e);
    return e;
  }

  /** Replaces an entity's value (its JSON is rebuilt on next read). */
  replace(e: Entry<T>, value: T): void {
    e.value = value;
    e.json = null;
  }

  /** One page of the list endpoint's JSON body. */
  pageJson(cursor: string | null, limit: number, filter?: (e: Entry<T>) => boolean): string {
    const page = this.list.page(cursor, limit, filter);
    return listJson(page.items.map(entryJson), page);
  }

  /** Every entry in creation order. */
  entries(): readonly Entry<T>[] {
    return this.list.values();
  }

  private insert(e: Entry<T>): void {
    this.byId.set(e.value.id, e);
    this.list.push(e);
  }
}
