import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../files/atomic-file.js';

/**
 * The image memory of one store: every source URL a product import sent → the stored URL the
 * service answered with. Planning uses it so that an unchanged sheet never re-uploads an image
 * the service already re-hosted. One JSON file per store, beside the runs root:
 * `<runs root>/../stores/<store id>/images.json`.
 */
export function imageMemoryFile(runsRoot: string, storeId: string): string {
  const safe = storeId.replace(/[^A-Za-z0-9_.-]/g, '_');
  return join(dirname(runsRoot), 'stores', safe, 'images.json');
}

/** Reads an image memory file; a missing or damaged file is an empty memory. */
export function readImageMemory(file: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Map();
  }
  try {
    const parsed = JSON.parse(text) as { images?: unknown };
    const images = parsed.images;
    const memory = new Map<string, string>();
    if (images !== null && typeof images === 'object') {
      for (const [source, stored] of Object.entries(images as Record<string, unknown>)) {
        if (typeof stored === 'string') memory.set(source, stored);
      }
    }
    return memory;
  } catch {
    return new Map();
  }
}

/** Adds source → stored pairs to the memory file (atomically); returns how many were new or changed. */
export function rememberImages(file: string, pairs: Iterable<readonly [string, string]>): number {
  const memory = readImageMemory(file);
  let changed = 0;
  for (const [source, stored] of pairs) {
    if (source === stored || memory.get(source) === stored) continue;
    memory.set(source, stored);
    changed++;
  }
  if (changed === 0) return 0;
  mkdirSync(dirname(file), { recursive: true });
  const images: Record<string, string> = {};
  for (const [k, v] of [...memory].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) images[k] = v;
  writeFileAtomic(file, `${JSON.stringify({ version: 1, images }, null, 2)}\n`);
  return changed;
}
