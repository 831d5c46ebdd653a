import { dirname } from 'node:path';
import type { MerchantClient } from '../../api/merchant-client.js';
import { RunDirectory } from '../../apply/run-directory.js';
import { clientStore, PLANNER_STORE_MAX_AGE_MS } from '../../apply/run-store.js';
import { LiveInventoryIndex } from '../../plan/live-inventory-index.js';
import { currencyDecimals, type Customer, type Product, type Store } from '../../schema/index.js';
import type { JobCallbacks } from '../job-events.js';
import { decideRollback, type LiveState } from '../../plan/rollback-plan.js';
import { RollbackError, type RollbackPlanFile } from './rollback-plan-file.js';
import { writeRollbackReport } from './rollback-report.js';
import { readRollbackSource } from './rollback-source.js';

/**
 * Rolls a run back (docs/architecture.md, safety rule 3): from the run's backup, restores the before-state of
 * every entity it touched, as a NEW run directory of kind `rollback` (plan.json lists what will be
 * restored and what cannot be; applying it is journaled like any import, so a rollback is itself
 * resumable, and it saves its own backup). Stock quantities are set back absolutely; customers and
 * products are PATCHed back (only the fields the run wrote); products the run created are deleted
 * only with `deleteCreated`. Created customers, deleted products, submitted templates and sent
 * messages cannot be undone: they are reported. An entity changed after the run wrote it (drift)
 * makes the plan refused unless `force`.
 */

export interface PlanRollbackOptions extends JobCallbacks {
  client: MerchantClient;
  /** Where the rollback run directory goes (default: next to the source run). */
  runsRoot?: string | undefined;
  /** Where the run writes, for people (never the token). */
  target?: string | undefined;
  /** Delete products (and variants, options) the run created. Default false: kept and reported. */
  deleteCreated?: boolean | undefined;
  /** Restore entities changed after the run wrote them. Default false: the plan is refused. */
  force?: boolean | undefined;
  /** Inventory items per batch request (default 100). */
  batchSize?: number | undefined;
}

export interface PlannedRollback {
  run: RunDirectory;
  file: RollbackPlanFile;
  store: Store;
  refusal?: string;
}

/** Reads the source run and the live store, and plans its rollback (dry run: nothing is written). */
export async function planRollback(
  source: RunDirectory,
  options: PlanRollbackOptions,
): Promise<PlannedRollback> {
  const { client } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  const meta = source.refresh();
  if (source.status() === 'applying') {
    throw new RollbackError(
      `run ${source.id} is being applied by process ${meta.pid}; wait for it to finish`,
      'refused',
    );
  }
  if (meta.status === 'planned') {
    throw new RollbackError(`run ${source.id} was never applied: there is nothing to roll back`, 'usage');
  }
  const store = await clientStore(client, options.signal, PLANNER_STORE_MAX_AGE_MS);
  if (meta.store_id !== undefined && meta.store_id !== store.id) {
    throw new RollbackError(
      `run ${source.id} wrote to store ${meta.store_id}, but the token belongs to store ${store.id} (${store.name}); nothing was written`,
      'refused',
    );
  }
  const { backup, writes } = readRollbackSource(source);
  const types = new Set(backup.map((e) => e.type));
  const live: LiveState = {};
  if (types.has('product') || types.has('inventory_item')) {
    const products = new Map<string, Product>();
    const index = new LiveInventoryIndex();
    let n = 0;
    // One plain read: a product changing status mid-read could be missed by both status partitions.
    for await (const p of client.products.list({}, signal)) {
      products.set(p.id, p);
      index.addProduct(p);
      if (++n % 100 === 0) options.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
    }
    live.products = products;
    live.items = index;
  }
  if (types.has('customer')) {
    const customers = new Map<string, Customer>();
    for await (const c of client.customers.list({}, signal)) customers.set(c.id, c);
    live.customers = customers;
  }
  const force = options.force ?? false;
  const deleteCreated = options.deleteCreated ?? false;
  const decided = decideRollback(backup, writes, live, {
    deleteCreated,
    batchSize: options.batchSize ?? 100,
  });
  const run = RunDirectory.create(options.runsRoot ?? dirname(source.dir), {
    kind: 'rollback',
    input: source.id,
    target: options.target ?? meta.target,
    storeId: store.id,
    options: { source: source.id, deleteCreated, force },
    counts: decided.counts,
  });
  const file: RollbackPlanFile = {
    kind: 'rollback',
    version: 1,
    source: { id: source.id, kind: meta.kind, status: meta.status, dir: source.dir },
    store: {
      id: store.id,
      name: store.name,
      currency: store.currency,
      decimals: currencyDecimals(store.currency),
    },
    options: { deleteCreated, force },
    ...decided,
  };
  if (decided.drifted.length > 0 && !force) {
    file.refusal = `${decided.drifted.length} ${decided.drifted.length === 1 ? 'entity' : 'entities'} changed after run ${source.id} wrote ${decided.drifted.length === 1 ? 'it' : 'them'}; rolling back would overwrite those changes (use --force to restore them anyway)`;
    // Only a new plan (--force) lifts it: `runs show` names no apply of this one.
    run.update({ needs: ['plan-again'] });
  }
  run.writePlan(file);
  writeRollbackReport(run, file);
  return file.refusal ? { run, file, store, refusal: file.refusal } : { run, file, store };
}
