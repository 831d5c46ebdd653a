import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * A text file written in chunks with backpressure: JSON exports append item by item instead of
 * building one giant string (V8 strings stop at ~512 MB; memory should not grow with the store).
 */
export class JsonTextFile {
  private readonly stream: WriteStream;
  private buffer = '';
  private failure: Error | null = null;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path);
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  private fail(): never {
    const f = this.failure as Error;
    throw new Error(`cannot write ${this.path}: ${f.message}`, { cause: f });
  }

  /** Appends text; flushes (and waits for the disk) every 64 KiB. */
  async write(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= 64 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.failure) this.fail();
    const chunk = this.buffer;
    this.buffer = '';
    if (chunk !== '' && !this.stream.write(chunk)) await once(this.stream, 'drain');
    if (this.failure) this.fail();
  }

  /** Flushes and closes; throws if anything failed. Call `abort` instead on failure. */
  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    if (!this.stream.closed) await once(this.stream, 'close');
    if (this.failure) this.fail();
  }

  /** Closes without flushing, ignoring errors (the file is incomplete). */
  async abort(): Promise<void> {
    this.buffer = '';
    this.stream.end();
    if (!this.stream.closed) await once(this.stream, 'close').catch(() => undefined);
  }
}

/**
 * Appends `[`, each item's JSON on its own line, `]` (with a `,` between items). Returns the count.
 * `onItem` sees each item after it is written.
 */
export async function writeJsonArray<T>(
  file: JsonTextFile,
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

/** A whole file holding one JSON array, streamed. */
export async function writeJsonArrayFile<T>(
  path: string,
  items: AsyncIterable<T> | Iterable<T>,
  onItem?: (item: T) => void,
): Promise<number> {
  const file = new JsonTextFile(path);
  try {
    const n = await writeJsonArray(file, items, onItem);
    await file.write('\n');
    await file.close();
    return n;
  } catch (error) {
    await file.abort();
    throw error;
  }
}
