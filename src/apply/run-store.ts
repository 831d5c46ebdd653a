import type { MerchantClient } from '../api/merchant-client.js';
import { MbulkError } from '../errors/mbulk-error.js';
import type { Store } from '../schema/index.js';
import type { RunDirectory } from './run-directory.js';

/**
 * The store each client's token belongs to (GET /api/v2/me), asked once per client: the checks
 * before a write (the saved-run checks, then each kind's apply) share one request.
 */
const storeOfClient = new WeakMap<MerchantClient, Promise<Store>>();

/** The store the client's token belongs to, asked once per client (a failed ask is not kept). */
export function clientStore(client: MerchantClient, signal?: AbortSignal): Promise<Store> {
  let known = storeOfClient.get(client);
  if (known === undefined) {
    known = client.me(signal ? { signal } : {});
    storeOfClient.set(client, known);
    known.catch(() => {
      if (storeOfClient.get(client) === known) storeOfClient.delete(client);
    });
  }
  return known;
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
