import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AtomicFile, writeThenCommit } from '../files/atomic-file.js';
import { StateFileError } from '../errors/state-file-error.js';
import { StoreSnapshot } from '../schema/index.js';
import type { SandboxState, SandboxStore } from './store.js';

/**
 * Writes the state's `chunks` to `path` atomically (src/files/atomic-file.ts), so a crash leaves
 * either the old file or the new one, never half of one.
 */
async function saveState(path: string, chunks: readonly string[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const file = new AtomicFile(path, 1 << 20);
  await writeThenCommit(file, async () => {
    for (const chunk of chunks) await file.write(chunk);
  });
}

/** What to do about a damaged state file (the sandbox's own) or seed (a snapshot the user gave). */
const STATE_REMEDY = 'delete it, or start the sandbox with --reset, to begin again from the seed';
const SEED_REMEDY = 'give a snapshot written by mbulk export snapshot';

/** Reads a state file; null when it does not exist. A damaged one is a StateFileError. */
export async function readStateFile(path: string): Promise<SandboxState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseState(text, path, STATE_REMEDY);
}

/** Parses a state or snapshot file's text (a StateFileError naming the file on anything invalid). */
export function parseState(text: string, source: string, remedy = SEED_REMEDY): SandboxState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(source, `${source}: not valid JSON (${(error as Error).message}); ${remedy}`, {
      cause: error,
    });
  }
  return validateSnapshot(raw, source, remedy);
}

/** Validates a snapshot object; keeps any extra `sandbox` section as is. */
export function validateSnapshot(raw: unknown, source: string, remedy = SEED_REMEDY): SandboxState {
  const r = StoreSnapshot.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new StateFileError(
      source,
      `${source}: not a store snapshot (${where}: ${issue?.message ?? 'invalid'}); ${remedy}`,
    );
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
    this.writing = saveState(this.path, chunks)
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
