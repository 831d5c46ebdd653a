import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreSnapshot } from '../schema/index.js';
import type { SandboxState, SandboxStore } from './store.js';

/**
 * Writes `chunks` to `path` atomically: a temp file in the same folder, fsync, then rename, so a
 * crash leaves either the old file or the new one, never half of one.
 */
export async function writeFileAtomic(path: string, chunks: readonly string[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    let buffer: string[] = [];
    let size = 0;
    for (const chunk of chunks) {
      buffer.push(chunk);
      size += chunk.length;
      if (size >= 1 << 20) {
        await handle.write(buffer.join(''));
        buffer = [];
        size = 0;
      }
    }
    if (buffer.length > 0) await handle.write(buffer.join(''));
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(tmp, path);
}

/** Reads a state file; null when it does not exist. */
export async function readStateFile(path: string): Promise<SandboxState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseState(text, path);
}

/** Parses a state or snapshot file's text (throws a readable Error on anything invalid). */
export function parseState(text: string, source: string): SandboxState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
  return validateSnapshot(raw, source) as SandboxState;
}

/** Validates a snapshot object; keeps any extra `sandbox` section as is. */
export function validateSnapshot(raw: unknown, source: string): SandboxState {
  const r = StoreSnapshot.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new Error(`${source}: not a store snapshot (${where}: ${issue?.message ?? 'invalid'})`);
  }
  const extras = (raw as { sandbox?: SandboxState['sandbox'] }).sandbox;
  return extras === undefined ? r.data : { ...r.data, sandbox: extras };
}

/**
 * Saves the store after changes: debounced (`delayMs`, default 50), one write at a time, and a
 * final write on flush(). The state is captured synchronously at write time, so each file is
 * one consistent moment.
 */
export class StateSaver {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  private writing: Promise<void> | null = null;
  private lastWriteMs = 0;
  lastError: Error | null = null;

  constructor(
    private readonly store: SandboxStore,
    private readonly path: string,
    private readonly delayMs = 50,
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer !== null || this.writing !== null) return;
    // Big stores take a while to write: wait at least twice the last write's duration, so a
    // busy sandbox spends most of its time serving rather than saving.
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.save();
      },
      Math.max(this.delayMs, 2 * this.lastWriteMs),
    );
    this.timer.unref();
  }

  private async save(): Promise<void> {
    if (this.writing !== null) return this.writing;
    this.dirty = false;
    const started = performance.now();
    const chunks = this.store.stateChunks();
    this.writing = writeFileAtomic(this.path, chunks)
      .then(() => {
        this.lastError = null;
        this.lastWriteMs = performance.now() - started;
      })
      .catch((error: unknown) => {
        this.lastError = error as Error;
      })
      .finally(() => {
        this.writing = null;
        if (this.dirty) this.schedule();
      });
    return this.writing;
  }

  /** Writes now if anything changed since the last write (and waits for it). */
  async flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.writing !== null) await this.writing;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.dirty) await this.save();
    if (this.lastError !== null) throw this.lastError;
  }
}
