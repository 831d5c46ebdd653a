import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { idempotencyKey } from '../api/idempotency-key.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { listAll } from '../api/paginate.js';
import { applyRun } from '../apply/apply-run.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import { writeReport } from '../apply/report.js';
import { templateReview } from '../report/template-review.js';
import {
  invalidRowResult,
  operationRowResult,
  type RowFilesSummary,
  type RowResult,
} from '../apply/results-file.js';
import { RunDirectory } from '../apply/run-directory.js';
import { writeFileAtomic } from '../apply/write-file-atomic.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import { mapTemplateRow, resolveTemplateColumns, type DesiredTemplate } from '../mapping/template-sheet.js';
import { planTemplates, type TemplatePlan, type TemplatePlanEntry } from '../plan/template-plan.js';
import type { MessageTemplate, Store, TemplateCreate } from '../schema/index.js';
import { readSheet, type ReadSheetOptions } from '../sheets/read-sheet.js';
import { abortFields, fileWarning, type AbortCause, type JobCallbacks } from './job-events.js';
import { inputLabel, keepRunInput, writeInputResults, type RunInput } from './run-input.js';
import { SheetHeaderError } from './sheet-header-error.js';
import { appendAll, prependAll } from '../plan/append-all.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { checkRunStore } from '../apply/run-store.js';

/** Most templates read from the store at once (a store has tens, not millions). */
const MAX_LIVE_TEMPLATES = 100_000;

/** plan.json of a templates run. Plain JSON. */
export interface TemplatePlanFile {
  kind: 'templates';
  version: 1;
  store: { id: string; name: string };
  input: RunInput;
  /** Where the submitted categories are remembered (`<stateDir>/stores/<store>/templates.json`). */
  stateDir: string;
  /** Create the valid rows even when others are invalid (default: nothing is created then). */
  skipInvalid: boolean;
  plan: TemplatePlan;
}

export interface PlanTemplateOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  /** Default: the parent of runsRoot (`.mbulk`). */
  stateDir?: string;
  skipInvalid?: boolean;
}

export interface PlannedTemplateRun {
  run: RunDirectory;
  file: TemplatePlanFile;
  store: Store;
}

/** Rows with at least one error (the sheet's own problems and the plan's: duplicate or taken names). */
function invalidRowCount(issues: readonly RowIssue[]): number {
  return new Set(issues.filter((i) => i.severity === 'error').map((i) => `${i.sheet}\0${i.rowNumber}`)).size;
}

export function templateCounts(plan: TemplatePlan): Record<string, number> {
  return {
    create: plan.counts.create,
    unchanged: plan.counts.unchanged,
    invalid: invalidRowCount(plan.issues.filter((i) => i.rowNumber > 1)),
  };
}

/**
 * Reads a templates sheet and plans it (dry run): every constraint of the spec is checked on every
 * row, and names against the sheet and the store's existing templates, before anything is sent.
 */
export async function planTemplateImport(options: PlanTemplateOptions): Promise<PlannedTemplateRun> {
  const { client } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await client.me(signal);
  const reader = readSheet(options.file, options.read);
  const info = await reader.open();
  const { columns, issues: headerIssues } = resolveTemplateColumns(info.sheet, info.columns);
  const fatal = headerIssues.filter((i) => i.severity === 'error' && i.code === 'missing_column');
  if (fatal.length > 0) {
    await reader.close();
    throw new SheetHeaderError(`${options.file}: ${fatal.map((i) => i.message).join('; ')}`, fatal);
  }
  const desired: DesiredTemplate[] = [];
  const rowIssues: RowIssue[] = [];
  let rows = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) {
      const mapped = mapTemplateRow(row, columns);
      appendAll(rowIssues, mapped.issues);
      if (mapped.template) desired.push(mapped.template);
    }
    rows += batch.length;
    options.onProgress?.({ phase: 'read', done: rows });
  }
  for (const w of reader.warnings) options.onWarning?.(fileWarning(options.file, w.message));
  options.onProgress?.({ phase: 'fetch', done: 0, message: 'existing templates' });
  const live = await listAll(client.templates.list({}, signal), {
    max: MAX_LIVE_TEMPLATES,
    what: 'GET /api/v2/message_templates',
  });
  const plan = planTemplates(desired, live);
  // A header error that is not fatal (a fourth button column) still makes every row invalid.
  const headerErrors = headerIssues.filter((i) => i.severity === 'error');
  prependAll(plan.issues, headerIssues.concat(rowIssues));
  if (headerErrors.length > 0 && rows > 0) {
    for (const e of plan.entries.filter((x) => x.action === 'create')) {
      plan.issues.push({
        severity: 'error',
        code: 'sheet_header_error',
        message: `not created: the sheet's header has errors (${headerErrors.map((i) => i.message).join('; ')})`,
        sheet: e.sheet,
        rowNumber: e.rowNumber,
      });
    }
    plan.entries = plan.entries.filter((x) => x.action !== 'create');
    plan.counts.create = 0;
  }
  plan.counts.invalid = invalidRowCount(plan.issues.filter((i) => i.rowNumber > 1));

  const stateDir = options.stateDir ?? dirname(options.runsRoot);
  const run = RunDirectory.create(options.runsRoot, {
    kind: 'templates',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: { skipInvalid: options.skipInvalid ?? false },
    counts: { rows, ...templateCounts(plan) },
  });
  const file: TemplatePlanFile = {
    kind: 'templates',
    version: 1,
    store: { id: store.id, name: store.name },
    input: keepRunInput(run, options.file, 'templates', info.format === 'xlsx' ? info.sheet : undefined),
    stateDir,
    skipInvalid: options.skipInvalid ?? false,
    plan,
  };
  run.writePlan(file);
  writeTemplateReport(run, file);
  return { run, file, store };
}

