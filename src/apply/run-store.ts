import type { MerchantClient } from '../api/merchant-client.js';
import { MbulkError } from '../errors/mbulk-error.js';
import type { Store } from '../schema/index.js';
import type { RunDirectory } from './run-directory.js';

/**
 * The store each client's token belongs to (GET /api/v2/me), with when it was asked: the checks
 * before a write (the store lock, the saved-run checks, then each kind's apply) and a planner that
 * runs just before them share one request.
 */
const storeOfClient = new WeakMap<MerchantClient, { askedAt: number; store: Promise<Store> }>();

/**
 * How old a remembered store a planner may still use. A planner reads the store's settings
 * (currency, tax, country), which its owner can change; a minute covers the CLI's own checks just
 * before it, and a long-lived library client asks again.
 */
export const PLANNER_STORE_MAX_AGE_MS = 60_000;

/**
 * The store the client's token belongs to, asked once per client unless what it knows was asked
 * more than `maxAgeMs` ago (default: kept for good, as a token never moves to another store). A
 * failed ask is not kept.
 */
export function clientStore(
  client: MerchantClient,
  signal?: AbortSignal,
  maxAgeMs = Number.POSITIVE_INFINITY,
): Promise<Store> {
  const known = storeOfClient.get(client);
  if (known !== undefined && Date.now() - known.askedAt <= maxAgeMs) return known.store;
  const asked = { askedAt: Date.now(), store: client.me(signal ? { signal } : {}) };
  storeOfClient.set(client, asked);
  asked.store.catch(() => {
    if (storeOfClient.get(client) === asked) storeOfClient.delete(client);
  });
  return asked.store;
}

/**
 * A run planned for one store, applied with a client whose token belongs to another: refused
 * before anything is written (category `refused`, exit code 3).
 */
export class OtherStoreError extends MbulkError {
  static override readonly errorName: string = 'OtherStoreError';
  constructor(
    readonly runId: string,
    /** The store the run was planned for. */
    readonly plannedStore: string,
    /** The store the client's token belongs to. */
    readonly store: Store,
  ) {
    super(
      'refused',
      `run ${runId} was planned for store ${plannedStore}, but the token belongs to store ${store.id} (${store.name}); nothing was written`,
    );
  }
}

/**
 * Refuses (throws OtherStoreError) unless the client's token belongs to the store the run was
 * planned for; returns that store. Every `apply*Run` calls it before anything else, without its
 * abort signal: an apply's signal stops it between operations (status `interrupted`), it never
 * throws. Runs of older versions that did not record their store are let through.
 */
export async function checkRunStore(
  run: RunDirectory,
  client: MerchantClient,
  signal?: AbortSignal,
): Promise<Store> {
  const store = await clientStore(client, signal);
  const planned = run.meta.store_id;
  if (planned !== undefined && planned !== store.id) throw new OtherStoreError(run.id, planned, store);
  return store;
}
