import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { AtomicFileSync } from '../files/atomic-file.js';
import { StateFileError } from '../errors/state-file-error.js';
import { StoreSnapshot } from '../schema/index.js';
import {
  JsonLimitError,
  JsonStreamError,
  readJsonObject,
  type JsonObjectLimits,
} from './json-object-reader.js';
import { SandboxExtrasSchema } from './sandbox-extras-schema.js';
import type { SandboxState, SandboxStore } from './store.js';
import type { ProductLoad } from './tables/product-load.js';

/**
 * Writes the store's state to `path` atomically (src/files/atomic-file.ts), so a crash leaves
 * either the old file or the new one, never half of one. Streamed: the state is made piece by
 * piece (SandboxStore.writeState) and written a megabyte at a time, all synchronously, so the file
 * is one consistent moment and never more than a megabyte of it is in memory (a store of 330,000
 * products is an 861 MiB file; holding its pieces took the save's peak to 3.6 GB).
 */
function saveState(path: string, store: SandboxStore): void {
  mkdirSync(dirname(path), { recursive: true });
  const file = new AtomicFileSync(path);
  try {
    store.writeStateInBlocks((block) => file.write(block));
    file.commit();
  } catch (error) {
    file.discard();
    throw error;
  }
}

/** What to do about a damaged state file (the sandbox's own) or seed (a snapshot the user gave). */
const STATE_REMEDY = 'delete it, or start the sandbox with --reset, to begin again from the seed';
const SEED_REMEDY = 'give a snapshot written by mbulk export snapshot';

/**
 * Reads a state file; null when it does not exist. A damaged one is a StateFileError. With
 * `products`, its products go there as they are read (and `products` of the state is empty).
 */
