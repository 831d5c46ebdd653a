import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../api/errors.js';
import { idempotencyKey } from '../api/idempotency-key.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { applyRun } from '../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../apply/backup.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import type { OperationState } from '../apply/journal.js';
import { writeReport } from '../apply/report.js';
import { stockReview } from '../report/stock-review.js';
import { type RowFilesSummary, type RowResult } from '../apply/results-file.js';
import { RunDirectory } from '../apply/run-directory.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import { resolveStockColumns } from '../mapping/stock-sheet.js';
import {
  StockPlanner,
  checkMaxChanges,
  parseMaxChanges,
  type StockChange,
  type StockPlan,
} from '../plan/stock-plan.js';
import { InventoryItem, type InventoryBatchEntry, type Store } from '../schema/index.js';
import { readSheet, type ReadSheetOptions } from '../sheets/read-sheet.js';
import { abortFields, fileWarning, type AbortCause, type JobCallbacks } from './job-events.js';
import { SheetHeaderError } from './sheet-header-error.js';
import { refuseEmptySheet } from './empty-sheet.js';
import { readItemQuantity, readLiveInventory, sharedInventoryReader } from './live-inventory.js';
import { inputLabel, keepRunInput, writeInputResults, type RunInput } from './run-input.js';
import { prependAll } from '../plan/append-all.js';
import { UsageError } from '../errors/usage-error.js';
import { RefusedError } from '../errors/refused-error.js';
import { checkRunStore } from '../apply/run-store.js';

/** plan.json of a stock run. Plain JSON. */
export interface StockPlanFile {
  kind: 'stock';
  version: 1;
  store: { id: string; name: string; currency: string };
  input: RunInput;
  batchSize: number;
  liveItems: number;
  plan: StockPlan;
  /** Set when a guardrail (--max-changes) refused the plan: it is never applied, not even by `mbulk apply`. */
  refusal?: string;
}

export interface PlanStockOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  preserveSales?: boolean;
  /** Entries per batch request (default 100). */
  batchSize?: number;
  /** `N` or `P%`: refuse a plan that changes more items. */
  maxChanges?: string | undefined;
  /** Plan a sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean | undefined;
}

export interface PlannedStockRun {
  run: RunDirectory;
  file: StockPlanFile;
  store: Store;
  /** Set when a guardrail refuses the plan (exit 3); nothing may be applied. */
  refusal?: string;
}

/** Reads the sheet, the live inventory, and plans (dry run): only items whose quantity changes. */
export async function planStockImport(options: PlanStockOptions): Promise<PlannedStockRun> {
  const { client } = options;
  const limit = options.maxChanges === undefined ? undefined : parseMaxChanges(options.maxChanges);
  if (options.maxChanges !== undefined && limit === undefined) {
    throw new UsageError(
      `--max-changes must be a count (50) or a percentage (10%), not "${options.maxChanges}"`,
      'max-changes',
    );
  }
  const store = await client.me(options.signal ? { signal: options.signal } : {});
  const reader = readSheet(options.file, options.read);
  const info = await reader.open();
  const { columns, issues: headerIssues } = resolveStockColumns(info.sheet, info.columns);
  const fatal = headerIssues.filter((i) => i.severity === 'error');
  if (fatal.length > 0) {
    await reader.close();
    throw new SheetHeaderError(`${options.file}: ${fatal.map((i) => i.message).join('; ')}`, fatal);
  }
  const index = await readLiveInventory(client, options);
  const planner = new StockPlanner(index, columns, { preserveSales: options.preserveSales ?? false });
  let rows = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) planner.add(row);
    rows += batch.length;
    options.onProgress?.({ phase: 'read', done: rows });
  }
  const plan = planner.finish();
  for (const w of reader.warnings) options.onWarning?.(fileWarning(options.file, w.message));
  refuseEmptySheet(options.file, rows, options.allowEmpty);
  prependAll(plan.issues, headerIssues);

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'stock',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: {
      preserveSales: plan.options.preserveSales,
      batchSize: options.batchSize ?? 100,
      ...(options.maxChanges ? { maxChanges: options.maxChanges } : {}),
      ...(options.allowEmpty ? { allowEmpty: true } : {}),
    },
    counts: stockCounts(plan),
  });
  const file: StockPlanFile = {
    kind: 'stock',
    version: 1,
    store: { id: store.id, name: store.name, currency: store.currency },
    input: keepRunInput(run, options.file, 'stock', info.format === 'xlsx' ? info.sheet : undefined),
    batchSize: Math.max(1, options.batchSize ?? 100),
    liveItems: index.size,
    plan,
  };
  const refusal = limit ? checkMaxChanges(plan.changes.length, index.size, limit) : undefined;
  if (refusal) file.refusal = refusal;
  run.writePlan(file);
  writeStockReport(run, file);
  return refusal ? { run, file, store, refusal } : { run, file, store };
}

