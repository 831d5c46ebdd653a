import { writeFileAtomic } from '../../files/atomic-file.js';
import { renderReport, writeReport, type ReportInput } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { summarizeColumns } from '../../formats/source-description.js';
import { formatRowIssue } from '../../mapping/row-issue.js';
import { deletesFirst } from '../../plan/deletes-first.js';
import { describeChange } from '../../plan/describe-changes.js';
import { productEntryChange } from '../../plan/plan-changes.js';
import type { PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import { productReview } from '../../report/product-review.js';
import type { ReviewBody } from '../../report/review-page.js';
import { stockUnknownMessage } from '../../plan/stock-unknown.js';
import { formatMoney } from '../../sheets/money.js';
import type { ProductPlanFile } from './product-plan-file.js';

/** What the report shows of an apply. */
interface AppliedProducts {
  status: 'completed' | 'interrupted' | 'aborted';
  notRun: number;
  /** Plan entries not written, by key: `pending`, `failed: code: message`. */
  notWritten: Readonly<Record<string, string>>;
  created: number;
  updated: number;
  hidden: number;
  deleted: number;
  failed: number;
  requests: number;
  failedOperations: { label: string; code: string; message: string }[];
}

/**
 * What became of every row read, in one vocabulary: `in the plan` (rows of products to create,
 * update, hide, delete or leave unchanged), `left out` (rows a platform export's conversion does
 * not import: gift cards, grouped products, repeated rows…), `marked skip` (rows of products the
 * sheet marks `skip`) and `invalid`; they add up to `read`.
 */
export interface ProductRowTally {
  read: number;
  inPlan: number;
  leftOut: number;
  markedSkip: number;
  invalid: number;
}

export function productRowTally(
  file: Pick<ProductPlanFile, 'plan' | 'issues' | 'rows' | 'skippedRows'>,
): ProductRowTally {
  // A plan's report, counts and terminal lines each ask for it (a million rows: once is enough).
  const known = tallies.get(file.plan.entries);
  if (
    known !== undefined &&
    known.issues === file.issues &&
    known.entryCount === file.plan.entries.length &&
    known.issueCount === file.issues.length
  )
    return { ...known.tally, read: file.rows, leftOut: file.skippedRows?.length ?? 0 };
  const tally = countRows(file);
  tallies.set(file.plan.entries, {
    issues: file.issues,
    entryCount: file.plan.entries.length,
    issueCount: file.issues.length,
    tally,
  });
  return { ...tally };
}

/** The last tally of each plan's entries (see productRowTally). */
const tallies = new WeakMap<
  readonly unknown[],
  { issues: readonly unknown[]; entryCount: number; issueCount: number; tally: ProductRowTally }
>();

function countRows(file: Pick<ProductPlanFile, 'plan' | 'issues' | 'rows' | 'skippedRows'>): ProductRowTally {
  // What each row is, as bits by sheet and row number (a million rows: ~1 MB, no key strings).
  const marks = new RowMarks();
  for (const e of file.plan.entries) {
    const bit = e.action === 'invalid' ? INVALID : e.action === 'skip' ? SKIP : IN_PLAN;
    for (const r of e.rows) marks.mark(r.sheet, r.rowNumber, bit);
  }
  for (const i of file.issues) if (i.severity === 'error') marks.mark(i.sheet, i.rowNumber, INVALID);
  let inPlan = 0;
  let markedSkip = 0;
  let invalid = 0;
  marks.forEach((m) => {
    // An invalid row is neither in the plan nor marked skip.
    if ((m & INVALID) !== 0) invalid++;
    else {
      if ((m & IN_PLAN) !== 0) inPlan++;
      if ((m & SKIP) !== 0) markedSkip++;
    }
  });
  return {
    read: file.rows,
    inPlan,
    leftOut: file.skippedRows?.length ?? 0,
    markedSkip,
    invalid,
  };
}

const IN_PLAN = 1;
const SKIP = 2;
const INVALID = 4;

/**
 * Bits per (sheet, row number): one growing byte array a sheet, row numbers as indexes (a row
 * number that cannot be an index, never seen in practice, is kept by a string key instead).
 */
class RowMarks {
  private readonly sheets = new Map<string, Uint8Array>();
  private readonly odd = new Map<string, number>();

  mark(sheet: string, rowNumber: number, bit: number): void {
    if (!Number.isSafeInteger(rowNumber) || rowNumber < 0 || rowNumber > 1 << 28) {
      const key = `${sheet}\0${rowNumber}`;
      this.odd.set(key, (this.odd.get(key) ?? 0) | bit);
      return;
    }
    let bytes = this.sheets.get(sheet);
    if (bytes === undefined || rowNumber >= bytes.length) {
      const grown = new Uint8Array(Math.max(1024, rowNumber + 1, (bytes?.length ?? 0) * 2));
      if (bytes !== undefined) grown.set(bytes);
      bytes = grown;
      this.sheets.set(sheet, bytes);
    }
    bytes[rowNumber] = (bytes[rowNumber] ?? 0) | bit;
  }

  forEach(f: (marks: number) => void): void {
    for (const bytes of this.sheets.values()) for (const m of bytes) if (m !== 0) f(m);
    for (const m of this.odd.values()) f(m);
  }
}

/** `124 read = 82 in the plan + 42 left out + 0 marked skip + 0 invalid` */
export function formatRowTally(t: ProductRowTally): string {
  return `${t.read} read = ${t.inPlan} in the plan + ${t.leftOut} left out + ${t.markedSkip} marked skip + ${t.invalid} invalid`;
}

/**
 * Counts (run.json, terminal, report, JSON): products per action (`unchanged`, and `marked skip`
 * for products the sheet marks skip), then rows: read, left out by a conversion, invalid.
 */
export function productCounts(
  file: Pick<ProductPlanFile, 'plan' | 'issues' | 'rows' | 'skippedRows'>,
): Record<string, number> {
  const s = file.plan.summary;
  const rows = productRowTally(file);
  return {
    rows: file.rows,
    create: s.create,
    update: s.update,
    hide: s.hide,
    delete: s.delete,
    noop: s.noop,
    'marked skip': s.skip,
    invalid: s.invalid,
    'rows left out': rows.leftOut,
    'invalid rows': rows.invalid,
  };
}

export const WRITES = new Set(['create', 'update', 'hide', 'delete']);

/** Entries that write. */
export function writeEntries(plan: ProductPlan): PlanEntry[] {
  return plan.entries.filter((e) => WRITES.has(e.action));
}

/**
 * `update ERP-0000001 (row 2): price: 11.90 → 12.50` lines of an entry. `name`: the product's
 * name (a delete or a hide names the live product: `delete Gula Melaka Latte (ERP-0000001)`).
 */
export function describeProductEntry(entry: PlanEntry, decimals: number, name?: string): string[] {
  const where = entry.rows[0]
    ? ` (row ${entry.rows[0].rowNumber})`
    : entry.reason
      ? ` (${entry.reason})`
      : '';
  const named =
    name !== undefined && name !== '' && name !== entry.label ? `${name} (${entry.label})` : entry.label;
  const head = `${entry.action} ${named}${where}`;
  // Read as the MCP tools read it (plan-changes.ts): the same fields, the same values.
  const lines = productEntryChange(entry).fields.map((c) => describeChange(c, decimals));
  if (lines.length === 0) return [head];
  return lines.map((l) => `${head}: ${l}`);
}

/** The live name of the product a delete or a hide removes (undefined for other actions). */
export function liveName(
  file: Pick<ProductPlanFile, 'before'>,
  entry: Pick<PlanEntry, 'action' | 'productId'>,
): string | undefined {
  if ((entry.action !== 'delete' && entry.action !== 'hide') || entry.productId === null) return undefined;
  return file.before?.[entry.productId]?.name;
}

/** One line for a create (the terminal shows creates compactly): name, price, variants, options, images. */
export function summarizeCreate(entry: Extract<PlanEntry, { action: 'create' }>, decimals: number): string {
  const where = entry.rows[0] ? ` (row ${entry.rows[0].rowNumber})` : '';
  const { body } = entry;
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

/**
 * A platform export's prices carry no currency: `read as MYR, the store's currency` (terminal,
 * report, review page, JSON), so a migration into a store of another currency is seen before it is
 * written. Undefined for the project's own sheets (their money cells may name the currency).
 */
export function amountsNote(file: Pick<ProductPlanFile, 'source' | 'store'>): string | undefined {
  const format = file.source?.format;
  if (format !== 'shopify' && format !== 'woocommerce') return undefined;
  return `read as ${file.store.currency}, the store's currency (the export does not say which currency its prices are in)`;
}

/** Report lines about the source: its format, header row and what each column became. */
function sourceFacts(file: ProductPlanFile): [string, string][] {
  const src = file.source;
  if (src === undefined) return [];
  const { imported, notImported } = summarizeColumns(src.columns);
  const facts: [string, string][] = [['Format', src.label]];
  const amounts = amountsNote(file);
  if (amounts !== undefined) facts.push(['Amounts', amounts]);
  if (src.headerRow > 1) facts.push(['Header row', String(src.headerRow)]);
  facts.push(['Columns imported', imported], ['Columns not imported', notImported]);
  if (file.skippedRows?.length)
    facts.push([
      'Rows left out',
      `${file.skippedRows.length} (rows the conversion does not import: gift cards, grouped or unpriced products, repeated rows; results.csv marks them left_out)`,
    ]);
  facts.push(['Rows', formatRowTally(productRowTally(file))]);
  return facts;
}

function reportInput(run: RunDirectory, file: ProductPlanFile, applied?: AppliedProducts): ReportInput {
  const counts = productCounts(file);
  const changes: string[] = [];
  for (const e of deletesFirst(file.plan.entries)) {
    if (WRITES.has(e.action)) changes.push(...describeProductEntry(e, file.plan.decimals, liveName(file, e)));
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
    ...(file.plan.stockUnknown
      ? [['Stock unknown', stockUnknownMessage(file.plan.stockUnknown)] as [string, string]]
      : []),
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
  if (file.plan.stockChoicesUnused) facts.push(['Note', file.plan.stockChoicesUnused]);
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
    review: withRowNote(
      productReview(file, {
        applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
        failedWritten: applied !== undefined,
        priceJumpsAllowed: run.meta.options['allowPriceJumps'] === true,
        // The page shows the counts of this state only: planned, or done (one "invalid rows").
        counts: applied
          ? [
              ['created', applied.created],
              ['updated', applied.updated],
              ['hidden', applied.hidden],
              ['deleted', applied.deleted],
              ['failed', applied.failed],
              ['pending', applied.notRun],
            ]
          : Object.entries(counts).flatMap(([label, n]): [string, number][] =>
              label === 'rows' || label === 'invalid' ? [] : [[label === 'noop' ? 'unchanged' : label, n]],
            ),
        ...(applied ? { applied: { notWritten: applied.notWritten } } : {}),
        ...(applied && applied.status !== 'completed'
          ? { resumeCommand: `mbulk runs resume ${run.id}` }
          : {}),
      }),
      file,
    ),
  };
}

/** The review page says what became of the rows, in the words the terminal and report use. */
function withRowNote(review: ReviewBody, file: ProductPlanFile): ReviewBody {
  const tally = productRowTally(file);
  const notes = [`Rows: ${formatRowTally(tally)}`];
  if (tally.leftOut > 0)
    notes.push(
      `${tally.leftOut} row${tally.leftOut === 1 ? '' : 's'} left out by the conversion (gift cards, grouped or unpriced products, repeated rows), each with its reason in results.csv (left_out)`,
    );
  return { ...review, notes: [...notes, ...(review.notes ?? [])] };
}

/** report.html / report.md of a products run: the plan, and after an apply what was written. */
export function writeProductReport(
  run: RunDirectory,
  file: ProductPlanFile,
  applied?: AppliedProducts,
): void {
  writeReport(run.file('report'), reportInput(run, file, applied));
}

/**
 * The whole report (`--report FILE`): `.json` is the plan file itself; anything else is Markdown
 * with every change and every issue.
 */
export function writeFullProductReport(run: RunDirectory, file: ProductPlanFile, target: string): void {
  if (target.toLowerCase().endsWith('.json')) {
    writeFileAtomic(
      target,
      `${JSON.stringify({ runId: run.id, counts: productCounts(file), ...file }, null, 2)}\n`,
    );
    return;
  }
  writeFileAtomic(target, renderReport(reportInput(run, file)));
}
