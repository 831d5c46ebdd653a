import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { exportOrders, type ExportOrdersOptions, type ExportOrdersResult } from './export-orders.js';
import { DEFAULT_FEED, feedStateKey } from './feed-state-key.js';
import { feedRunFiles, requireDatedFeedName } from './feed-file-name.js';
import { emptyLedger } from './accounting-ledger.js';
import { prepareExportDestination } from './export-destination.js';
import {
  discardStaging,
  finishPendingPublish,
  lockFeed,
  prepareStaging,
  publishFeedRun,
  readPublishMarker,
  stagedMoves,
  stagingFolder,
  type FeedStep,
} from './feed-publish.js';
import {
  createIncrementalSelector,
  DEFAULT_EXPORT_STATE_FILE,
  loadExportState,
  type WatermarkEntry,
} from './watermark.js';

export interface ExportOrdersIncrementalOptions extends Omit<ExportOrdersOptions, 'incremental'> {
  /**
   * The destination. It must hold `{date}`, `{to}` or `{from}` (feedFileName, in the store's zone);
   * a dated name that an earlier run of the same day already wrote becomes `…-run2`, `…-run3`
   * with every file of the run (feedRunFiles), so no run overwrites another's orders.
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
  /**
   * Called after each step of the publish (see feed-publish.ts). For tests: the CLI's
   * `MBULK_TEST_KILL_AT=STEP` kills the process there, to check that a re-run finishes or redoes it.
   */
  onStep?: (step: FeedStep) => void;
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
  /** The files of an interrupted run of this feed that this run published first (its commit point was reached). */
  finishedPublish?: string[];
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
    // A journal feed's ledger holds postings, an invoice feed's documents: never the same feed.
    ...(options.accounting
      ? {
          profile:
            options.accounting.journal === undefined
              ? options.accounting.profile
              : `${options.accounting.profile}-journal`,
        }
      : {}),
    ...(filter.selection ? { selection: filter.selection } : {}),
    // The period as typed (the CLI's), else the filter's instants.
    period: period ?? instants,
  });
}

/**
 * `mbulk export orders FILE --incremental`: exports the orders created or changed since the last
 * successful run of the same feed (see watermark.ts for the guarantees), then saves the new
 * watermark. The run's files are written into a staging folder and published together with the
 * watermark and ledger (see feed-publish.ts): a run that fails or is killed before its commit point
 * publishes nothing and changes nothing, and the next run covers its orders; one killed after it
 * is finished by the next run of the feed, before that run reads anything.
 *
 * File names must be dated (`{date}`, `{to}` or `{from}`; UsageError otherwise), and a run never
 * writes over a file: a second run on the same day numbers all its files `-run2`, payments too.
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
    onStep,
    ...exportOptions
  } = options;
  const dryRun = exportOptions.dryRun === true;
  const runStartedAt = now ?? new Date();
  const key = options.stateKey ?? incrementalStateKey(options);
  const accounting = exportOptions.accounting;
  requireDatedFeedName(options.path, 'FILE');
  if (accounting?.payments !== undefined) requireDatedFeedName(accounting.payments, '--payments');
  // One run of a feed at a time (a dry run writes nothing and takes no lock).
  const lock = dryRun ? undefined : await lockFeed(stateFile, key);
  try {
    // A run killed after its commit point is finished first (a dry run only looks at it).
    const pending = exportOptions.dryRun ? await readPublishMarker(stateFile, key) : null;
    const finished = exportOptions.dryRun ? null : await finishPendingPublish(stateFile, key);
    const state = await loadExportState(stateFile);
    const saved = pending?.entry ?? state.exports[key] ?? null;
    const previous = full ? null : saved;
    const since = previous?.watermark ?? null;
    const naming = { runAt: runStartedAt, from: since, timezone: options.store.timezone };
    // A dry run writes nothing: it names the files the next run would write first.
    const exists = (candidate: string): boolean => !exportOptions.dryRun && existsSync(resolve(candidate));
    const files = feedRunFiles({ path: options.path, payments: accounting?.payments }, { ...naming, exists });
    const selector = createIncrementalSelector(previous, {
      storeId: options.store.id,
      destination: files.path,
      runStartedAt,
      ...(overlapMs === undefined ? {} : { overlapMs }),
    });
    // An accounting feed keeps a ledger of the invoices it exported, with the watermark. `--full`
    // re-reads every order but keeps the ledger: an invoice is never exported twice.
    const ledger = accounting ? structuredClone(saved?.ledger ?? emptyLedger()) : undefined;
    const targets = [resolve(files.path), ...(files.payments === undefined ? [] : [resolve(files.payments)])];
    for (const target of targets) await prepareExportDestination(target);
    const staging = exportOptions.dryRun ? [] : await prepareStaging(targets, key);
    const staged = (target: string): string =>
      exportOptions.dryRun ? target : join(stagingFolder(resolve(target), key), basename(target));
    const published = new Map(targets.map((t) => [dirname(staged(t)), dirname(t)]));
    const publishedPath = (file: string): string => {
      const folder = published.get(dirname(file));
      return folder === undefined ? file : join(folder, basename(file));
    };
    onStep?.('staging');
    let result: ExportOrdersResult;
    try {
      result = await exportOrders({
        ...exportOptions,
        ...(accounting
          ? {
              accounting: {
                ...accounting,
                // A feed of newly paid orders dates each invoice when it was paid.
                invoiceDate:
                  accounting.invoiceDate ?? ((exportOptions.basis ?? 'paid') === 'paid' ? 'paid' : 'created'),
                ...(files.payments === undefined ? {} : { payments: staged(files.payments) }),
              },
            }
          : {}),
        ...(ledger ? { ledger } : {}),
        path: staged(files.path),
        publishedPath,
        now: runStartedAt,
        incremental: selector,
      });
    } catch (error) {
      await discardStaging(staging);
      throw error;
    }
    const entry = { ...selector.next(), ...(ledger ? { ledger } : {}) };
    const done = {
      ...result,
      watermark: entry,
      resumed: previous !== null,
      since,
      stateKey: key,
      ...(files.earlier === undefined ? {} : { earlierRun: files.earlier }),
      ...(finished === null ? {} : { finishedPublish: finished }),
    };
    // A dry run shows what the next run would take: the watermark does not move.
    if (exportOptions.dryRun) return { ...done, dryRun: true };
    onStep?.('staged');
    const moves = await stagedMoves(staging);
    await publishFeedRun({ key, entry, moves, staging }, { stateFile, onStep });
    return { ...done, dryRun: false };
  } finally {
    lock?.release();
  }
}
