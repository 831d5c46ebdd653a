import { writeFileSync } from 'node:fs';
import { renderReport, writeReport, type ReportInput } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { summarizeColumns } from '../../formats/source-description.js';
import { formatRowIssue } from '../../mapping/row-issue.js';
import { describeChanges } from '../../plan/describe-changes.js';
import type { PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import { productReview } from '../../report/product-review.js';
import { formatMoney } from '../../sheets/money.js';
import type { ProductPlanFile } from './product-plan-file.js';

/** What the report shows of an apply. */
interface AppliedProducts {
  created: number;
  updated: number;
  hidden: number;
  deleted: number;
  failed: number;
  requests: number;
  failedOperations: { label: string; code: string; message: string }[];
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

export const WRITES = new Set(['create', 'update', 'hide', 'delete']);

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

function reportInput(run: RunDirectory, file: ProductPlanFile, applied?: AppliedProducts): ReportInput {
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
    writeFileSync(
      target,
      `${JSON.stringify({ runId: run.id, counts: productCounts(file), ...file }, null, 2)}\n`,
    );
    return;
  }
  writeFileSync(target, renderReport(reportInput(run, file)));
}
