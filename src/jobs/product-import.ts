import { dirname } from 'node:path';
import { writeFileSync } from 'node:fs';
import { idempotencyKey } from '../api/idempotency-key.js';
import { isIdempotentRequest } from '../api/retry.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { applyRun } from '../apply/apply-run.js';
import { BackupLog, finalizeBackup } from '../apply/backup.js';
import { WriteCheck, type WriteCheckOptions } from '../apply/write-check.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import { renderReport, writeReport, type ReportInput } from '../apply/report.js';
import type { RowFilesSummary } from '../apply/results-file.js';
import { RunDirectory } from '../apply/run-directory.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import { checkGuardrail } from '../plan/check-guardrail.js';
import { describeChanges } from '../plan/describe-changes.js';
import { addLiveProduct, emptyLiveCatalog } from '../plan/live-catalog.js';
import { planProducts } from '../plan/plan-products.js';
import { findPriceJumps, medianCatalogPrice, priceJumpRefusal, type PriceJump } from '../plan/price-jumps.js';
import type { PlanEntry, ProductPlan } from '../plan/product-plan.js';
import { currencyDecimals, type Product, type ProductCreate, type ProductUpdate } from '../schema/index.js';
import type { Store } from '../schema/index.js';
import { formatMoney } from '../sheets/money.js';
import { productReview } from '../report/product-review.js';
import type { ReadSheetOptions } from '../sheets/read-sheet.js';
import { imageMemoryFile, readImageMemory, rememberImages } from './image-memory.js';
import { abortFields, type AbortCause, type JobCallbacks } from './job-events.js';
import { reconcileProductPatch } from './product-reconcile.js';
import { refuseChangedProduct, refuseExistingProduct, settleProductReplay } from './product-write-check.js';
import { writeProductResults } from './product-results.js';
export { failedOptionsFile } from './product-results.js';
import type { ColumnMap } from '../formats/column-map.js';
import type { SkippedRow, ProductSourceFormat } from '../formats/source-format.js';
import { summarizeColumns, type SourceDescription } from '../formats/source-description.js';
import { looseIssues, readProductSheets, type OptionsSource } from './product-sheets.js';
import { keepRunInput, runInputPath, type RunInput } from './run-input.js';
import { refuseEmptySheet } from './empty-sheet.js';
import { RefusedError } from '../errors/refused-error.js';
import { checkRunStore } from '../apply/run-store.js';

export { checkProductDrift, type DriftedProduct } from './product-drift.js';

/** plan.json of a products run. Plain JSON: a new process can apply or resume it. */
export interface ProductPlanFile {
  kind: 'products';
  version: 1;
  store: { id: string; name: string; currency: string };
  /** The products sheet (its copy in the run directory). */
  input: RunInput;
  /** The options sheet: the workbook's `options` sheet (same copy) or a separate file's copy. */
  optionsInput?: RunInput;
  /** Sheet labels the plan's rows and issues carry. */
  sheets: { products: string; options?: string };
  read: { money: 'units' | 'minor'; decimalComma: boolean; blank: 'keep' | 'clear' };
  /** The store's image memory file (source URL → stored URL). */
  imageMemoryFile: string;
  rows: number;
  plan: ProductPlan;
  /** Issues that belong to no product (header warnings, rows without a key, orphan option rows). */
  issues: RowIssue[];
  /** What the products sheet was read as (format, header row, each source column's use). */
  source?: SourceDescription;
  /** Source rows a format conversion left out on purpose (gift cards, grouped products…): skipped in results.csv. */
  skippedRows?: SkippedRow[];
  /** The live product as read when planning, for every product an update/hide/delete touches (backup). */
  before: Record<string, Product>;
  /** Set when the guardrail refused the plan. */
  refusal?: string;
  /**
   * Suspicious prices (×10 or more, or over 10× the catalog's median): `--apply` and `mbulk apply`
   * refuse the plan unless `--allow-price-jumps`.
   */
  priceJumps?: PriceJump[];
}

