import { dirname } from 'node:path';
import Papa from 'papaparse';
import { idempotencyKey } from '../api/idempotency-key.js';
import { isIdempotentRequest } from '../api/retry.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { applyRun } from '../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../apply/backup.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import { writeReport } from '../apply/report.js';
import { RunDirectory, isRunLive } from '../apply/run-directory.js';
import { writeFileAtomic } from '../apply/write-file-atomic.js';
import { LiveInventoryIndex } from '../plan/live-inventory-index.js';
import {
  currencyDecimals,
  type Customer,
  type InventoryBatchEntry,
  type Product,
  type Store,
} from '../schema/index.js';
import { formatMoney } from '../sheets/money.js';
import { neutralizeFormula } from '../sheets/neutralize-formula.js';
import { abortFields, type AbortCause, type JobCallbacks } from './job-events.js';
import {
  decideRollback,
  type LeftAlone,
  type LiveState,
  type NotReversible,
  type RestoreEntry,
} from './rollback-plan.js';
import type { RestoreChange } from './rollback-product.js';
import { reconcileProductPatch } from './product-reconcile.js';
import { readRollbackSource } from './rollback-source.js';
import type { DriftedEntity } from './run-kind.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { checkRunStore } from '../apply/run-store.js';

/**
 * Rolls a run back (DESIGN.md safety rule 3): from the run's backup, restores the before-state of
 * every entity it touched, as a NEW run directory of kind `rollback` (plan.json lists what will be
 * restored and what cannot be; applying it is journaled like any import, so a rollback is itself
 * resumable, and it saves its own backup). Stock quantities are set back absolutely; customers and
 * products are PATCHed back (only the fields the run wrote); products the run created are deleted
 * only with `deleteCreated`. Created customers, deleted products, submitted templates and sent
 * messages cannot be undone: they are reported. An entity changed after the run wrote it (drift)
 * makes the plan refused unless `force`.
 */

/** plan.json of a rollback run. Plain JSON. */
export interface RollbackPlanFile {
  kind: 'rollback';
  version: 1;
  source: { id: string; kind: string; status: string; dir: string };
  /** `decimals`: of the store currency, for showing money. */
  store: { id: string; name: string; currency: string; decimals: number };
  options: { deleteCreated: boolean; force: boolean };
  restores: RestoreEntry[];
  notReversible: NotReversible[];
  drifted: DriftedEntity[];
  leftAlone: LeftAlone[];
  counts: Record<string, number>;
  /** Set when the plan is refused (drift without force): nothing may be applied. */
  refusal?: string;
}

/** A refusal or usage problem (category `usage` or `refused`). */
export class RollbackError extends MbulkError {
  static override readonly errorName: string = 'RollbackError';
  constructor(message: string, category: 'usage' | 'refused') {
    super(category, message);
  }
}

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
  if (meta.status === 'applying' && isRunLive(meta)) {
    throw new RollbackError(
      `run ${source.id} is being applied by process ${meta.pid}; wait for it to finish`,
      'refused',
    );
  }
  if (meta.status === 'planned') {
    throw new RollbackError(`run ${source.id} was never applied: there is nothing to roll back`, 'usage');
  }
  const store = await client.me(signal);
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
    live.items = index.byId;
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
  }
  run.writePlan(file);
  writeRollbackReport(run, file);
  return file.refusal ? { run, file, store, refusal: file.refusal } : { run, file, store };
}

const MONEY_FIELDS = new Set(['price', 'original_price', 'cost']);

