import type { Page, Sequenced } from '../pagination.js';

/** A stored entity with its creation sequence and its cached JSON (null once it changed). */
export interface Entry<T> extends Sequenced {
  value: T;
  json: string | null;
}

/** The entity's JSON, cached until the entry changes. */
export function entryJson<T>(e: Entry<T>): string {
  if (e.json === null) e.json = JSON.stringify(e.value);
  return e.json;
}

/** A list response body from already serialised items. */
export function listJson(jsons: string[], page: Page<unknown>): string {
  return `{"object":"list","data":[${jsons.join(',')}],"has_more":${page.hasMore},"next_cursor":${
    page.nextCursor === null ? 'null' : JSON.stringify(page.nextCursor)
  }}`;
}
