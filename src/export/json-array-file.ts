import { AtomicFile, writeThenCommit } from '../files/atomic-file.js';

/**
 * Appends `[`, each item's JSON on its own line, `]` (with a `,` between items) to `file`, item by
 * item with backpressure (never one giant string). Returns the count. `onItem` sees each item after
 * it is written.
 */
export async function writeJsonArray<T>(
  file: AtomicFile,
  items: AsyncIterable<T> | Iterable<T>,
  onItem?: (item: T) => void,
): Promise<number> {
  let n = 0;
  await file.write('[');
  for await (const item of items) {
    await file.write(`${n === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`);
    n++;
    onItem?.(item);
  }
  await file.write(n === 0 ? ']' : '\n]');
  return n;
}

/**
 * A whole file holding one JSON array, streamed, that appears under its name only once complete
 * (src/files/atomic-file.ts): a failed export leaves `path` as it was.
 */
export async function writeJsonArrayFile<T>(
  path: string,
  items: AsyncIterable<T> | Iterable<T>,
  onItem?: (item: T) => void,
): Promise<number> {
  const file = new AtomicFile(path);
  return writeThenCommit(file, async () => {
    const n = await writeJsonArray(file, items, onItem);
    await file.write('\n');
    return n;
  });
}