/** A restore as people read it (money in currency units when `decimals` is given). */
export function describeRestore(r: RestoreEntry, decimals?: number): string[] {
  const field = (c: RestoreChange) => {
    const money = decimals !== undefined && MONEY_FIELDS.has(c.field);
    const value = (v: unknown) => (money && typeof v === 'number' ? formatMoney(v, decimals) : show(v));
    return `${c.field}: ${value(c.now)} → ${value(c.restore)}`;
  };
  switch (r.type) {
    case 'stock':
      return r.items.map((i) => `stock ${i.sku ?? i.itemId}: ${i.current} → ${i.restore}`);
    case 'customer':
      return [`customer ${r.customerId} (${r.label}): ${r.changes.map(field).join('; ')}`];
    case 'product':
      return [
        `product ${r.productId} (${r.label}): ${r.changes.map(field).join('; ')}`,
        ...r.notes.map((n) => `  note: ${n}`),
      ];
    case 'product-delete':
      return [`product ${r.productId} (${r.label}): delete (created by the run)`];
  }
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(blank)';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('|') || '(none)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every restore line (stock batches expanded), for the report and the CLI. */
export function restoreLines(file: RollbackPlanFile): string[] {
  return file.restores.flatMap((r) => describeRestore(r, file.store.decimals));
}

function writeRollbackReport(
  run: RunDirectory,
  file: RollbackPlanFile,
  applied?: RollbackApplySummary,
): void {
  const lines = restoreLines(file);
  writeReport(run.file('report'), {
    title: `Rollback of run ${file.source.id}`,
    runId: run.id,
    facts: [
      ['Source run', `${file.source.id} (${file.source.kind}, ${file.source.status})`],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      ['Products created by the run', file.options.deleteCreated ? 'deleted (--delete-created)' : 'kept'],
      ['Status', run.refresh().status],
      ...(file.refusal ? ([['Refused', file.refusal]] as const) : []),
    ],
    counts: [
      ['stock items to restore', file.counts['stock_items'] ?? 0],
      ['customers to restore', file.counts['customers'] ?? 0],
      ['products to restore', file.counts['products'] ?? 0],
      ['products to delete', file.counts['products_deleted'] ?? 0],
      ['not reversible', file.notReversible.length],
      ['changed since the run (drift)', file.drifted.length],
      ['left alone', file.leftAlone.length],
      ...(applied
        ? ([
            ['restored', applied.restored],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: lines.slice(0, 500),
    totalChanges: lines.length,
    issues: [
      ...file.drifted.slice(0, 300).map((d) => `drift: ${d.type} ${d.id} (${d.label}): ${d.reason}`),
      ...file.notReversible
        .slice(0, 300)
        .map((n) => `not reversible: ${n.type} ${n.id} (${n.label}): ${n.reason}`),
      ...(applied?.failures ?? [])
        .slice(0, 300)
        .map((f) => `failed: ${f.type} ${f.id}: ${f.code}: ${f.message}`),
    ],
    totalIssues: file.drifted.length + file.notReversible.length + (applied?.failures.length ?? 0),
  });
}

// ---------------------------------------------------------------------------------------------
// Apply

interface RollbackOp {
  kind: `restore-${RestoreEntry['type']}`;
  key: string;
  /** False for a product PATCH that recreates variants/options (a replay would create them twice). */
  idempotent: boolean;
  idempotencyKey?: string;
  entry: RestoreEntry;
}

/** What an operation's journal record keeps. Stock: quantities written and failed entries. */
interface RollbackOpResult {
  id?: string;
  updatedAt?: string;
  applied?: Record<string, number>;
  failed?: Record<string, { code: string; message: string }>;
}

export interface ApplyRollbackOptions extends JobCallbacks {
  client: MerchantClient;
  concurrency?: number | undefined;
}

export interface RollbackFailure {
  type: string;
  id: string;
  code: string;
  message: string;
}

export interface RollbackApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  /** Entities restored (stock items count one each; deleted products included). */
  restored: number;
  failed: number;
  /** Write requests sent by this session. */
  requests: number;
  failures: RollbackFailure[];
}

function toOp(run: RunDirectory, entry: RestoreEntry): RollbackOp {
  const idempotent = entry.type === 'product' ? isIdempotentRequest('PATCH', entry.body, undefined) : true;
  const op: RollbackOp = { kind: `restore-${entry.type}`, key: entry.key, idempotent, entry };
  if (entry.type === 'stock') op.idempotencyKey = idempotencyKey(run.id, entry.key, stockEntries(entry));
  return op;
}

function stockEntries(entry: Extract<RestoreEntry, { type: 'stock' }>): InventoryBatchEntry[] {
  return entry.items.map((i) => ({ item_id: i.itemId, quantity: i.restore }));
}

/** Reads a run's plan.json as a rollback plan (throws when it is another kind of run). */
export function readRollbackPlan(run: RunDirectory): RollbackPlanFile {
  const file = run.readPlan() as RollbackPlanFile;
  if (file.kind !== 'rollback') throw new RollbackError(`${run.dir} is not a rollback run`, 'usage');
  return file;
}

/**
 * Applies (or resumes) a planned rollback: every write is absolute (quantities, field values) or a
 * DELETE, journaled and safe to replay, so a resumed rollback never does anything twice. The live
 * state of each entity as planned is saved first (the rollback's own backup.json).
 */
export async function applyRollbackRun(
  run: RunDirectory,
  options: ApplyRollbackOptions,
): Promise<RollbackApplySummary> {
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = readRollbackPlan(run);
  if (file.refusal) throw new RollbackError(file.refusal, 'refused');
  const signal = options.signal ? { signal: options.signal } : {};
  const ops = file.restores.map((e) => toOp(run, e));
  let requests = 0;
  const backup = BackupLog.open(run.file('backupLog'));
  let summary: ExecuteSummary<RollbackOp, RollbackOpResult>;
  try {
    summary = await applyRun<RollbackOp, RollbackOpResult>(run, ops, {
      concurrency: options.concurrency ?? 4,
      ...signal,
      keyOf: (op) => op.key,
      execute: async (op) => {
        const { entry } = op;
        switch (entry.type) {
          case 'stock': {
            backup.record(
              entry.items.map((i) => ({
                type: 'inventory_item',
                id: i.itemId,
                before: { quantity: i.current, sku: i.sku },
              })),
            );
            await backup.flush();
            requests++;
            const res = await client.inventory.batchUpdate(stockEntries(entry), {
              idempotencyKey: op.idempotencyKey,
              chunkSize: entry.items.length,
              // No abort signal on writes: a stop lets those in flight finish and be journaled.
            });
            const result: Required<Pick<RollbackOpResult, 'applied' | 'failed'>> = {
              applied: {},
              failed: {},
            };
            let fatal: unknown;
            for (const r of res.results) {
              if (r.ok) result.applied[r.entry.item_id] = r.item.quantity;
              else {
                const e = r.error as Error & { code?: string; exitCode?: number };
                if (e.exitCode === 4) fatal = e;
                result.failed[r.entry.item_id] = { code: e.code ?? e.name, message: e.message };
              }
            }
            // Unreachable or token rejected: fail the operation (it is retried on resume).
            if (fatal !== undefined && Object.keys(result.applied).length === 0) throw fatal;
            return result;
          }
          case 'customer': {
            const c = entry.current;
            backup.record([
              {
                type: 'customer',
                id: entry.customerId,
                before: { id: c.id, name: c.name, phone: c.phone, email: c.email, updated_at: c.updated_at },
              },
            ]);
            await backup.flush();
            requests++;
            const updated = await client.customers.update(entry.customerId, entry.body);
            return { id: updated.id, updatedAt: updated.updated_at };
          }
          case 'product': {
            backup.record([{ type: 'product', id: entry.productId, before: entry.current }]);
            await backup.flush();
            requests++;
            const p = await client.products.update(entry.productId, entry.body);
            return { id: p.id, updatedAt: p.updated_at };
          }
          case 'product-delete': {
            backup.record([{ type: 'product', id: entry.productId, before: entry.current }]);
            await backup.flush();
            requests++;
            await client.products.delete(entry.productId);
            return { id: entry.productId };
          }
        }
      },
      // A product restore that recreates variants/options and lost its answer: re-read the product
      // and decide. Other kinds are replay-safe; past the idempotency window they stay unknown.
      reconcile: async (op) => {
        const { entry } = op;
        if (entry.type !== 'product') {
          throw new Error(
            `could not tell whether ${op.key} reached the store; check it, it will not be resent`,
          );
        }
        const decision = await reconcileProductPatch(
          client,
          {
            key: entry.key,
            label: entry.label,
            productId: entry.productId,
            expectedUpdatedAt: entry.current.updated_at,
            body: entry.body,
          },
          signal,
        );
        if (decision === 'not_applied') return decision;
        return { done: { id: decision.applied.id, updatedAt: decision.applied.updated_at } };
      },
      onProgress: (p) =>
        options.onProgress?.({
          phase: 'apply',
          done: p.completed,
          total: p.total,
          failed: p.failed,
          rate: p.rate,
          etaSeconds: p.etaSeconds,
        }),
    });
  } finally {
    await backup.flush();
    backup.close();
  }
  finalizeBackup(run.file('backupLog'), run.file('backup'), { runId: run.id });

  const failures: RollbackFailure[] = [];
  const rows: Record<string, string>[] = [];
  let restored = 0;
  for (const o of summary.outcomes) {
    for (const row of outcomeRows(o)) {
      rows.push(row);
      if (row['outcome'] === 'restored' || row['outcome'] === 'deleted') restored++;
      else
        failures.push({
          type: row['type'] ?? '',
          id: row['id'] ?? '',
          code: row['error_code'] ?? '',
          message: row['error_message'] ?? '',
        });
    }
  }
  for (const n of file.notReversible) rows.push(row(n.type, n.id, n.label, 'not_reversible', '', n.reason));
  for (const l of file.leftAlone) rows.push(row(l.type, l.id, l.label, 'left_alone', '', l.reason));
  writeFileAtomic(
    run.file('results'),
    `\uFEFF${Papa.unparse(rows, { columns: ['type', 'id', 'label', 'outcome', 'error_code', 'error_message'] })}\r\n`,
  );
  const result: RollbackApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    restored,
    failed: failures.length,
    requests,
    failures,
  };
  run.update({ counts: { ...run.meta.counts, restored, failed: failures.length, requests } });
  writeRollbackReport(run, file, result);
  return result;
}

function row(type: string, id: string, label: string, outcome: string, code: string, message: string) {
  return {
    type,
    id,
    label: neutralizeFormula(label),
    outcome,
    error_code: code,
    error_message: neutralizeFormula(message),
  };
}

function outcomeRows(o: OperationOutcome<RollbackOp, RollbackOpResult>): Record<string, string>[] {
  const { entry } = o.op;
  const failure = (): [string, string] =>
    o.status === 'failed'
      ? [o.error.code ?? o.error.type ?? 'failed', o.error.message]
      : o.status === 'unknown'
        ? ['outcome_unknown', `${o.error?.message ?? 'no answer'}; resume the rollback to settle it`]
        : ['not_run', 'not applied: the rollback stopped first; resume it with mbulk runs rollback'];
  if (entry.type === 'stock') {
    return entry.items.map((i) => {
      const label = i.sku ?? i.itemId;
      if (o.status === 'done') {
        const f = o.result?.failed?.[i.itemId];
        return f
          ? row('inventory_item', i.itemId, label, 'failed', f.code, f.message)
          : row('inventory_item', i.itemId, label, 'restored', '', '');
      }
      const [code, message] = failure();
      return row('inventory_item', i.itemId, label, 'failed', code, message);
    });
  }
  const type = entry.type === 'customer' ? 'customer' : 'product';
  const id = entry.type === 'customer' ? entry.customerId : entry.productId;
  if (o.status === 'done') {
    return [row(type, id, entry.label, entry.type === 'product-delete' ? 'deleted' : 'restored', '', '')];
  }
  const [code, message] = failure();
  return [row(type, id, entry.label, 'failed', code, message)];
}

export interface RollbackRunOptions extends PlanRollbackOptions {
  concurrency?: number | undefined;
}

/**
 * Plans and applies the rollback of `source` in one go (the library's short form of
 * `mbulk runs rollback RUN --apply --yes`). Throws RollbackError (exit 3) when refused.
 */
export async function rollbackRun(
  source: RunDirectory,
  options: RollbackRunOptions,
): Promise<{ planned: PlannedRollback; applied: RollbackApplySummary }> {
  const planned = await planRollback(source, options);
  if (planned.refusal) throw new RollbackError(planned.refusal, 'refused');
  const applied = await applyRollbackRun(planned.run, options);
  return { planned, applied };
}