/** "row 2: order_ready (UTILITY, 2 variables, 1 button)" */
export function describeTemplateEntry(e: TemplatePlanEntry): string {
  const vars = Object.keys(e.body.parameter_examples ?? {}).length;
  const buttons = e.body.buttons?.length ?? 0;
  const parts = [e.body.category, `${vars} variable${vars === 1 ? '' : 's'}`];
  if (buttons > 0) parts.push(`${buttons} button${buttons === 1 ? '' : 's'}`);
  const what =
    e.action === 'unchanged'
      ? `exists already (${e.existing?.status ?? 'unknown status'})`
      : `create (${parts.join(', ')})`;
  return `row ${e.rowNumber}: ${e.name}: ${what}`;
}

function writeTemplateReport(
  run: RunDirectory,
  file: TemplatePlanFile,
  applied?: TemplateApplySummary,
): void {
  const counts = templateCounts(file.plan);
  writeReport(run.file('report'), {
    title: 'Create message templates',
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      ['Status', run.refresh().status],
    ],
    counts: [
      ['create', counts['create'] ?? 0],
      ['unchanged', counts['unchanged'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['created', applied.created],
            ['failed', applied.failed],
          ] as const)
        : []),
    ],
    changes: applied
      ? applied.templates.map(
          (t) =>
            `row ${t.row}: ${t.name}: ${t.outcome}${t.id ? ` ${t.id}` : ''}${t.status ? ` ${t.status}` : ''}${t.error ? ` (${t.error})` : ''}`,
        )
      : file.plan.entries.map(describeTemplateEntry),
    issues: file.plan.issues.map((i) => `${i.severity}: ${formatRowIssue(i)}`),
    notes: [
      'Templates are reviewed outside the store: follow the review with `mbulk templates status --watch`.',
    ],
    review: templateReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Submitted categories: the reviewer may re-categorise a template, and the API does not say what
// was submitted, so the categories sent are remembered per store.

const SubmittedTemplates = z.record(
  z.string(),
  z.object({
    category: z.string(),
    submitted_at: z.string(),
    run_id: z.string().optional(),
    id: z.string().optional(),
  }),
);
export type SubmittedTemplates = z.infer<typeof SubmittedTemplates>;

/** `<stateDir>/stores/<store-id>/templates.json`. */
export function submittedTemplatesPath(stateDir: string, storeId: string): string {
  return join(stateDir, 'stores', storeId.replace(/[^A-Za-z0-9_.-]/g, '_'), 'templates.json');
}

/** The categories submitted from this machine, by template name ({} when none or unreadable). */
export function readSubmittedTemplates(file: string): SubmittedTemplates {
  if (!existsSync(file)) return {};
  try {
    const parsed = SubmittedTemplates.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function rememberSubmitted(file: string, name: string, entry: SubmittedTemplates[string]): void {
  const all = readSubmittedTemplates(file);
  all[name] = { ...all[name], ...entry };
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Apply

interface TemplateOp {
  kind: 'template-create';
  key: string;
  idempotent: true;
  idempotencyKey: string;
  entry: TemplatePlanEntry;
}

/** What a create's journal record keeps. */
interface TemplateOpResult {
  id: string;
  status: string;
  category: string;
}

export interface ApplyTemplateOptions extends JobCallbacks {
  client: MerchantClient;
  concurrency?: number;
}

export interface TemplateRowOutcome {
  sheet: string;
  row: number;
  name: string;
  outcome: 'created' | 'unchanged' | 'failed' | 'not_run';
  id?: string;
  /** Review status as the service answered (PENDING after a create). */
  status?: string;
  category?: string;
  error?: string;
}

export interface TemplateApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  failed: number;
  unknown: number;
  templates: TemplateRowOutcome[];
  rows: RowFilesSummary;
  failedRows: { sheet: string; row: number; code: string; message: string }[];
}

/** Invalid rows in a plan that does not allow skipping them: nothing may be sent (exit 1). */
export class InvalidRowsError extends MbulkError {
  static override readonly errorName: string = 'InvalidRowsError';
  constructor(
    message: string,
    readonly issues: RowIssue[],
  ) {
    super('failed', message);
  }
}

/**
 * Creates (or resumes creating) the planned templates: one POST each, keyed with
 * idempotencyKey(run, entry, body) and journaled, so a resumed run never submits one twice. A plan
 * with invalid rows creates nothing unless it was planned with skipInvalid.
 */
export async function applyTemplateRun(
  run: RunDirectory,
  options: ApplyTemplateOptions,
): Promise<TemplateApplySummary> {
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = run.readPlan() as TemplatePlanFile;
  const errors = file.plan.issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 && !file.skipInvalid) {
    throw new InvalidRowsError(
      `nothing was submitted: ${file.plan.counts.invalid} invalid row(s); fix them (see ${run.file('report')}) or plan with --skip-invalid`,
      errors,
    );
  }
  const stateFile = submittedTemplatesPath(file.stateDir, file.store.id);
  const ops: TemplateOp[] = file.plan.entries
    .filter((e) => e.action === 'create')
    .map((entry) => ({
      kind: 'template-create',
      key: entry.key,
      idempotent: true,
      idempotencyKey: idempotencyKey(run.id, entry.key, entry.body),
      entry,
    }));
  const signal = options.signal ? { signal: options.signal } : {};
  const summary = await applyRun<TemplateOp, TemplateOpResult>(run, ops, {
    concurrency: options.concurrency ?? 4,
    ...signal,
    keyOf: (op) => op.key,
    execute: async (op) => {
      const body: TemplateCreate = op.entry.body;
      rememberSubmitted(stateFile, op.entry.name, {
        category: body.category,
        submitted_at: new Date().toISOString(),
        run_id: run.id,
      });
      // No abort signal: a stop lets the creates in flight finish and be journaled.
      const created = await client.templates.create(body, { idempotencyKey: op.idempotencyKey });
      rememberSubmitted(stateFile, op.entry.name, {
        category: body.category,
        submitted_at: new Date().toISOString(),
        run_id: run.id,
        id: created.id,
      });
      return { id: created.id, status: created.status, category: created.category };
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

  const byRow = new Map<number, RowResult>();
  const extra = new Map<number, { template_status?: string; template_category?: string }>();
  const label = inputLabel(file.input);
  const templates: TemplateRowOutcome[] = [];
  const failedRows: TemplateApplySummary['failedRows'] = [];
  const issuesByRow = new Map<number, RowIssue[]>();
  for (const i of file.plan.issues) {
    if (i.rowNumber <= 1) continue;
    const list = issuesByRow.get(i.rowNumber) ?? [];
    list.push(i);
    issuesByRow.set(i.rowNumber, list);
  }
  for (const [row, issues] of issuesByRow) {
    if (!issues.some((i) => i.severity === 'error')) continue;
    byRow.set(row, invalidRowResult(label, row, issues));
    for (const i of issues.filter((x) => x.severity === 'error'))
      failedRows.push({ sheet: i.sheet, row, code: i.code, message: i.message });
  }
  let created = 0;
  let failed = 0;
  let unknown = 0;
  for (const e of file.plan.entries.filter((x) => x.action === 'unchanged')) {
    byRow.set(e.rowNumber, {
      sheet: label,
      row: e.rowNumber,
      outcome: 'unchanged',
      key: e.name,
      ...(e.existing ? { entityId: e.existing.id } : {}),
    });
    const t: TemplateRowOutcome = { sheet: e.sheet, row: e.rowNumber, name: e.name, outcome: 'unchanged' };
    if (e.existing) {
      t.id = e.existing.id;
      t.status = e.existing.status;
      t.category = e.existing.category;
      extra.set(e.rowNumber, { template_status: e.existing.status, template_category: e.existing.category });
    }
    templates.push(t);
  }
  for (const o of summary.outcomes as OperationOutcome<TemplateOp, TemplateOpResult>[]) {
    const e = o.op.entry;
    const result = o.status === 'done' ? o.result : undefined;
    const r = operationRowResult(label, e.rowNumber, o, {
      outcome: 'created',
      key: e.name,
      ...(result ? { entityId: result.id } : {}),
    });
    byRow.set(e.rowNumber, r);
    const t: TemplateRowOutcome = {
      sheet: e.sheet,
      row: e.rowNumber,
      name: e.name,
      outcome: o.status === 'done' ? 'created' : o.status === 'not_run' ? 'not_run' : 'failed',
    };
    if (result) {
      t.id = result.id;
      t.status = result.status;
      t.category = result.category;
      extra.set(e.rowNumber, { template_status: result.status, template_category: result.category });
      created++;
    } else {
      if (o.status === 'unknown') unknown++;
      failed++;
      t.error = r.errorMessage ?? r.errorCode ?? 'failed';
      failedRows.push({
        sheet: e.sheet,
        row: e.rowNumber,
        code: r.errorCode ?? 'failed',
        message: r.errorMessage ?? '',
      });
    }
    templates.push(t);
  }
  templates.sort((a, b) => a.row - b.row);
  failedRows.sort((a, b) => a.row - b.row);

  const rows = await writeInputResults(run, file.input, byRow, {
    otherwise: 'skipped',
    extra,
    extraColumns: ['name', 'template_status', 'template_category'],
  });
  const result: TemplateApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    created,
    failed,
    unknown,
    templates,
    rows,
    failedRows,
  };
  run.update({ counts: { ...run.meta.counts, created, failed } });
  writeTemplateReport(run, file, result);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Review status

export interface TemplateStatusRow {
  name: string;
  id: string;
  status: MessageTemplate['status'];
  category: MessageTemplate['category'];
  language: string;
  parameters: string[];
  /** The category sent when it was created from this machine (unknown otherwise). */
  submittedCategory?: string;
  /** The reviewer changed the category from the one submitted. */
  recategorised: boolean;
  rejectedReason: string | null;
}

export interface TemplateStatusOptions {
  client: MerchantClient;
  /** `.mbulk`: where submitted categories are remembered. */
  stateDir: string;
  /** Only templates whose name contains this. */
  name?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Every template of the store with its review status, category and whether it was re-categorised. */
export async function readTemplateStatus(
  options: TemplateStatusOptions,
): Promise<{ store: Store; templates: TemplateStatusRow[] }> {
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await options.client.me(signal);
  const submitted = readSubmittedTemplates(submittedTemplatesPath(options.stateDir, store.id));
  const live = await listAll(
    options.client.templates.list(options.name ? { name: options.name } : {}, signal),
    { max: MAX_LIVE_TEMPLATES, what: 'GET /api/v2/message_templates' },
  );
  // The name filter is a contains match; applied here too in case a service ignores it.
  const name = options.name;
  const listed = name ? live.filter((t) => t.name.includes(name)) : live;
  const templates = listed.map((t): TemplateStatusRow => {
    const sent = submitted[t.name];
    const row: TemplateStatusRow = {
      name: t.name,
      id: t.id,
      status: t.status,
      category: t.category,
      language: t.language,
      parameters: t.parameters,
      recategorised: sent !== undefined && sent.category !== t.category,
      rejectedReason: t.rejected_reason,
    };
    if (sent) row.submittedCategory = sent.category;
    return row;
  });
  return { store, templates };
}

export interface WatchTemplateOptions extends TemplateStatusOptions {
  /** Between polls, ms (default 30 s). */
  intervalMs?: number;
  /** After every poll. */
  onPoll?: (templates: TemplateStatusRow[], poll: number) => void;
  /**
   * The client for poll number `poll` (default: `client` every time). An embedded sandbox is
   * started again from its state file for each poll, so a review made from another terminal shows.
   */
  clientForPoll?: (poll: number) => Promise<TemplateStatusOptions['client']>;
}

/**
 * Polls until no template is PENDING (or the signal aborts; then it resolves with the last poll and
 * `interrupted: true`).
 */
export async function watchTemplateStatus(
  options: WatchTemplateOptions,
): Promise<{ store: Store; templates: TemplateStatusRow[]; interrupted: boolean; polls: number }> {
  const intervalMs = options.intervalMs ?? 30_000;
  for (let poll = 1; ; poll++) {
    const client = options.clientForPoll ? await options.clientForPoll(poll) : options.client;
    const { store, templates } = await readTemplateStatus({ ...options, client });
    options.onPoll?.(templates, poll);
    if (!templates.some((t) => t.status === 'PENDING')) {
      return { store, templates, interrupted: false, polls: poll };
    }
    const aborted = await sleep(intervalMs, options.signal);
    if (aborted) return { store, templates, interrupted: true, polls: poll };
  }
}

/** Resolves true when the signal aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
