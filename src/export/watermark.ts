import { mkdir, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { StateFileError } from '../errors/state-file-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import type { Order } from '../schema/order.js';
import { LedgerSchema } from './accounting-ledger.js';

/**
 * Incremental order exports: "export each new order and each change exactly once".
 *
 * The API has no `updated_after` filter on orders, so every run reads the whole list and selects
 * client-side. An order *version* is (id, change time), the change time being
 * max(updated_at, created_at). A version is exported when its change time is at or after
 * `watermark − overlap` and it is not among the versions already exported inside that window.
 *
 * - `watermark` after a run = max(previous watermark, min(latest exported change time, run
 *   start)). Capping at the run's start matters for long runs: an order changed while the list was
 *   being read may have been passed already; its change time is after the run started, so it is
 *   still ahead of the next run's window.
 * - `recent` keeps the versions exported with change time ≥ new watermark − overlap. The next run
 *   re-reads that window (to catch changes that became visible late, and to absorb a clock skew
 *   of up to `overlap` between this machine and the API) and skips exactly those versions.
 * - An order changed again gets a new change time, so its new version is exported again (as a
 *   change); an unchanged order is never exported twice.
 * - A change that becomes visible more than `overlap` after its timestamp would be missed: keep
 *   the overlap above the API's worst commit delay and clock skew (default 10 minutes).
 *
 * The state is saved only after the export file is complete (see exportOrdersIncremental), so
 * a failed run leaves the previous watermark in place and the next run repeats its window.
 */

export const DEFAULT_EXPORT_STATE_FILE = '.mbulk/exports.json';
export const DEFAULT_OVERLAP_MS = 10 * 60 * 1000;

const VersionSchema = z.object({ id: z.string(), changed_at: z.string() });
/** One feed's entry of the state file (also what a publish marker carries, see feed-publish.ts). */
export const WatermarkEntrySchema = z.object({
  store_id: z.string(),
  destination: z.string(),
  watermark: z.string().nullable(),
  recent: z.array(VersionSchema),
  exported_at: z.string(),
  orders_exported: z.number(),
  /** An accounting feed's ledger (see accounting-ledger.ts): saved with the watermark, in one write. */
  ledger: LedgerSchema.optional(),
});
const StateSchema = z.object({ version: z.literal(1), exports: z.record(z.string(), WatermarkEntrySchema) });

/** What one store + destination remembers between runs. */
export type WatermarkEntry = z.infer<typeof WatermarkEntrySchema>;
/** The whole state file. */
export type ExportState = z.infer<typeof StateSchema>;

/** max(updated_at, created_at) in epoch ms; NaN when neither parses. */
export function orderChangeTime(order: Pick<Order, 'created_at' | 'updated_at'>): number {
  const u = Date.parse(order.updated_at);
  const c = Date.parse(order.created_at);
  if (Number.isNaN(u)) return c;
  if (Number.isNaN(c)) return u;
  return Math.max(u, c);
}

const versionKey = (id: string, ms: number): string => `${id}\u0000${ms}`;

/** Decides, order by order, what an incremental run exports, and computes the next entry. */
export interface IncrementalSelector {
  /** True when this order version is new to the destination. */
  accept(order: Pick<Order, 'id' | 'created_at' | 'updated_at'>): boolean;
  /** Call for every order actually written. */
  record(order: Pick<Order, 'id' | 'created_at' | 'updated_at'>): void;
  /** The entry to save once the export has completed. */
  next(): WatermarkEntry;
}

export interface IncrementalSelectorOptions {
  storeId: string;
  destination: string;
  /** Re-read window before the watermark. Default DEFAULT_OVERLAP_MS (10 minutes). */
  overlapMs?: number;
  /** When this run started reading (caps the new watermark). Default: now. */
  runStartedAt?: Date;
}

/**
 * A selector for one run. `previous` null (first run, or `--full`) accepts every order.
 */
export function createIncrementalSelector(
  previous: WatermarkEntry | null,
  options: IncrementalSelectorOptions,
): IncrementalSelector {
  const overlap = options.overlapMs ?? DEFAULT_OVERLAP_MS;
  const runStart = (options.runStartedAt ?? new Date()).getTime();
  const prevW = previous?.watermark ? Date.parse(previous.watermark) : Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  for (const v of previous?.recent ?? []) seen.add(versionKey(v.id, Date.parse(v.changed_at)));
  const exported = new Map<string, { id: string; ms: number }>();
  let maxExported = Number.NEGATIVE_INFINITY;
  let count = 0;
  let pruneAt = 1024;

  const watermarkNow = (): number => Math.max(prevW, Math.min(maxExported, runStart));
  const prune = (): void => {
    const threshold = watermarkNow() - overlap;
    for (const [k, v] of exported) if (v.ms < threshold) exported.delete(k);
    pruneAt = Math.max(1024, exported.size * 2);
  };

  return {
    accept(order) {
      const ms = orderChangeTime(order);
      if (Number.isNaN(ms)) return previous === null; // unreadable dates: only a full export takes it
      if (previous === null) return true;
      return ms >= prevW - overlap && !seen.has(versionKey(order.id, ms));
    },
    record(order) {
      const ms = orderChangeTime(order);
      count++;
      if (Number.isNaN(ms)) return;
      exported.set(versionKey(order.id, ms), { id: order.id, ms });
      if (ms > maxExported) maxExported = ms;
      if (exported.size >= pruneAt) prune();
    },
    next() {
      const w = watermarkNow();
      const threshold = w - overlap;
      const recent = new Map<string, { id: string; changed_at: string }>();
      for (const v of previous?.recent ?? []) {
        const ms = Date.parse(v.changed_at);
        if (ms >= threshold)
          recent.set(versionKey(v.id, ms), { id: v.id, changed_at: new Date(ms).toISOString() });
      }
      for (const [k, v] of exported) {
        if (v.ms >= threshold) recent.set(k, { id: v.id, changed_at: new Date(v.ms).toISOString() });
      }
      return {
        store_id: options.storeId,
        destination: resolve(options.destination),
        watermark: Number.isFinite(w) ? new Date(w).toISOString() : null,
        recent: [...recent.values()],
        exported_at: new Date().toISOString(),
        orders_exported: count,
      };
    },
  };
}

/**
 * Reads the state file; a missing file is an empty state. A corrupt file is a StateFileError (exit 2;
 * never reset silently: that would re-export everything, and re-invoice a feed's orders).
 */
export async function loadExportState(file: string): Promise<ExportState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, exports: {} };
    throw err;
  }
  const damaged = (why: string, cause?: unknown): StateFileError =>
    new StateFileError(
      file,
      `${file}: not a valid export state file (${why}); fix it, or delete it to start every feed again from its first order`,
      { cause },
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw damaged((err as Error).message, err);
  }
  const parsed = StateSchema.safeParse(json);
  if (!parsed.success) throw damaged(parsed.error.message);
  return parsed.data;
}

/**
 * Writes the state atomically (src/files/atomic-file.ts: a flushed temporary sibling renamed over
 * the file): a run killed while saving leaves the previous watermark and ledger, never half of each.
 */
export async function saveExportState(file: string, state: ExportState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(state, null, 1)}\n`);
}

/** The state with one entry added or replaced (pure). */
export function withWatermarkEntry(state: ExportState, key: string, entry: WatermarkEntry): ExportState {
  return { version: 1, exports: { ...state.exports, [key]: entry } };
}
