import { idempotencyKey } from '../api/idempotency-key.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { applyRun } from '../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../apply/backup.js';
import { WriteCheck, type WriteCheckOptions } from '../apply/write-check.js';
import {
  refuseChangedCustomer,
  refuseExistingCustomer,
  settleCustomerReplay,
} from './customer-write-check.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import { readJournal, stateOf } from '../apply/journal.js';
import { writeReport } from '../apply/report.js';
import { customerReview } from '../report/customer-review.js';
import {
  invalidRowResult,
  operationRowResult,
  type RowFilesSummary,
  type RowResult,
} from '../apply/results-file.js';
import { RunDirectory } from '../apply/run-directory.js';
import { TrimmedCells } from '../mapping/trimmed-cells.js';
import { mapCustomerRow, resolveCustomerColumns, type DesiredCustomer } from '../mapping/customer-sheet.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  LiveCustomerIndex,
  planCustomers,
  type CustomerMatchKey,
  type CustomerPlan,
  type CustomerPlanEntry,
} from '../plan/customer-plan.js';
import type { CustomerCreate, CustomerUpdate, Store } from '../schema/index.js';
import { readSheet, type ReadSheetOptions } from '../sheets/read-sheet.js';
import { isShopifyCustomerExport } from '../formats/detect-format.js';
import { ShopifyCustomerConverter } from '../formats/shopify/shopify-customer-converter.js';
import { FORMAT_LABELS, type ColumnUse } from '../formats/source-format.js';
import { abortFields, fileWarning, type AbortCause, type JobCallbacks } from './job-events.js';
import type { DriftedEntity } from './run-kind.js';
import { inputLabel, keepRunInput, writeInputResults, type RunInput } from './run-input.js';
import { SheetHeaderError } from './sheet-header-error.js';
import { refuseEmptySheet } from './empty-sheet.js';
import { appendAll } from '../plan/append-all.js';
import { UsageError } from '../errors/usage-error.js';
import { checkRunStore } from '../apply/run-store.js';

/** What a blank cell means: leave the live value (default) or, for email, erase it. */
export type BlankMode = 'keep' | 'clear';

/** plan.json of a customers run. Plain JSON. */
export interface CustomerPlanFile {
  kind: 'customers';
  version: 1;
  store: { id: string; name: string; country: string };
  input: RunInput;
  blank: BlankMode;
  /** The keys rows were matched on, in order (absent in plans made before `--match`: id, phone, email). */
  match?: CustomerMatchKey[];
  /** Data rows read. */
  rows: number;
  liveCustomers: number;
  /** Row issues of the mapping and the plan (header issues first), in row order. */
  plan: CustomerPlan;
  /** Set when the sheet was read as another platform's export: its name and each column's use. */
  source?: { label: string; columns: ColumnUse[] };
}

export interface PlanCustomersOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  /** 'keep' (default): a blank email leaves the live one; 'clear': it erases it. */
  blank?: BlankMode;
  /** `--from shopify`: read a Shopify customer export (default: recognised from the header). */
  from?: 'shopify' | 'mbulk' | undefined;
  /** Plan a sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean | undefined;
  /** The keys rows are matched on, in order (default id, phone, email). */
  match?: readonly CustomerMatchKey[];
}

export interface PlannedCustomerRun {
  run: RunDirectory;
  file: CustomerPlanFile;
  store: Store;
}

/**
 * Reads a customer sheet and the live customers, and plans (dry run): match by id, else phone
 * (normalised with the store's country for national numbers), else email; create / update
 * (field-level) / unchanged.
 */
