import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { exportOrders, type ExportOrdersOptions, type ExportOrdersResult } from './export-orders.js';
import { DEFAULT_FEED, feedStateKey } from './feed-state-key.js';
import { feedRunFileName } from './feed-file-name.js';
import { emptyLedger } from './accounting-ledger.js';
import {
  createIncrementalSelector,
  DEFAULT_EXPORT_STATE_FILE,
  loadExportState,
  saveExportState,
  withWatermarkEntry,
  type WatermarkEntry,
} from './watermark.js';

export interface ExportOrdersIncrementalOptions extends Omit<ExportOrdersOptions, 'incremental'> {
  /**
   * The destination. It may hold `{date}`, `{to}` and `{from}` (feedFileName, in the store's zone);
   * a dated name that an earlier run of the same day already wrote becomes `…-run2`, `…-run3`
   * (unusedFeedFileName), so no run overwrites another's orders.
   */
  path: string;
  /** The feed name (`--feed`): part of the state key. Default DEFAULT_FEED (`orders`). */
  feed?: string;
  /** The state file. Default DEFAULT_EXPORT_STATE_FILE (`.mbulk/exports.json`, relative to the cwd). */
  stateFile?: string;
  /** `--full`: ignore the saved watermark (export everything) and start a new one. Default false. */
  full?: boolean;
  /** Re-read window before the watermark, in ms. Default 10 minutes. */
  overlapMs?: number;
  /**
   * The state key. Default feedStateKey of the store, feed, profile, selection and period: the key
   * `mbulk export orders --incremental` uses, so a library feed and a CLI feed with the same
   * identity share one watermark.
   */
  stateKey?: string;
  /** The run's start (tests, rehearsals). Default: now, taken before the first order is read. */
  now?: Date;
}

export interface ExportOrdersIncrementalResult extends ExportOrdersResult {
  /** The state saved for the next run. */
  watermark: WatermarkEntry;
  /** Whether a previous watermark was used (false on the first run and with `full`). */
  resumed: boolean;
  /** The watermark this run started from (null on a first or `full` run). */
  since: string | null;
  /** `dryRun`: nothing was written and the state was not saved. */
  dryRun: boolean;
  /** The state key used. */
  stateKey: string;
  /** The dated file name an earlier run of the same day wrote, when this run wrote beside it. */
  earlierRun?: string;
}

/** The state key of an incremental export (the default of `stateKey`). */
export function incrementalStateKey(
  options: Pick<ExportOrdersIncrementalOptions, 'store' | 'feed' | 'accounting' | 'filter' | 'period'>,
): string {
  const { filter = {}, period } = options;
  const instants = Object.fromEntries(
    (['since', 'until', 'updatedSince'] as const)
      .filter((k) => filter[k] !== undefined)
      .map((k) => [k, (filter[k] as Date).toISOString()]),
  );
  return feedStateKey({
    storeId: options.store.id,
    feed: options.feed ?? DEFAULT_FEED,
    ...(options.accounting ? { profile: options.accounting.profile } : {}),
    ...(filter.selection ? { selection: filter.selection } : {}),
    // The period as typed (the CLI's), else the filter's instants.
    period: period ?? instants,
  });
}

/**
 * `mbulk export orders FILE --incremental`: exports the orders created or changed since the last
 * successful run of the same feed (see watermark.ts for the guarantees), then saves the new
 * watermark. The state is written only after the export files are complete: a failed run
 * changes nothing, and the next run covers its orders.
 */
export async function exportOrdersIncremental(
  options: ExportOrdersIncrementalOptions,
): Promise<ExportOrdersIncrementalResult> {
  const {
    stateFile = DEFAULT_EXPORT_STATE_FILE,
    full = false,
    overlapMs,
    now,
    feed: _feed,
    stateKey: _stateKey,
    ...exportOptions
  } = options;
  const runStartedAt = now ?? new Date();
  const key = options.stateKey ?? incrementalStateKey(options);
  const state = await loadExportState(stateFile);
  const previous = full ? null : (state.exports[key] ?? null);
  const since = previous?.watermark ?? null;
  const naming = { runAt: runStartedAt, from: since, timezone: options.store.timezone };
  // A dry run writes nothing: it names the file the next run would write first.
  const exists = (candidate: string): boolean => !exportOptions.dryRun && existsSync(resolve(candidate));
  const file = feedRunFileName(options.path, { ...naming, exists });
  const selector = createIncrementalSelector(previous, {
    storeId: options.store.id,
    destination: file.name,
    runStartedAt,
    ...(overlapMs === undefined ? {} : { overlapMs }),
  });
  // An accounting feed keeps a ledger of the invoices it exported, with the watermark. `--full`
  // re-reads every order but keeps the ledger: an invoice is never exported twice.
  const accounting = exportOptions.accounting;
  const ledger = accounting ? structuredClone(state.exports[key]?.ledger ?? emptyLedger()) : undefined;
  const result = await exportOrders({
    ...exportOptions,
    ...(accounting
      ? {
          accounting: {
            ...accounting,
            // A feed of newly paid orders dates each invoice when it was paid.
            invoiceDate:
              accounting.invoiceDate ?? ((exportOptions.basis ?? 'paid') === 'paid' ? 'paid' : 'created'),
          },
        }
      : {}),
    ...(ledger ? { ledger } : {}),
    path: file.name,
    now: runStartedAt,
    incremental: selector,
  });
  const entry = { ...selector.next(), ...(ledger ? { ledger } : {}) };
  const done = {
    ...result,
    watermark: entry,
    resumed: previous !== null,
    since,
    stateKey: key,
    ...(file.earlier === undefined ? {} : { earlierRun: file.earlier }),
  };
  // A dry run shows what the next run would take: the watermark does not move.
  if (exportOptions.dryRun) return { ...done, dryRun: true };
  // Re-read the file: another feed may have saved meanwhile.
  const latest = await loadExportState(stateFile);
  await saveExportState(stateFile, withWatermarkEntry(latest, key, entry));
  return { ...done, dryRun: false };
}