export interface PlanProductsImportOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  /** A separate options file (`--options FILE`); default: the workbook's `options` sheet, if any. */
  optionsFile?: string | undefined;
  money?: 'units' | 'minor';
  decimalComma?: boolean;
  blank?: 'keep' | 'clear';
  replace?: { variants?: boolean; options?: boolean; images?: boolean };
  missing?: 'ignore' | 'hide' | 'delete';
  allowDeletes?: boolean;
  /** The products sheet's format (`--from`); default: detected from its header. */
  from?: ProductSourceFormat | undefined;
  /** `--map` / `--map-file`: source headers → canonical fields. */
  columnMap?: ColumnMap | undefined;
  /**
   * `protect` (default): when the sheet is an `mbulk export products` (its `mbulk_exported_at`), an
   * item whose stock changed in the store after the export keeps its live stock. `overwrite`: the
   * sheet's quantities are written anyway (`--stock overwrite`).
   */
  stock?: 'protect' | 'overwrite';
  /** Plan a products sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean;
  /** Let `--apply` write price changes of ×10 or more, or over 10× the median price (default false). */
  allowPriceJumps?: boolean;
}

export interface PlannedProductRun {
  run: RunDirectory;
  file: ProductPlanFile;
  store: Store;
  /** Set when the guardrail refuses the plan (exit 3); nothing may be applied. */
  refusal?: string;
  /** Set when the plan has price jumps and `allowPriceJumps` is off: `--apply` refuses (exit 3). */
  applyRefusal?: string;
  /** Seconds per phase: read+validate, live fetch, plan. */
  timings: { read: number; fetch: number; plan: number };
}

/** Live products read page by page (limit 100) in one unfiltered listing. */
async function readLiveCatalog(client: MerchantClient, callbacks: JobCallbacks) {
  const catalog = emptyLiveCatalog();
  // The full products are kept as JSON text (compact): only those the plan touches are parsed back.
  const raw = new Map<string, string>();
  let n = 0;
  // One plain read, not the status partitions: a product whose status changes mid-read could be
  // missed by both partitions and would then be planned as a duplicate create.
  for await (const p of client.products.list({}, callbacks.signal ? { signal: callbacks.signal } : {})) {
    addLiveProduct(catalog, p);
    raw.set(p.id, JSON.stringify(p));
    if (++n % 500 === 0) callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
  }
  callbacks.onProgress?.({ phase: 'fetch', done: n, message: 'live products' });
  return { catalog, raw };
}

/** Counts per action, plus rows and invalid rows (run.json, terminal). */
export function productCounts(
  file: Pick<ProductPlanFile, 'plan' | 'issues' | 'rows'>,
): Record<string, number> {
  const s = file.plan.summary;
  const invalidRows = new Set<string>();
  for (const e of file.plan.entries) {
    if (e.action === 'invalid') for (const r of e.rows) invalidRows.add(`${r.sheet}\0${r.rowNumber}`);
  }
  for (const i of file.issues) if (i.severity === 'error') invalidRows.add(`${i.sheet}\0${i.rowNumber}`);
  return {
    rows: file.rows,
    create: s.create,
    update: s.update,
    hide: s.hide,
    delete: s.delete,
    noop: s.noop,
    skip: s.skip,
    invalid: s.invalid,
    'invalid rows': invalidRows.size,
  };
}

const WRITES = new Set(['create', 'update', 'hide', 'delete']);

/** Entries that write. */
export function writeEntries(plan: ProductPlan): PlanEntry[] {
  return plan.entries.filter((e) => WRITES.has(e.action));
}

/** `update ERP-0000001 (row 2): price: 11.90 → 12.50` lines of an entry. */
export function describeProductEntry(entry: PlanEntry, decimals: number): string[] {
  const where = entry.rows[0]
    ? ` (row ${entry.rows[0].rowNumber})`
    : entry.reason
      ? ` (${entry.reason})`
      : '';
  const head = `${entry.action} ${entry.label}${where}`;
  const lines = describeChanges(entry, decimals);
  if (lines.length === 0) return [head];
  return lines.map((l) => `${head}: ${l}`);
}