export async function planCustomerImport(options: PlanCustomersOptions): Promise<PlannedCustomerRun> {
  const { client } = options;
  const blank: BlankMode = options.blank ?? 'keep';
  if (blank !== 'keep' && blank !== 'clear') {
    throw new UsageError(`--blank must be keep or clear, not "${String(blank)}"`, 'blank');
  }
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await client.me(signal);
  const reader = readSheet(options.file, options.read);
  const info = await reader.open();
  // A Shopify customer export is read through its converter (issue 13); other sheets as they are.
  const shopify =
    options.from === 'shopify' || (options.from === undefined && isShopifyCustomerExport(info.columns))
      ? new ShopifyCustomerConverter(info.columns)
      : undefined;
  const { columns, issues: headerIssues } = shopify
    ? { columns: shopify.columns, issues: [] }
    : resolveCustomerColumns(info.sheet, info.columns);
  const fatal = headerIssues.filter((i) => i.severity === 'error');
  if (fatal.length > 0) {
    await reader.close();
    throw new SheetHeaderError(`${options.file}: ${fatal.map((i) => i.message).join('; ')}`, fatal);
  }
  const desired: DesiredCustomer[] = [];
  const rowIssues: RowIssue[] = [];
  const trimmed = new TrimmedCells();
  let rows = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) {
      const mapped = mapCustomerRow(shopify ? shopify.row(row) : row, columns, {
        country: store.country,
        blank,
        trimmed,
      });
      if (mapped.customer) desired.push(mapped.customer);
      appendAll(rowIssues, mapped.issues);
    }
    rows += batch.length;
    options.onProgress?.({ phase: 'read', done: rows });
  }
  for (const w of reader.warnings) options.onWarning?.(fileWarning(options.file, w.message));
  refuseEmptySheet(options.file, rows, options.allowEmpty);

  const live = new LiveCustomerIndex();
  let fetched = 0;
  for await (const customer of client.customers.list({}, signal)) {
    live.add(customer);
    if (++fetched % 100 === 0) options.onProgress?.({ phase: 'fetch', done: fetched });
  }
  options.onProgress?.({ phase: 'fetch', done: fetched, message: `${fetched} customers` });

  const match = [...(options.match ?? DEFAULT_CUSTOMER_MATCH)];
  const plan = planCustomers(desired, live, { columns, match });
  // Mapping and plan issues in row order (stable: a row's own issues keep their order).
  const all = [...rowIssues, ...plan.issues].sort((a, b) => a.rowNumber - b.rowNumber);
  plan.issues = [...headerIssues, ...trimmed.warnings(), ...all];
  plan.counts.invalid = invalidRowNumbers(plan).size;

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'customers',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: { blank, country: store.country, match: match.join(',') },
    counts: customerCounts({ plan, rows }),
  });
  const file: CustomerPlanFile = {
    kind: 'customers',
    version: 1,
    store: { id: store.id, name: store.name, country: store.country },
    input: keepRunInput(run, options.file, 'customers', info.format === 'xlsx' ? info.sheet : undefined),
    blank,
    match,
    rows,
    liveCustomers: live.size,
    plan,
  };
  if (shopify) file.source = { label: FORMAT_LABELS['shopify-customers'], columns: shopify.uses() };
  run.writePlan(file);
  writeCustomerReport(run, file);
  return { run, file, store };
}

function invalidRowNumbers(plan: CustomerPlan): Set<number> {
  return new Set(plan.issues.filter((i) => i.severity === 'error').map((i) => i.rowNumber));
}

/** Counts for people and run.json: rows, create, update, unchanged, skipped, invalid. */
export function customerCounts(file: Pick<CustomerPlanFile, 'plan' | 'rows'>): Record<string, number> {
  const { counts } = file.plan;
  return {
    rows: file.rows,
    create: counts.create,
    update: counts.update,
    unchanged: counts.noop,
    skipped: counts.skip,
    invalid: invalidRowNumbers(file.plan).size,
  };
}

/** Planned writes (creates and updates), in sheet order. */
export function customerChanges(plan: CustomerPlan): CustomerPlanEntry[] {
  return plan.entries.filter((e) => e.action === 'create' || e.action === 'update');
}

function show(value: unknown): string {
  return value === null || value === undefined || value === '' ? '(blank)' : String(value);
}

/**
 * A planned change as people read it:
 * `row 3: update cus_01 Aina (matched by phone): name: Aina → Aina Binti (renaming matched customer); email: (blank) → a@x.com`
 * `row 5: create Chen: name: Chen; phone: 60172223333; email: chen@example.com`
 */
