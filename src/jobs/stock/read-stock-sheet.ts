import type { SheetInfo } from '../../sheets/read-sheet.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import {
  openInputSheet,
  type InputSheet,
  type InputSheetSteps,
  type PlanFromSheetOptions,
} from '../runner/plan-from-sheet.js';
import { readRowsInBatches } from '../runner/read-input.js';

/** Longest pause between two batches read early. */
const EARLY_PAUSE_MS = 100;

/**
 * Rows read while a kind's `take` is still getting ready (reading the live store): kept in a form
 * of the kind's own, then handed to what `take` returned, in their order, before the rows after them.
 */
export interface EarlyRows<Rows> {
  add(row: SheetRow): void;
  /** Whether what is kept reached the kind's bound: read no further until `take` is ready. */
  readonly full: boolean;
  /** Hands the rows kept, in their order, to what `take` returned. */
  replay(into: Rows): void;
}

/**
 * Reads the stock sheet as readInputSheet does, but (when `early` gives somewhere to keep them) while `take` gets ready (reading the live
 * inventory): its rows go to what `early` returns (up to its bound), a batch at a time with pauses
 * between (four times the batch's time, so that the live read's pages are answered with little
 * delay), and are replayed into what `take` returns once it is ready. The outcome is the same as
 * readInputSheet's: the same rows in the same order, and the same error first (the live read's when
 * both fail; a sheet error is thrown once `take` is ready).
 */
export async function readStockSheet<Columns, Rows extends { add(row: SheetRow): void }>(
  options: PlanFromSheetOptions,
  steps: InputSheetSteps<Columns, Rows> & {
    early(columns: Columns, info: SheetInfo): EarlyRows<NoInfer<Rows>> | undefined;
  },
): Promise<InputSheet<Columns, Rows>> {
  const { reader, info, columns, issues } = await openInputSheet(options, steps);
  const early = steps.early(columns, info);
  if (early === undefined) {
    const taken = await steps.take(columns, info);
    const rows = await readRowsInBatches(reader, options.file, options, (row) => taken.add(row));
    return { info, rows, columns, headerIssues: issues, taken };
  }
  const batches = reader.batches()[Symbol.asyncIterator]();
  let ready = false;
  const taking = Promise.resolve()
    .then(() => steps.take(columns, info))
    .finally(() => (ready = true));
  // Settles with `taking`, never rejects: awaited below, its failure must not count as unhandled.
  const settled = taking.then(
    () => undefined,
    () => undefined,
  );
  let earlyRows = 0;
  let sheetError: { error: unknown } | undefined;
  try {
    let spent = 0;
    while (!ready && !early.full) {
      // The live read's answers come first: after a batch, a pause four times as long as it took
      // (at most EARLY_PAUSE_MS), ended early by `take` getting ready. At full speed a million
      // rows slowed the first two seconds of the live read's requests by a third.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise((resolve) => (timer = setTimeout(resolve, Math.min(EARLY_PAUSE_MS, 4 * spent)))),
        settled,
      ]);
      clearTimeout(timer);
      if (ready) break;
      const started = performance.now();
      const next = await batches.next();
      if (next.done === true) break;
      for (const row of next.value) early.add(row);
      earlyRows += next.value.length;
      spent = performance.now() - started;
    }
  } catch (error) {
    sheetError = { error };
  }
  let taken: Rows;
  try {
    taken = await taking;
  } catch (error) {
    await reader.close();
    throw error;
  }
  try {
    if (sheetError) throw sheetError.error;
    early.replay(taken);
    if (earlyRows > 0) options.onProgress?.({ phase: 'read', done: earlyRows });
  } catch (error) {
    await reader.close();
    throw error;
  }
  // The same iterator reads on (once the sheet has ended, it says so again).
  const rest = {
    warnings: reader.warnings,
    batches: (): AsyncIterable<SheetRow[]> => ({ [Symbol.asyncIterator]: () => batches }),
  };
  let rows = earlyRows;
  rows += await readRowsInBatches(rest, options.file, options, (row) => taken.add(row), earlyRows);
  return { info, rows, columns, headerIssues: issues, taken };
}