/** One line for a create (the terminal shows creates compactly): name, price, variants, options, images. */
export function summarizeCreate(entry: PlanEntry, decimals: number): string {
  const where = entry.rows[0] ? ` (row ${entry.rows[0].rowNumber})` : '';
  const body = (entry.body ?? {}) as Partial<ProductCreate>;
  const parts: string[] = [];
  if (body.name) parts.push(body.name);
  if (typeof body.price === 'number') parts.push(`price ${formatMoney(body.price, decimals)}`);
  const count = (n: number | undefined, what: string) => {
    if (n) parts.push(`${n} ${what}${n === 1 ? '' : 's'}`);
  };
  count(body.variants?.length, 'variant');
  count(body.options?.length, 'option');
  count(body.images?.length, 'image');
  return `create ${entry.label}${where}: ${parts.join(' · ')}`;
}

/** Report lines about the source: its format, header row and what each column became. */
function sourceFacts(file: ProductPlanFile): [string, string][] {
  const src = file.source;
  if (src === undefined) return [];
  const { imported, notImported } = summarizeColumns(src.columns);
  const facts: [string, string][] = [['Format', src.label]];
  if (src.headerRow > 1) facts.push(['Header row', String(src.headerRow)]);
  facts.push(['Columns imported', imported], ['Columns not imported', notImported]);
  if (file.skippedRows?.length) facts.push(['Rows skipped', String(file.skippedRows.length)]);
  return facts;
}