export function describeCustomerChange(e: CustomerPlanEntry): string {
  if (e.action === 'create') {
    const fields = e.changes.map((c) => `${c.field}: ${show(c.after)}`).join('; ');
    return `row ${e.rowNumber}: create ${e.create?.name ?? ''}: ${fields}`;
  }
  const who = `${e.customerId ?? ''} ${e.before?.name ?? ''}`.trim();
  const how = e.matchedBy ? ` (matched by ${e.matchedBy})` : '';
  const fields = e.changes
    .map((c) => {
      const text = `${c.field}: ${show(c.before)} → ${show(c.after)}`;
      // A new name on a matched customer is the one change people must not miss: it is either a
      // correction or a row that describes someone else.
      return c.field === 'name' ? `${text} (renaming matched customer)` : text;
    })
    .join('; ');
  return `row ${e.rowNumber}: ${e.action} ${who}${how}: ${fields}`;
}

function writeCustomerReport(
  run: RunDirectory,
  file: CustomerPlanFile,
  applied?: CustomerApplySummary,
): void {
  const counts = customerCounts(file);
  const changes = customerChanges(file.plan);
  writeReport(run.file('report'), {
    title: 'Import customers',
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      [
        'Store',
        `${file.store.name} (${file.store.id}), national phone numbers read as ${file.store.country}`,
      ],
      ['Target', run.meta.target],
      ['Blank cells', file.blank === 'clear' ? 'a blank email erases the live one' : 'leave live values'],
      ['Matched on', (file.match ?? DEFAULT_CUSTOMER_MATCH).join(', then ')],
      ['Status', run.refresh().status],
    ],
    counts: [
      ['rows', counts['rows'] ?? 0],
      ['create', counts['create'] ?? 0],
      ['update', counts['update'] ?? 0],
      ['unchanged', counts['unchanged'] ?? 0],
      ['skipped', counts['skipped'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['created', applied.created],
            ['updated', applied.updated],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: changes.slice(0, 500).map(describeCustomerChange),
    totalChanges: changes.length,
    issues: file.plan.issues.slice(0, 500).map((i) => `${i.severity}: ${formatRowIssue(i)}`),
    totalIssues: file.plan.issues.length,
    review: customerReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Apply

type CustomerOp =
  | {
      kind: 'customer-create';
      key: string;
      idempotent: true;
      idempotencyKey: string;
      entry: CustomerPlanEntry;
      body: CustomerCreate;
    }
  | {
      kind: 'customer-update';
      key: string;
      idempotent: true;
      entry: CustomerPlanEntry;
      customerId: string;
      body: CustomerUpdate;
    };

/** What an operation's journal record keeps. */
interface CustomerOpResult {
  id: string;
  updatedAt: string;
}

export interface ApplyCustomersOptions extends JobCallbacks {
  client: MerchantClient;
  concurrency?: number;
  /** Write-time check: re-read a customer before writing it once the plan is a few seconds old (see WriteCheck). */
  writeCheck?: WriteCheckOptions | undefined;
}

export interface CustomerApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  updated: number;
  /** Planned writes that failed or whose outcome is unknown. */
  failed: number;
  unknown: number;
  /** Write requests made by this session. */
  requests: number;
  rows: RowFilesSummary;
  /** Failed writes and invalid rows. */
  failedRows: { sheet: string; row: number; code: string; message: string }[];
}

function buildOps(run: RunDirectory, plan: CustomerPlan): CustomerOp[] {
  const ops: CustomerOp[] = [];
  for (const entry of plan.entries) {
    if (entry.action === 'create' && entry.create) {
      ops.push({
        kind: 'customer-create',
        key: entry.key,
        idempotent: true,
        idempotencyKey: idempotencyKey(run.id, entry.key, entry.create),
        entry,
        body: entry.create,
      });
    } else if (entry.action === 'update' && entry.update && entry.customerId !== undefined) {
      ops.push({
        kind: 'customer-update',
        key: entry.key,
        idempotent: true,
        entry,
        customerId: entry.customerId,
        body: entry.update,
      });
    }
  }
  return ops;
}

/**
 * Applies (or resumes) a planned customers run: each create is a POST with a deterministic
 * Idempotency-Key (a replay after a crash is answered from the service's memory), each update an
 * absolute PATCH of the changed fields only (safe to resend). The before-state of every updated
 * customer is saved first (backup.json); results.csv and failed.csv cover every input row.
 */
export async function applyCustomerRun(
  run: RunDirectory,
  options: ApplyCustomersOptions,
): Promise<CustomerApplySummary> {
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = run.readPlan() as CustomerPlanFile;
  const signal = options.signal ? { signal: options.signal } : {};
  let requests = 0;
  const backup = BackupLog.open(run.file('backupLog'));
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  const match = file.match ?? DEFAULT_CUSTOMER_MATCH;
  const ops = buildOps(run, file.plan);
  // One customer listing vs one get-one per update.
  check.preferListing(
    Math.ceil(file.liveCustomers / 100),
    ops.filter((o) => o.kind === 'customer-update').length,
  );
  let summary: ExecuteSummary<CustomerOp, CustomerOpResult>;
  try {
    summary = await applyRun<CustomerOp, CustomerOpResult>(run, ops, {
      concurrency: options.concurrency ?? 4,
      ...signal,
      keyOf: (op) => op.key,
      execute: async (op, ctx) => {
        if (op.kind === 'customer-create') {
          // Refuse (nothing sent) a create whose phone now belongs to a live customer.
          if (check.due(ctx)) await refuseExistingCustomer(client, check, op.entry, match);
          backup.record([{ type: 'customer', id: op.key, before: null }]);
          await backup.flush();
          requests++;
          // Writes get no abort signal: a stop lets those in flight finish and be journaled.
          const c = await client.customers.create(op.body, { idempotencyKey: op.idempotencyKey });
          return { id: c.id, updatedAt: c.updated_at };
        }
        // A PATCH whose earlier attempt has no known outcome is re-sent only while the customer is as planned.
        if (ctx.previous === 'unknown') {
          const live = await settleCustomerReplay(client, check, op.entry, op.customerId, op.body);
          if (live) return { id: live.id, updatedAt: live.updatedAt };
        }
        // Refuse (nothing sent) a PATCH whose customer changed since planning: not overwritten (and not in the backup).
        if (check.due(ctx)) await refuseChangedCustomer(client, check, op.entry, op.customerId);
        const before = op.entry.before;
        backup.record([
          {
            type: 'customer',
            id: op.customerId,
            before: before ? { id: op.customerId, ...before, updated_at: op.entry.expectedUpdatedAt } : null,
          },
        ]);
        await backup.flush();
        requests++;
        const c = await client.customers.update(op.customerId, op.body);
        return { id: c.id, updatedAt: c.updated_at };
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

  const outcomeByRow = new Map<number, OperationOutcome<CustomerOp, CustomerOpResult>>();
  for (const o of summary.outcomes) outcomeByRow.set(o.op.entry.rowNumber, o);

  const failedRows: CustomerApplySummary['failedRows'] = [];
  let created = 0;
  let updated = 0;
  let failed = 0;
  let unknown = 0;
  for (const o of summary.outcomes) {
    const { entry } = o.op;
    if (o.status === 'done') {
      if (o.op.kind === 'customer-create') created++;
      else updated++;
      continue;
    }
    failed++;
    if (o.status === 'unknown') unknown++;
    failedRows.push({
      sheet: entry.sheet,
      row: entry.rowNumber,
      code:
        o.status === 'failed'
          ? (o.error.code ?? o.error.type ?? 'failed')
          : o.status === 'unknown'
            ? 'outcome_unknown'
            : 'not_run',
      message:
        o.status === 'failed'
          ? o.error.message
          : o.status === 'unknown'
            ? `outcome unknown (${o.error?.message ?? 'no answer'}); resume the run to settle it`
            : 'not applied: the run stopped first; resume it with mbulk runs resume',
    });
  }
  for (const i of file.plan.issues) {
    if (i.severity === 'error')
      failedRows.push({ sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message });
  }
  failedRows.sort((a, b) => a.row - b.row);

  const rows = await writeCustomerResults(run, file, outcomeByRow);
  const result: CustomerApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    created,
    updated,
    failed,
    unknown,
    requests,
    rows,
    failedRows,
  };
  run.update({ counts: { ...run.meta.counts, created, updated, failed, requests } });
  writeCustomerReport(run, file, result);
  return result;
}

/** The customer's phone as results.csv's `key`: the one it is created with, or its live one. */
function keyOf(e: CustomerPlanEntry): string | undefined {
  return e.update?.phone ?? e.create?.phone ?? e.before?.phone;
}

async function writeCustomerResults(
  run: RunDirectory,
  file: CustomerPlanFile,
  outcomeByRow: ReadonlyMap<number, OperationOutcome<CustomerOp, CustomerOpResult>>,
): Promise<RowFilesSummary> {
  const label = inputLabel(file.input);
  const byRow = new Map<number, RowResult>();
  const issuesByRow = new Map<number, RowIssue[]>();
  for (const i of file.plan.issues) {
    if (i.severity !== 'error') continue;
    const list = issuesByRow.get(i.rowNumber) ?? [];
    list.push(i);
    issuesByRow.set(i.rowNumber, list);
  }
  for (const [row, issues] of issuesByRow) byRow.set(row, invalidRowResult(label, row, issues));
  for (const e of file.plan.entries) {
    if (byRow.has(e.rowNumber)) continue;
    const key = keyOf(e);
    const base: RowResult = { sheet: label, row: e.rowNumber, outcome: 'unchanged' };
    if (key !== undefined) base.key = key;
    if (e.action === 'skip') {
      byRow.set(e.rowNumber, {
        ...base,
        outcome: 'skipped',
        errorCode: 'skip',
        errorMessage: 'command skip',
      });
      continue;
    }
    if (e.action === 'noop') {
      byRow.set(e.rowNumber, e.customerId !== undefined ? { ...base, entityId: e.customerId } : base);
      continue;
    }
    const o = outcomeByRow.get(e.rowNumber);
    if (!o) continue;
    const entityId = o.status === 'done' ? (o.result?.id ?? e.customerId) : e.customerId;
    const success: { outcome: 'created' | 'updated'; entityId?: string; key?: string } = {
      outcome: e.action === 'create' ? 'created' : 'updated',
    };
    if (entityId !== undefined) success.entityId = entityId;
    if (key !== undefined) success.key = key;
    const r = operationRowResult(label, e.rowNumber, o, success);
    if (r.entityId === undefined && e.customerId !== undefined) r.entityId = e.customerId;
    byRow.set(e.rowNumber, r);
  }
  return writeInputResults(run, file.input, byRow, { otherwise: 'unchanged' });
}

// ---------------------------------------------------------------------------------------------
// Drift

/**
 * Which planned writes no longer fit the live store (`mbulk apply RUN` refuses then): a customer
 * to update is gone or changed since planning (its `updated_at` moved), or a customer to create
 * now exists (its phone is live). Operations this run already started are its own doing, not drift.
 */
export async function checkCustomerDrift(
  run: RunDirectory,
  client: MerchantClient,
): Promise<DriftedEntity[]> {
  const file = run.readPlan() as CustomerPlanFile;
  const journal = readJournal(run.file('journal'));
  const pending = customerChanges(file.plan).filter((e) => stateOf(journal, e.key).status === 'not_started');
  if (pending.length === 0) return [];
  const live = new LiveCustomerIndex();
  for await (const c of client.customers.list()) live.add(c);
  const drifted: DriftedEntity[] = [];
  for (const e of pending) {
    if (e.action === 'create' && e.create) {
      const now = live.byPhone.get(e.create.phone);
      if (now) {
        drifted.push({
          type: 'customer',
          id: e.key,
          label: `row ${e.rowNumber} ${e.create.name}`,
          reason: `to be created, but customer ${now.id} (${now.name}) now has phone ${e.create.phone}`,
        });
      }
      continue;
    }
    if (e.customerId === undefined) continue;
    const now = live.byId.get(e.customerId);
    const label = `row ${e.rowNumber} ${e.before?.name ?? e.customerId}`;
    if (!now) {
      drifted.push({ type: 'customer', id: e.customerId, label, reason: 'no longer exists' });
    } else if (now.updatedAt !== e.expectedUpdatedAt) {
      drifted.push({
        type: 'customer',
        id: e.customerId,
        label,
        reason: `changed since planning (updated_at ${e.expectedUpdatedAt ?? '?'} → ${now.updatedAt})`,
      });
    }
  }
  return drifted;
}
