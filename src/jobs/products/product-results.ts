import { join } from 'node:path';
import { invalidRowResult } from '../../results/row-result.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { PlanEntry } from '../../plan/product-plan.js';
import type { DeclaredRow, ResultSheet, SheetResults } from '../../results/sheet-results.js';
import type { ProductPlanFile } from './product-plan-file.js';

/** Where a products run keeps failed rows of its options sheet (beside failed.csv). */
export function failedOptionsFile(run: RunDirectory): string {
  return join(run.dir, 'failed-options.csv');
}

/**
 * results.csv and the failed-rows files of a products run: every row of the products sheet, then
 * of the options sheet (its failed rows go to failed-options.csv). The rows of a product that
 * writes get their results from its change; the others are declared here: a product's rows that
 * are invalid, unchanged or skipped, rows a format conversion left out, rows of no product.
 */
export function productResults(run: RunDirectory, file: ProductPlanFile): SheetResults {
  const labels = { products: file.sheets.products, options: file.sheets.options ?? 'options' };
  const sheets: ResultSheet[] = [
    { input: file.input, label: labels.products, failedFile: run.file('failed') },
  ];
  if (file.optionsInput) {
    sheets.push({ input: file.optionsInput, label: labels.options, failedFile: failedOptionsFile(run) });
  }
  const labelOf = (sheet: string) => (sheet === labels.products ? labels.products : labels.options);
  const issuesByRow = new Map<string, RowIssue[]>();
  const addIssue = (i: RowIssue) => {
    const k = `${labelOf(i.sheet)}:${i.rowNumber}`;
    const list = issuesByRow.get(k);
    if (list) list.push(i);
    else issuesByRow.set(k, [i]);
  };
  for (const i of file.issues) addIssue(i);
  for (const e of file.plan.entries) for (const i of e.issues) addIssue(i);

  // Later rows replace earlier ones: a product's own rows over the others.
  const rows: DeclaredRow[] = [];
  // Rows that belong to no product (no key, an option row naming an unknown product).
  for (const i of file.issues) {
    if (i.severity !== 'error') continue;
    const sheet = labelOf(i.sheet);
    const errors = (issuesByRow.get(`${sheet}:${i.rowNumber}`) ?? []).filter((x) => x.severity === 'error');
    rows.push(invalidRowResult(sheet, i.rowNumber, errors));
  }
  // Rows a format conversion left out on purpose (gift cards, grouped products, repeated rows).
  for (const r of file.skippedRows ?? []) {
    rows.push({
      sheet: labels.products,
      row: r.rowNumber,
      outcome: 'left_out',
      errorCode: r.code,
      errorMessage: r.message,
    });
  }
  for (const e of file.plan.entries) {
    for (const r of e.rows) {
      const sheet = labelOf(r.sheet);
      const result = entryRowResult(e, sheet, r.rowNumber, issuesByRow.get(`${sheet}:${r.rowNumber}`) ?? []);
      if (result) rows.push(result);
    }
  }
  // A row whose product was written (or already as planned) still says what of it was left out on
  // purpose: images past the tenth with `--images first-10` (or a WooCommerce variation's), each URL
  // named; SKUs not given to later variants with `--duplicate-sku first`.
  const notes = file.plan.entries.flatMap((e) =>
    e.issues.filter((i) => i.severity === 'warning' && NOTED.has(i.code)),
  );
  return { sheets, rows, ...(notes.length > 0 ? { notes } : {}) };
}

/** Warnings that results.csv repeats on their row whatever the product's outcome. */
const NOTED = new Set(['images_dropped', 'variation_images_dropped', 'duplicate_variant_sku']);

/** What a row of a product that does not write becomes (undefined: the product writes). */
function entryRowResult(
  entry: PlanEntry,
  sheet: string,
  row: number,
  rowIssues: readonly RowIssue[],
): DeclaredRow | undefined {
  const key = entry.label;
  switch (entry.action) {
    case 'invalid': {
      if (rowIssues.some((i) => i.severity === 'error')) return invalidRowResult(sheet, row, rowIssues, key);
      const first = entry.issues.find((i) => i.severity === 'error');
      const r: DeclaredRow = {
        sheet,
        row,
        outcome: 'invalid',
        key,
        errorCode: 'product_invalid',
        errorMessage: `not written: ${first ? `${first.sheet} row ${first.rowNumber}${first.column ? ` column ${first.column}` : ''} of this product has an error: ${first.message}` : 'this product has errors'}`,
      };
      if (entry.productId !== null) r.entityId = entry.productId;
      return r;
    }
    case 'noop': {
      const r: DeclaredRow = { sheet, row, outcome: 'unchanged', key };
      if (entry.productId !== null) r.entityId = entry.productId;
      return r;
    }
    case 'skip':
      return {
        sheet,
        row,
        outcome: 'skipped',
        key,
        errorCode: 'skip',
        errorMessage: 'marked skip (command skip)',
      };
    default:
      return undefined;
  }
}