function reportInput(run: RunDirectory, file: ProductPlanFile, applied?: ProductApplySummary): ReportInput {
  const counts = productCounts(file);
  const changes: string[] = [];
  for (const e of file.plan.entries) {
    if (WRITES.has(e.action)) changes.push(...describeProductEntry(e, file.plan.decimals));
  }
  const issues: string[] = [];
  for (const j of file.priceJumps ?? []) issues.push(`warning: suspicious price: ${j.message}`);
  for (const i of file.issues) issues.push(`${i.severity}: ${formatRowIssue(i)}`);
  for (const e of file.plan.entries)
    for (const i of e.issues) issues.push(`${i.severity}: ${formatRowIssue(i)}`);
  if (applied) {
    for (const f of applied.failedOperations) issues.push(`failed: ${f.label}: ${f.code}: ${f.message}`);
  }
  const facts: [string, string][] = [
    ['Input', file.input.original],
    ...sourceFacts(file),
    ['Store', `${file.store.name} (${file.store.id}, ${file.store.currency})`],
    ['Target', run.meta.target],
    ['Missing products', file.plan.options.missing],
    [
      'Replace lists',
      [
        file.plan.options.replace.variants ? 'variants' : '',
        file.plan.options.replace.options ? 'options' : '',
        file.plan.options.replace.images === true ? 'images' : '',
      ]
        .filter(Boolean)
        .join(', ') || 'none (lists absent from the sheet are kept)',
    ],
    ['Status', run.refresh().status],
  ];
  if (file.optionsInput)
    facts.splice(1, 0, [
      'Options',
      `${file.optionsInput.original}${file.optionsInput.sheet ? ` (${file.optionsInput.sheet})` : ''}`,
    ]);
  if (file.refusal) facts.push(['Refused', file.refusal]);
  if (file.priceJumps)
    facts.push([
      'Suspicious prices',
      `${file.priceJumps.length} (×10 or more, or over 10× the catalog's median): --apply refuses them unless --allow-price-jumps`,
    ]);
  if (file.plan.missingSkipped) facts.push(['Note', file.plan.missingSkipped]);
  if (file.plan.replaceSkipped) facts.push(['Note', file.plan.replaceSkipped]);
  if (file.plan.stockSpared) facts.push(['Stock spared', file.plan.stockSpared]);
  return {
    title: 'Import products',
    runId: run.id,
    facts,
    counts: [
      ...Object.entries(counts),
      ...(applied
        ? ([
            ['created', applied.created],
            ['updated', applied.updated],
            ['hidden', applied.hidden],
            ['deleted', applied.deleted],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes,
    issues,
    review: productReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
    }),
  };
}

function writeProductReport(run: RunDirectory, file: ProductPlanFile, applied?: ProductApplySummary): void {
  writeReport(run.file('report'), reportInput(run, file, applied));
}

/**
 * The whole report (`--report FILE`): `.json` is the plan file itself; anything else is Markdown
 * with every change and every issue.
 */
export function writeFullProductReport(run: RunDirectory, file: ProductPlanFile, target: string): void {
  if (target.toLowerCase().endsWith('.json')) {
    writeFileSync(
      target,
      `${JSON.stringify({ runId: run.id, counts: productCounts(file), ...file }, null, 2)}\n`,
    );
    return;
  }
  writeFileSync(
    target,
    renderReport({
      ...reportInput(run, file),
      maxChanges: Number.MAX_SAFE_INTEGER,
      maxIssues: Number.MAX_SAFE_INTEGER,
    }),
  );
}

/**
 * Reads the products sheet (and options), the live catalog and the image memory, and plans (dry
 * run). Creates the run directory with plan.json, the input copies and report.md.
 */
export async function planProductImport(options: PlanProductsImportOptions): Promise<PlannedProductRun> {
  const { client } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await client.me(signal);
  const decimals = currencyDecimals(store.currency);
  const money = options.money ?? 'units';
  const decimalComma = options.decimalComma ?? false;
  const blank = options.blank ?? 'keep';
  const sheets = await readProductSheets({
    file: options.file,
    read: options.read,
    optionsFile: options.optionsFile,
    mapping: { decimals, money, decimalComma, blank, currency: store.currency },
    from: options.from,
    columnMap: options.columnMap,
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    signal: options.signal,
  });
  refuseEmptySheet(options.file, sheets.productRows, options.allowEmpty);
  const fetchStart = performance.now();
  const { catalog, raw } = await readLiveCatalog(client, options);
  const fetchSeconds = (performance.now() - fetchStart) / 1000;

  const planStart = performance.now();
  const memoryFile = imageMemoryFile(options.runsRoot, store.id);
  const { mapping } = sheets;
  const plan = planProducts(mapping.products, catalog, {
    decimals,
    missing: options.missing ?? 'ignore',
    replace: options.replace ?? {},
    imageMemory: readImageMemory(memoryFile),
    columnRefs: mapping.columnRefs,
    unkeyedRows: mapping.unkeyedRows,
    unkeyedOptionRows: mapping.unkeyedOptionRows,
    ...(sheets.exportedAt !== undefined && options.stock !== 'overwrite'
      ? { stockSince: sheets.exportedAt }
      : {}),
  });
  const before: Record<string, Product> = {};
  for (const e of plan.entries) {
    if (WRITES.has(e.action) && e.productId !== null) {
      const p = raw.get(e.productId);
      if (p !== undefined) before[e.productId] = JSON.parse(p) as Product;
    }
  }
  raw.clear();
  const guard = checkGuardrail(plan, plan.liveCount, { allowDeletes: options.allowDeletes ?? false });
  const priceJumps = findPriceJumps(plan, { decimals, median: medianCatalogPrice(catalog) });
  const allowPriceJumps = options.allowPriceJumps ?? false;
  const planSeconds = (performance.now() - planStart) / 1000;
  options.onProgress?.({ phase: 'plan', done: plan.entries.length });

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'products',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: {
      ...(options.read?.sheet ? { sheet: options.read.sheet } : {}),
      ...(options.optionsFile ? { optionsFile: options.optionsFile } : {}),
      ...(options.from ? { from: options.from } : {}),
      ...(options.columnMap ? { columnMap: options.columnMap } : {}),
      money,
      decimalComma,
      blank,
      missing: plan.options.missing,
      replace: plan.options.replace,
      allowDeletes: options.allowDeletes ?? false,
      allowPriceJumps,
      ...(options.allowEmpty ? { allowEmpty: true } : {}),
      stock: options.stock ?? 'protect',
    },
  });
  const info = sheets.products;
  const input = keepRunInput(run, options.file, 'products', info.format === 'xlsx' ? info.sheet : undefined);
  // The run re-reads its copy for results.csv: from the same header row.
  if (info.headerRow > 1) input.headerRow = info.headerRow;
  const file: ProductPlanFile = {
    kind: 'products',
    version: 1,
    store: { id: store.id, name: store.name, currency: store.currency },
    input,
    sheets: { products: sheets.productsLabel },
    read: { money, decimalComma, blank },
    imageMemoryFile: memoryFile,
    rows: sheets.rows,
    plan,
    issues: looseIssues(mapping),
    source: sheets.source,
    before,
  };
  if (sheets.skipped.length > 0) file.skippedRows = sheets.skipped;
  const src: OptionsSource = sheets.options;
  if (src.kind === 'workbook') file.optionsInput = { ...input, sheet: src.sheet };
  else if (src.kind === 'file') file.optionsInput = keepRunInput(run, src.file, 'options', src.sheet);
  if (sheets.optionsLabel !== undefined) file.sheets.options = sheets.optionsLabel;
  if (!guard.ok) file.refusal = guard.message;
  if (priceJumps.length > 0) file.priceJumps = priceJumps;
  run.writePlan(file);
  run.update({ counts: productCounts(file) });
  writeProductReport(run, file);
  const timings = { read: sheets.seconds, fetch: fetchSeconds, plan: planSeconds };
  const planned: PlannedProductRun = { run, file, store, timings };
  if (file.refusal) planned.refusal = file.refusal;
  if (priceJumps.length > 0 && !allowPriceJumps) planned.applyRefusal = priceJumpRefusal(priceJumps);
  return planned;
}