export async function readStateFile(path: string, products?: ProductLoad): Promise<SandboxState | null> {
  try {
    return await readSnapshotFile(path, STATE_REMEDY, products);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The snapshot's lists, read and validated one entity at a time. */
const LISTS = ['products', 'customers', 'orders', 'templates'] as const;
type ListKey = (typeof LISTS)[number];
const ENTITY: { [K in ListKey]: z.ZodType<StoreSnapshot[K][number]> } = {
  products: StoreSnapshot.shape.products.element,
  customers: StoreSnapshot.shape.customers.element,
  orders: StoreSnapshot.shape.orders.element,
  templates: StoreSnapshot.shape.templates.element,
};
/** Every top-level member a snapshot or state file may have. */
const MEMBERS = new Set([...Object.keys(StoreSnapshot.shape), 'sandbox']);
const MiB = 1 << 20;
/**
 * What the reader holds at most, so a damaged or hostile file fails within a second and a few
 * hundred megabytes instead of being buffered and parsed whole: one product, customer, order or
 * template up to 8 MiB (a generated one is under 5 KiB), the `sandbox` member up to 64 MiB (it
 * grows with the store: ~22 bytes per inventory item, ~35 MiB for a million items), any other
 * member 1 MiB; nesting to 12 levels (the state file the sandbox writes needs 8).
 */
export const SNAPSHOT_LIMITS: JsonObjectLimits = {
  maxDepth: 12,
  maxBytes: (key) =>
    (LISTS as readonly string[]).includes(key) ? 8 * MiB : key === 'sandbox' ? 64 * MiB : MiB,
  keys: MEMBERS,
};

/** The snapshot with its lists unchecked (their entities were checked as they came). */
const SnapshotHead = StoreSnapshot.extend({
  products: z.array(z.unknown()),
  customers: z.array(z.unknown()),
  orders: z.array(z.unknown()),
  templates: z.array(z.unknown()),
});

/**
 * Reads a state or snapshot file as a stream (a store of 330k products is a file of about a
 * gigabyte: more than one string can hold): each product, customer, order and template is parsed
 * and validated on its own as its bytes arrive. A StateFileError naming the file (and the entity)
 * on anything invalid; a missing file rejects with the fs error (ENOENT). With `products`, each
 * product goes there as soon as it is valid (its compact form: see ProductLoad) and the state's
 * `products` is empty, so a big catalog is never held as objects.
 */
export async function readSnapshotFile(
  path: string,
  remedy = SEED_REMEDY,
  products?: ProductLoad,
): Promise<SandboxState> {
  const head: Record<string, unknown> = {};
  const offsets: Record<string, number> = {};
  const lists: { [K in ListKey]?: StoreSnapshot[K][number][] } = {};
  const isList = (key: string): key is ListKey => (LISTS as readonly string[]).includes(key);
  try {
    await readJsonObject(
      path,
      new Set(LISTS),
      {
        arrayStart: (key) => {
          if (isList(key)) lists[key] = [];
        },
        element: (key, value, index, at) => {
          if (!isList(key)) return;
          const r = ENTITY[key].safeParse(value);
          if (!r.success)
            throw notASnapshot(path, [key, index, ...(r.error.issues[0]?.path ?? [])], r.error, remedy, at);
          if (products !== undefined && key === 'products')
            products.add(r.data as StoreSnapshot['products'][number]);
          else (lists[key] as unknown[]).push(r.data);
        },
        member: (key, value, at) => {
          head[key] = value;
          offsets[key] = at;
        },
      },
      SNAPSHOT_LIMITS,
    );
  } catch (error) {
    if (!(error instanceof JsonStreamError)) throw error;
    const what = error instanceof JsonLimitError ? 'not a store snapshot' : 'not valid JSON';
    throw new StateFileError(path, `${path}: ${what} (${error.message}); ${remedy}`, { cause: error });
  }
  for (const key of LISTS) if (lists[key] !== undefined) head[key] = lists[key];
  const r = SnapshotHead.safeParse(head);
  if (!r.success) {
    const where = r.error.issues[0]?.path ?? [];
    throw notASnapshot(path, where, r.error, remedy, offsets[String(where[0])]);
  }
  const state = { ...r.data, ...lists } as SandboxState;
  if (head['sandbox'] === undefined) return state;
  const extras = SandboxExtrasSchema.safeParse(head['sandbox']);
  if (!extras.success)
    throw notASnapshot(
      path,
      ['sandbox', ...issuePath(extras.error)],
      extras.error,
      remedy,
      offsets['sandbox'],
    );
  return { ...state, sandbox: extras.data };
}

/** The first issue's path, down to the unknown key for an unrecognized one. */
function issuePath(error: z.ZodError): PropertyKey[] {
  const issue = error.issues[0];
  if (issue === undefined) return [];
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined)
    return [...issue.path, issue.keys[0]];
  return [...issue.path];
}

function notASnapshot(
  source: string,
  path: readonly PropertyKey[],
  error: z.ZodError,
  remedy: string,
  at?: number,
): StateFileError {
  const where = path.map(String).join('.');
  const byte = at === undefined ? '' : ` at byte ${at}`;
  return new StateFileError(
    source,
    `${source}: not a store snapshot (${where}: ${error.issues[0]?.message ?? 'invalid'}${byte}); ${remedy}`,
  );
}

/** Validates a snapshot object; keeps any extra `sandbox` section as is. */
export function validateSnapshot(raw: unknown, source: string, remedy = SEED_REMEDY): SandboxState {
  const r = StoreSnapshot.safeParse(raw);
  if (!r.success) throw notASnapshot(source, r.error.issues[0]?.path ?? [], r.error, remedy);
  const extras = (raw as { sandbox?: unknown }).sandbox;
  if (extras === undefined) return r.data;
  const e = SandboxExtrasSchema.safeParse(extras);
  if (!e.success) throw notASnapshot(source, ['sandbox', ...issuePath(e.error)], e.error, remedy);
  return { ...r.data, sandbox: e.data };
}

/**
 * Saves the store after changes: debounced (`delayMs`, default 50), and a final write on flush().
 * Each save is synchronous (see saveState), so each file is one consistent moment; a big store
 * waits at least twice its last save's duration between saves, so a busy sandbox spends most of
 * its time serving rather than saving.
 */
export class StateSaver {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  private lastWriteMs = 0;
  lastError: Error | null = null;

  constructor(
    private readonly store: SandboxStore,
    private readonly path: string,
    private readonly delayMs = 50,
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer !== null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.save();
      },
      Math.max(this.delayMs, 2 * this.lastWriteMs),
    );
    this.timer.unref();
  }

  private save(): void {
    this.dirty = false;
    const started = performance.now();
    try {
      saveState(this.path, this.store);
      this.lastError = null;
      this.lastWriteMs = performance.now() - started;
    } catch (error) {
      this.lastError = error as Error;
    }
  }

  /** Writes now if anything changed since the last write. */
  async flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.dirty) this.save();
    if (this.lastError !== null) throw this.lastError;
  }
}
