import { join } from 'node:path';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import {
  invalidRowResult,
  operationRowResult,
  writeRowFiles,
  type RowFilesSummary,
  type RowResult,
} from '../../apply/results-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { PlanEntry } from '../../plan/product-plan.js';
import { readSheet, type SheetInfo } from '../../sheets/read-sheet.js';
import type { SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import type { ProductOpResult, ProductPlanFile } from './product-plan-file.js';
import { runInputPath, type RunInput } from '../run-input.js';

/** Where a products run keeps failed rows of its options sheet (beside failed.csv). */
export function failedOptionsFile(run: RunDirectory): string {
  return join(run.dir, 'failed-options.csv');
}

type Role = 'products' | 'options';

function rowKey(role: Role, row: number): string {
  return `${role}:${row}`;
}

/**
 * A row whose product was written (or already as planned) still says what of it was left out on
 * purpose: images past the tenth with `--images first-10`, each URL named.
 */
function withNote(result: RowResult, rowIssues: readonly RowIssue[]): RowResult {
  if (result.errorCode !== undefined) return result;
  const note = rowIssues.find((i) => i.code === 'images_dropped');
  if (note === undefined) return result;
  return {
    ...result,
    errorCode: note.code,
    errorMessage: note.message,
    ...(note.column ? { column: note.column } : {}),
  };
}

/** What the rows of one entry get when its operation settled (or not). */
function entryRowResult(
  entry: PlanEntry,
  sheet: string,
  row: number,
  rowIssues: readonly RowIssue[],
  outcome: OperationOutcome<unknown, ProductOpResult> | undefined,
): RowResult {
  const key = entry.label;
  switch (entry.action) {
    case 'invalid': {
      if (rowIssues.some((i) => i.severity === 'error')) return invalidRowResult(sheet, row, rowIssues, key);
      const first = entry.issues.find((i) => i.severity === 'error');
      const r: RowResult = {
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
      const r: RowResult = { sheet, row, outcome: 'unchanged', key };
      if (entry.productId !== null) r.entityId = entry.productId;
      return withNote(r, rowIssues);
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
    default: {
      const success = {
        outcome: entry.action === 'create' ? ('created' as const) : ('updated' as const),
        key,
        ...(outcome?.status === 'done' && outcome.result?.id
          ? { entityId: outcome.result.id }
          : entry.productId !== null
            ? { entityId: entry.productId }
            : {}),
      };
      if (outcome === undefined) {
        return {
          sheet,
          row,
          outcome: 'skipped',
          key,
          errorCode: 'not_run',
          errorMessage: 'Not applied: the run stopped first. Resume the run to apply it.',
        };
      }
      return withNote(operationRowResult(sheet, row, outcome, success), rowIssues);
    }
  }
}

async function* chain(...sources: (AsyncIterable<SheetRow> | undefined)[]): AsyncIterable<SheetRow> {
  for (const s of sources) if (s) yield* s;
}

async function openCopy(run: RunDirectory, input: RunInput) {
  const reader = readSheet(runInputPath(run, input), {
    ...(input.sheet ? { sheet: input.sheet } : {}),
    ...(input.headerRow ? { headerRow: input.headerRow } : {}),
  });
  const info: SheetInfo = await reader.open();
  return { reader, info };
}

/**
 * results.csv (every input row of both sheets: created / updated / unchanged / skipped / failed /
 * invalid, with the product id, the error and its cell) and failed.csv (failed and invalid rows of
 * the products sheet in its own columns; options rows go to failed-options.csv), by re-reading the
 * run's copy of the input.
 */
export async function writeProductResults(
  run: RunDirectory,
  file: ProductPlanFile,
  outcomes: ReadonlyMap<string, OperationOutcome<unknown, ProductOpResult>>,
): Promise<{
  summary: RowFilesSummary;
  failedRows: { sheet: string; row: number; code: string; message: string }[];
}> {
  const labels: Record<Role, string> = {
    products: file.sheets.products,
    options: file.sheets.options ?? 'options',
  };
  const roleOf = (sheet: string): Role => (sheet === file.sheets.products ? 'products' : 'options');
  const issuesByRow = new Map<string, RowIssue[]>();
  const addIssue = (i: RowIssue) => {
    const k = rowKey(roleOf(i.sheet), i.rowNumber);
    const list = issuesByRow.get(k);
    if (list) list.push(i);
    else issuesByRow.set(k, [i]);
  };
  for (const i of file.issues) addIssue(i);
  for (const e of file.plan.entries) for (const i of e.issues) addIssue(i);

  const results = new Map<string, RowResult>();
  for (const e of file.plan.entries) {
    const outcome = outcomes.get(e.key);
    for (const r of e.rows) {
      const role = roleOf(r.sheet);
      const k = rowKey(role, r.rowNumber);
      results.set(k, entryRowResult(e, labels[role], r.rowNumber, issuesByRow.get(k) ?? [], outcome));
    }
  }
  // Rows a format conversion left out on purpose (gift cards, grouped products, repeated rows).
  for (const r of file.skippedRows ?? []) {
    const k = rowKey('products', r.rowNumber);
    if (!results.has(k)) {
      results.set(k, {
        sheet: labels.products,
        row: r.rowNumber,
        outcome: 'left_out',
        errorCode: r.code,
        errorMessage: r.message,
      });
    }
  }
  // Rows that belong to no product (no key, an option row naming an unknown product).
  for (const i of file.issues) {
    if (i.severity !== 'error') continue;
    const role = roleOf(i.sheet);
    const k = rowKey(role, i.rowNumber);
    if (results.has(k)) continue;
    const rowIssues = (issuesByRow.get(k) ?? []).filter((x) => x.severity === 'error');
    results.set(k, invalidRowResult(labels[role], i.rowNumber, rowIssues));
  }

  const products = await openCopy(run, file.input);
  const options = file.optionsInput ? await openCopy(run, file.optionsInput) : undefined;
  const readRole = (sheet: string): Role =>
    options !== undefined && sheet === options.info.sheet && sheet !== products.info.sheet
      ? 'options'
      : 'products';
  type FailedFile = { file: string; columns: readonly SheetColumn[]; delimiter?: string | undefined };
  const failedFiles: Record<string, FailedFile> = {
    [products.info.sheet]: {
      file: run.file('failed'),
      columns: products.info.columns,
      delimiter: products.info.delimiter,
    },
  };
  if (options !== undefined && options.info.sheet !== products.info.sheet) {
    failedFiles[options.info.sheet] = {
      file: failedOptionsFile(run),
      columns: options.info.columns,
      delimiter: options.info.delimiter,
    };
  }
  const failedRows: { sheet: string; row: number; code: string; message: string }[] = [];
  const summary = await writeRowFiles({
    rows: chain(products.reader, options?.reader),
    resultOf: (row) => {
      const role = readRole(row.sheet);
      const r = results.get(rowKey(role, row.rowNumber)) ?? {
        sheet: labels[role],
        row: row.rowNumber,
        outcome: 'unchanged' as const,
      };
      if (r.outcome === 'failed' || r.outcome === 'invalid') {
        failedRows.push({
          sheet: r.sheet,
          row: r.row,
          code: r.errorCode ?? r.outcome,
          message: r.errorMessage ?? '',
        });
      }
      return r;
    },
    resultsFile: run.file('results'),
    failedFiles,
  });
  return { summary, failedRows };
}