// ---------------------------------------------------------------------------------------------
// Apply

interface ProductOp {
  kind: 'product-create' | 'product-update' | 'product-hide' | 'product-delete';
  key: string;
  /** False for a PATCH whose variants/options create entries (a replay would create them twice). */
  idempotent: boolean;
  idempotencyKey?: string;
  /** Index of the entry in plan.entries. */
  index: number;
}

/** What an operation's journal record keeps. */
export interface ProductOpResult {
  id: string;
  /** Image source URL → stored URL learned from the answer. */
  images?: [string, string][];
}

export interface ApplyProductsOptions extends JobCallbacks {
  client: MerchantClient;
  concurrency?: number | undefined;
  /**
   * Write a plan with suspicious prices (`--allow-price-jumps`). Default false: a run that has not
   * started refuses (exit 3) unless it was planned with the flag; a started run (resume) goes on.
   */
  allowPriceJumps?: boolean | undefined;
  /** Write-time check: re-read a product before writing it once the plan is a few seconds old (see WriteCheck). */
  writeCheck?: WriteCheckOptions | undefined;
}

export interface ProductApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  updated: number;
  hidden: number;
  deleted: number;
  failed: number;
  unknown: number;
  notRun: number;
  /** Write requests sent by this session (one per operation executed; client retries not counted). */
  requests: number;
  rows: RowFilesSummary;
  /** Failed operations (by product). */
  failedOperations: { key: string; label: string; code: string; message: string; requestId?: string }[];
  /** Every failed or invalid input row. */
  failedRows: { sheet: string; row: number; code: string; message: string }[];
  /** Seconds spent writing. */
  seconds: number;
}

function buildOps(run: RunDirectory, plan: ProductPlan): ProductOp[] {
  const ops: ProductOp[] = [];
  plan.entries.forEach((e, index) => {
    switch (e.action) {
      case 'create':
        ops.push({
          kind: 'product-create',
          key: e.key,
          idempotent: true,
          idempotencyKey: idempotencyKey(run.id, e.key, e.body),
          index,
        });
        break;
      case 'update':
      case 'hide':
        ops.push({
          kind: `product-${e.action}`,
          key: e.key,
          idempotent: isIdempotentRequest('PATCH', e.body, undefined),
          index,
        });
        break;
      case 'delete':
        ops.push({ kind: 'product-delete', key: e.key, idempotent: true, index });
        break;
      default:
        break;
    }
  });
  return ops;
}

function learnedImages(entry: PlanEntry, stored: readonly string[]): [string, string][] | undefined {
  if (!entry.imageUploads || entry.imageUploads.length === 0) return undefined;
  const pairs: [string, string][] = [];
  for (const u of entry.imageUploads) {
    const s = stored[u.index];
    if (s !== undefined && s !== u.source) pairs.push([u.source, s]);
  }
  return pairs.length > 0 ? pairs : undefined;
}

/** The journaled result of an update/hide: the id, and what the service made of uploaded images. */
function patchResult(entry: PlanEntry, p: Product): ProductOpResult {
  const images = learnedImages(entry, p.images);
  return images ? { id: p.id, images } : { id: p.id };
}

/** Reads a run's plan.json as a product plan (throws when the run is not a products run). */
export function readProductPlan(run: RunDirectory): ProductPlanFile {
  const file = run.readPlan() as ProductPlanFile;
  if (file.kind !== 'products' || file.plan?.format !== 'merchant-bulk/product-plan') {
    throw new Error(`${run.dir} is not a products run (its plan.json is of kind ${String(file.kind)})`);
  }
  return file;
}