export function stockCounts(plan: StockPlan): Record<string, number> {
  const invalidRows = new Set(plan.issues.filter((i) => i.severity === 'error').map((i) => i.rowNumber));
  return {
    rows: plan.rows,
    change: plan.changes.length,
    unchanged: plan.unchanged,
    skipped: plan.skipped.length,
    invalid: invalidRows.size,
  };
}

/** A change as people read it: `TEE-BLK-M (Tee / Black M): 5 → 8`. */
export function describeStockChange(c: StockChange): string {
  const how = c.mode === 'delta' ? ` (delta ${c.value > 0 ? '+' : ''}${c.value})` : '';
  return `row ${c.rowNumber}: ${c.sku ?? c.itemId} (${c.name}): ${c.before} → ${c.after}${how}`;
}

function writeStockReport(run: RunDirectory, file: StockPlanFile, applied?: StockApplySummary): void {
  const counts = stockCounts(file.plan);
  writeReport(run.file('report'), {
    title: 'Import stock',
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      [
        'Mode',
        file.plan.options.preserveSales
          ? 'deltas from the planned quantities (--preserve-sales)'
          : 'absolute quantities',
      ],
      ['Status', run.refresh().status],
      ...(file.refusal ? ([['Refused', file.refusal]] as const) : []),
    ],
    counts: [
      ['rows', counts['rows'] ?? 0],
      ['change', counts['change'] ?? 0],
      ['unchanged', counts['unchanged'] ?? 0],
      ['skipped', counts['skipped'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['applied', applied.applied],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: file.plan.changes.slice(0, 500).map(describeStockChange),
    totalChanges: file.plan.changes.length,
    issues: [
      ...file.plan.issues.slice(0, 500).map((i) => `${i.severity}: ${formatRowIssue(i)}`),
      ...file.plan.skipped.slice(0, 100).map((s) => `skipped: ${s.sheet} row ${s.rowNumber}: ${s.reason}`),
    ],
    totalIssues: file.plan.issues.length + file.plan.skipped.length,
    review: stockReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Apply

type StockOp =
  | { kind: 'stock-batch'; key: string; idempotent: true; idempotencyKey: string; changes: StockChange[] }
  | { kind: 'stock-item'; key: string; idempotent: boolean; change: StockChange };

interface EntryFailure {
  code: string;
  message: string;
  requestId?: string | undefined;
}
/** What an operation's journal record keeps: small JSON. */
interface StockOpResult {
  applied: Record<string, number>;
  failed: Record<string, EntryFailure>;
}

export interface ApplyStockOptions extends JobCallbacks {
  client: MerchantClient;
  concurrency?: number;
}

export interface StockApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  mode: 'batch' | 'per-item';
  applied: number;
  failed: number;
  unknown: number;
  /** Planned changes not tried because the run stopped first (resume the run to apply them). */
  notRun: number;
  /** Write requests made by this session (batch POSTs or PATCHes). */
  requests: number;
  rows: RowFilesSummary;
  failedRows: { sheet: string; row: number; code: string; message: string }[];
}

const BatchResponse = z.array(InventoryItem);

function entryOf(c: StockChange): InventoryBatchEntry {
  return c.mode === 'delta'
    ? { item_id: c.itemId, delta_quantity: c.value }
    : { item_id: c.itemId, quantity: c.value };
}

function failureOf(error: unknown): EntryFailure {
  const e = error as { code?: string; message?: string; requestId?: string; name?: string };
  return { code: e.code ?? e.name ?? 'error', message: e.message ?? String(error), requestId: e.requestId };
}

/** A 404 that names no parameter is the batch route itself missing (an unknown item names `<n>.item_id`). */
function isRouteMissing(error: unknown): boolean {
  return error instanceof NotFoundError && error.param === undefined;
}

function buildOps(run: RunDirectory, file: StockPlanFile, mode: 'batch' | 'per-item'): StockOp[] {
  const changes = file.plan.changes;
  const ops: StockOp[] = [];
  if (mode === 'per-item') {
    for (const change of changes) {
      ops.push({
        kind: 'stock-item',
        key: `stock-item:${change.itemId}`,
        idempotent: change.mode === 'quantity',
        change,
      });
    }
    return ops;
  }
  for (let i = 0, n = 0; i < changes.length; i += file.batchSize, n++) {
    const chunk = changes.slice(i, i + file.batchSize);
    const key = `stock-batch:${n}`;
    ops.push({
      kind: 'stock-batch',
      key,
      idempotent: true,
      idempotencyKey: idempotencyKey(run.id, key, chunk.map(entryOf)),
      changes: chunk,
    });
  }
  return ops;
}

/**
 * Applies (or resumes) a planned stock run: batches of `batchSize` through the batch route, each
 * with a deterministic Idempotency-Key, so a replay after a crash is answered from the service's
 * memory instead of being applied twice; or, where the route is missing, one PATCH per item, where
 * a delta whose outcome is unknown is settled by re-reading the item, never resent blindly.
 */
export async function applyStockRun(
  run: RunDirectory,
  options: ApplyStockOptions,
): Promise<StockApplySummary> {
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = run.readPlan() as StockPlanFile;
  // A refused plan stays refused: `mbulk apply RUN` must not bypass --max-changes.
  if (file.refusal) throw new RefusedError(`refused: ${file.refusal}`);
  const changes = file.plan.changes;
  const knownMode = run.meta.options['inventoryMode'];
  let mode: 'batch' | 'per-item' = knownMode === 'per-item' ? 'per-item' : 'batch';

  let requests = 0;
  const backup = BackupLog.open(run.file('backupLog'));
  const sendBatch = async (op: Extract<StockOp, { kind: 'stock-batch' }>): Promise<StockOpResult> => {
    const result: StockOpResult = { applied: {}, failed: {} };
    let pending = op.changes;
    // A 400 naming one entry (`3.quantity`) fails that entry; the rest is resent as a new batch
    // (a new body, so a new key derived from the old one: a replay takes the same path).
    for (let attempt = 0; pending.length > 0; attempt++) {
      const body = pending.map(entryOf);
      const key = attempt === 0 ? op.idempotencyKey : idempotencyKey(run.id, `${op.key}:${attempt}`, body);
      try {
        requests++;
        const items = await client.request({
          method: 'POST',
          path: client.paths.batchUpdate,
          body,
          schema: BatchResponse,
          idempotencyKey: key,
          // No abort signal on writes: a stop lets the requests in flight finish (the executor
          // takes no new ones), so their outcome is known instead of cut off mid-air.
        });
        const byId = new Map(items.map((item) => [item.item_id, item.quantity]));
        for (const c of pending) result.applied[c.itemId] = byId.get(c.itemId) ?? c.after;
        return result;
      } catch (error) {
        const index = error instanceof InvalidRequestError ? /^(\d+)\./.exec(error.param ?? '') : null;
        const bad = index ? pending[Number(index[1])] : undefined;
        if (!bad) throw error;
        result.failed[bad.itemId] = failureOf(error);
        pending = pending.filter((c) => c !== bad);
      }
    }
    return result;
  };
  const sendItem = async (op: Extract<StockOp, { kind: 'stock-item' }>): Promise<StockOpResult> => {
    const { change } = op;
    const body = change.mode === 'delta' ? { delta_quantity: change.value } : { quantity: change.value };
    requests++;
    const item = await client.inventory.update(change.itemId, body);
    return { applied: { [change.itemId]: item.quantity }, failed: {} };
  };

  // Unknown outcomes settled together share one catalog read (strict mode has no get-one).
  const liveInventory = sharedInventoryReader(() =>
    readLiveInventory(client, options.signal ? { signal: options.signal } : {}),
  );
  const execute = (ops: StockOp[]) =>
    applyRun<StockOp, StockOpResult>(run, ops, {
      concurrency: options.concurrency ?? 4,
      ...(options.signal ? { signal: options.signal } : {}),
      keyOf: (op) => op.key,
      execute: async (op) => {
        const touched = op.kind === 'stock-batch' ? op.changes : [op.change];
        backup.record(
          touched.map((c) => ({
            type: 'inventory_item',
            id: c.itemId,
            before: { quantity: c.before, sku: c.sku },
          })),
        );
        await backup.flush();
        return op.kind === 'stock-batch' ? sendBatch(op) : sendItem(op);
      },
      // Called for per-item deltas (not idempotent), and for a keyed batch whose key the service
      // may have forgotten (started more than 24 h ago): re-read the items and decide.
      reconcile: async (op: StockOp, _state: OperationState) => {
        if (op.kind === 'stock-batch') {
          // Absolute quantities are harmless to send again; deltas are never resent blindly.
          if (op.changes.every((c) => c.mode !== 'delta')) return 'not_applied';
          const index = await liveInventory();
          const now = op.changes.map((c) => index.byId.get(c.itemId)?.quantity);
          if (op.changes.every((c, i) => now[i] === c.after)) {
            return {
              done: { applied: Object.fromEntries(op.changes.map((c) => [c.itemId, c.after])), failed: {} },
            };
          }
          if (op.changes.every((c, i) => now[i] === c.before)) return 'not_applied';
          throw new Error(
            `could not tell whether the batch of ${op.changes.length} deltas (${op.key}) reached the store: its items are neither all at their planned quantities nor all at the quantities seen when planning; check them and fix by hand, it will not be resent`,
          );
        }
        const { change } = op;
        const now = await readItemQuantity(client, change, liveInventory);
        if (now === change.after) return { done: { applied: { [change.itemId]: now }, failed: {} } };
        if (now === change.before) return 'not_applied';
        throw new Error(
          `could not tell whether the delta ${change.value} reached item ${change.itemId}: the quantity is now ${now ?? 'unknown'} (planned ${change.before} → ${change.after}); check it and fix by hand, it will not be resent`,
        );
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
      // The batch route answering 404 stops the batch attempt: nothing of it was applied.
      isFatal: (error) => isRouteMissing(error) || (error as { exitCode?: number }).exitCode === 4,
    });
  let summary = await execute(buildOps(run, file, mode));
  if (summary.status === 'aborted' && mode === 'batch' && isRouteMissing(summary.fatalError)) {
    // A service without the batch route (or the sandbox in strict mode): one PATCH per item,
    // remembered so that a resumed run builds the same operations.
    client.warnOnce(
      'inventory-batch-404',
      `The batch inventory route (POST ${client.paths.batchUpdate}) answered 404; sending one PATCH per item instead.`,
    );
    mode = 'per-item';
    run.update({ options: { ...run.meta.options, inventoryMode: mode } });
    summary = await execute(buildOps(run, file, mode));
  } else if (knownMode === undefined) {
    run.update({ options: { ...run.meta.options, inventoryMode: mode } });
  }
  await backup.flush();
  backup.close();
  finalizeBackup(run.file('backupLog'), run.file('backup'), { runId: run.id });

  // Per-item outcome of every planned change.
  const outcomeByItem = new Map<
    string,
    { ok: true; quantity: number } | { ok: false; failure: EntryFailure }
  >();
  for (const o of summary.outcomes as OperationOutcome<StockOp, StockOpResult>[]) {
    const items = o.op.kind === 'stock-batch' ? o.op.changes : [o.op.change];
    for (const c of items) {
      if (o.status === 'done') {
        const failed = o.result?.failed[c.itemId];
        const applied = o.result?.applied[c.itemId];
        outcomeByItem.set(
          c.itemId,
          failed ? { ok: false, failure: failed } : { ok: true, quantity: applied ?? c.after },
        );
      } else if (o.status === 'failed' || o.status === 'unknown') {
        const e = o.error;
        outcomeByItem.set(c.itemId, {
          ok: false,
          failure: {
            code: o.status === 'unknown' ? 'outcome_unknown' : (e?.code ?? 'error'),
            message: e?.message ?? 'the outcome of this write is unknown; resume the run to settle it',
            requestId: e?.requestId,
          },
        });
      } else {
        outcomeByItem.set(c.itemId, {
          ok: false,
          failure: {
            code: 'not_run',
            message: 'not applied: the run stopped first; resume it with mbulk runs resume',
          },
        });
      }
    }
  }

  const rows = await writeStockResults(run, file, outcomeByItem);
  const failedRows: StockApplySummary['failedRows'] = [];
  let applied = 0;
  let failed = 0;
  let unknown = 0;
  let notRun = 0;
  for (const c of changes) {
    const o = outcomeByItem.get(c.itemId);
    if (o?.ok) applied++;
    // Not tried because the run stopped first: not a failure to fix, a run to resume.
    else if (o?.failure.code === 'not_run') notRun++;
    else {
      if (o?.failure.code === 'outcome_unknown') unknown++;
      failed++;
      failedRows.push({
        sheet: c.sheet,
        row: c.rowNumber,
        code: o?.failure.code ?? 'error',
        message: o?.failure.message ?? '',
      });
    }
  }
  for (const i of file.plan.issues) {
    if (i.severity === 'error')
      failedRows.push({ sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message });
  }
  const result: StockApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    mode,
    applied,
    failed,
    unknown,
    notRun,
    requests,
    rows,
    failedRows,
  };
  run.update({ counts: { ...run.meta.counts, applied, failed, requests } });
  writeStockReport(run, file, result);
  return result;
}

async function writeStockResults(
  run: RunDirectory,
  file: StockPlanFile,
  outcomeByItem: ReadonlyMap<string, { ok: true; quantity: number } | { ok: false; failure: EntryFailure }>,
): Promise<RowFilesSummary> {
  const byRow = new Map<number, RowResult>();
  const issuesByRow = new Map<number, RowIssue[]>();
  for (const i of file.plan.issues) {
    if (i.severity !== 'error') continue;
    const list = issuesByRow.get(i.rowNumber) ?? [];
    list.push(i);
    issuesByRow.set(i.rowNumber, list);
  }
  const label = inputLabel(file.input);
  for (const [row, issues] of issuesByRow) {
    const first = issues[0] as RowIssue;
    const r: RowResult = {
      sheet: label,
      row,
      outcome: 'invalid',
      errorCode: first.code,
      errorMessage: issues.map((i) => i.message).join('; '),
    };
    if (first.column !== undefined) r.column = first.column;
    byRow.set(row, r);
  }
  for (const s of file.plan.skipped) {
    byRow.set(s.rowNumber, {
      sheet: label,
      row: s.rowNumber,
      outcome: 'skipped',
      errorCode: 'inventory_not_enabled',
      errorMessage: s.reason,
    });
  }
  for (const c of file.plan.changes) {
    const o = outcomeByItem.get(c.itemId);
    const r: RowResult = {
      sheet: label,
      row: c.rowNumber,
      outcome: o?.ok ? 'updated' : o?.failure.code === 'not_run' ? 'skipped' : 'failed',
      entityId: c.itemId,
    };
    if (o && !o.ok) {
      r.errorCode = o.failure.code;
      r.errorMessage = o.failure.message;
      if (o.failure.requestId) r.requestId = o.failure.requestId;
    }
    byRow.set(c.rowNumber, r);
  }
  return writeInputResults(run, file.input, byRow, { otherwise: 'unchanged' });
}