/**
 * Applies (or resumes) a planned products run: one operation per writing entry, journaled. Creates
 * are keyed POSTs (a replay after a lost answer is answered from the service's memory), updates and
 * hides are PATCHes of absolute values, deletes are DELETEs: safe to replay. A PATCH whose variants
 * or options create entries is not: when its answer is lost it is reconciled (the product re-read,
 * see reconcileProductPatch) and never resent blindly, so a resumed run never writes anything twice. The before-state of each product is saved first (backup).
 * Works on a RunDirectory loaded from disk in a new process.
 */
export async function applyProductRun(
  run: RunDirectory,
  options: ApplyProductsOptions,
): Promise<ProductApplySummary> {
  const started = performance.now();
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = readProductPlan(run);
  if (file.refusal) throw new RefusedError(file.refusal);
  const consented = options.allowPriceJumps === true || run.meta.options['allowPriceJumps'] === true;
  if (file.priceJumps && file.priceJumps.length > 0 && !consented && run.refresh().status === 'planned') {
    throw new RefusedError(priceJumpRefusal(file.priceJumps));
  }
  const { plan } = file;
  const ops = buildOps(run, plan);
  const signal = options.signal ? { signal: options.signal } : {};
  let requests = 0;
  const backup = BackupLog.open(run.file('backupLog'));
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  // One catalog listing (both statuses) vs one get-one per update/hide/delete.
  check.preferListing(
    Math.ceil(plan.liveCount / 100) + 1,
    ops.filter((o) => o.kind !== 'product-create').length,
  );
  async function writeProduct(op: ProductOp, entry: PlanEntry, id: string | null): Promise<ProductOpResult> {
    backup.record([
      {
        type: 'product',
        id: id ?? entry.key,
        before: id !== null ? (file.before[id] ?? null) : null,
      },
    ]);
    await backup.flush();
    requests++;
    switch (op.kind) {
      case 'product-create': {
        // Writes get no abort signal: a stop lets those in flight finish and be journaled.
        const p = await client.products.create(entry.body as ProductCreate, {
          idempotencyKey: op.idempotencyKey,
        });
        const images = learnedImages(entry, p.images);
        return images ? { id: p.id, images } : { id: p.id };
      }
      case 'product-update':
      case 'product-hide': {
        const p = await client.products.update(id as string, entry.body as ProductUpdate);
        return patchResult(entry, p);
      }
      case 'product-delete':
        await client.products.delete(id as string);
        return { id: id as string };
    }
  }
  let summary: ExecuteSummary<ProductOp, ProductOpResult>;
  try {
    summary = await applyRun<ProductOp, ProductOpResult>(run, ops, {
      concurrency: options.concurrency ?? 4,
      ...signal,
      keyOf: (op) => op.key,
      execute: async (op, ctx) => {
        const entry = plan.entries[op.index] as PlanEntry;
        const id = entry.productId;
        // An absolute write whose earlier attempt has no known outcome is re-sent only while the
        // product is as planned; already holding the change settles it, anything else is drifted.
        if (ctx.previous === 'unknown' && op.kind !== 'product-create') {
          const live = await settleProductReplay(client, check, entry, op.kind);
          if (live === 'deleted') return { id: id as string };
          if (live) return patchResult(entry, live);
        }
        // Refuse (nothing sent) a write whose product changed since planning: not overwritten.
        if (check.due(ctx)) {
          if (op.kind === 'product-create') await refuseExistingProduct(client, check, entry);
          else await refuseChangedProduct(client, check, entry);
        }
        return writeProduct(op, entry, id);
      },
      // A PATCH that creates variants/options and lost its answer: re-read the product and decide.
      // Creates (keyed POSTs past the key's window) and deletes are left unknown, as before.
      reconcile: async (op) => {
        const entry = plan.entries[op.index] as PlanEntry;
        if (op.kind !== 'product-update' && op.kind !== 'product-hide') {
          throw new Error(
            `could not tell whether the ${op.kind.slice('product-'.length)} of ${entry.label} (${op.key}) reached the store; check it, it will not be resent`,
          );
        }
        const decision = await reconcileProductPatch(client, entry, signal);
        return decision === 'not_applied' ? decision : { done: patchResult(entry, decision.applied) };
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

  // Remember what the service made of the uploaded images (also from a previous session's journal).
  const pairs: [string, string][] = [];
  for (const o of summary.outcomes)
    if (o.status === 'done' && o.result?.images) pairs.push(...o.result.images);
  if (pairs.length > 0) rememberImages(file.imageMemoryFile, pairs);

  const byKey = new Map<string, OperationOutcome<ProductOp, ProductOpResult>>();
  for (const o of summary.outcomes) byKey.set(o.key, o);
  const counts = { created: 0, updated: 0, hidden: 0, deleted: 0, failed: 0, unknown: 0, notRun: 0 };
  const failedOperations: ProductApplySummary['failedOperations'] = [];
  for (const o of summary.outcomes) {
    const entry = plan.entries[o.op.index] as PlanEntry;
    if (o.status === 'done') {
      if (o.op.kind === 'product-create') counts.created++;
      else if (o.op.kind === 'product-update') counts.updated++;
      else if (o.op.kind === 'product-hide') counts.hidden++;
      else counts.deleted++;
      continue;
    }
    if (o.status === 'not_run') {
      counts.notRun++;
      continue;
    }
    counts.failed++;
    if (o.status === 'unknown') counts.unknown++;
    const f: ProductApplySummary['failedOperations'][number] = {
      key: o.key,
      label: entry.label,
      code: o.status === 'unknown' ? 'outcome_unknown' : (o.error.code ?? o.error.type ?? 'failed'),
      message: o.error?.message ?? 'no answer',
    };
    if (o.error?.requestId) f.requestId = o.error.requestId;
    failedOperations.push(f);
  }
  const rowFiles = await writeProductResults(run, file, byKey);
  const result: ProductApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    ...counts,
    requests,
    rows: rowFiles.summary,
    failedOperations,
    failedRows: rowFiles.failedRows,
    seconds: (performance.now() - started) / 1000,
  };
  run.update({
    counts: {
      ...run.meta.counts,
      created: counts.created,
      updated: counts.updated,
      hidden: counts.hidden,
      deleted: counts.deleted,
      failed: counts.failed,
      requests,
    },
  });
  writeProductReport(run, file, result);
  return result;
}

/** The runs root of a run directory (its parent). */
export function runsRootOf(run: RunDirectory): string {
  return dirname(run.dir);
}

export interface ReplanProductsOptions extends JobCallbacks {
  client: MerchantClient;
  /** Where the new run writes, for people (never the token). */
  target: string;
}

/**
 * Plans a saved run again against the store as it is now (`mbulk apply RUN --replan`): the run's
 * own copy of the input, with the options it was planned with, into a new run beside it.
 */
export async function replanProductRun(
  run: RunDirectory,
  options: ReplanProductsOptions,
): Promise<PlannedProductRun> {
  const file = readProductPlan(run);
  const o = run.meta.options;
  const optionsCopy =
    file.optionsInput && file.optionsInput.copy !== file.input.copy
      ? runInputPath(run, file.optionsInput)
      : undefined;
  const replace = o['replace'] as { variants?: boolean; options?: boolean; images?: boolean } | undefined;
  return planProductImport({
    client: options.client,
    file: runInputPath(run, file.input),
    runsRoot: runsRootOf(run),
    target: options.target,
    read: {
      ...(file.input.sheet ? { sheet: file.input.sheet } : {}),
      ...(file.input.headerRow ? { headerRow: file.input.headerRow } : {}),
    },
    optionsFile: optionsCopy,
    from: o['from'] as ProductSourceFormat | undefined,
    columnMap: o['columnMap'] as ColumnMap | undefined,
    money: file.read.money,
    decimalComma: file.read.decimalComma,
    blank: file.read.blank,
    replace: replace ?? file.plan.options.replace,
    missing: file.plan.options.missing,
    allowDeletes: o['allowDeletes'] === true,
    allowPriceJumps: o['allowPriceJumps'] === true,
    allowEmpty: o['allowEmpty'] === true,
    stock: o['stock'] === 'overwrite' ? 'overwrite' : 'protect',
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    signal: options.signal,
  });
}
