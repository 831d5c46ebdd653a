import { exportOrders, type ExportOrdersOptions, type ExportOrdersResult } from './export-orders.js';
import {
  createIncrementalSelector,
  DEFAULT_EXPORT_STATE_FILE,
  loadExportState,
  saveExportState,
  watermarkKey,
  withWatermarkEntry,
  type WatermarkEntry,
} from './watermark.js';

export interface ExportOrdersIncrementalOptions extends Omit<ExportOrdersOptions, 'incremental'> {
  /** The state file. Default DEFAULT_EXPORT_STATE_FILE (`.mbulk/exports.json`, relative to the cwd). */
  stateFile?: string;
  /** `--full`: ignore the saved watermark (export everything) and start a new one. Default false. */
  full?: boolean;
  /** Re-read window before the watermark, in ms. Default 10 minutes. */
  overlapMs?: number;
  /** The state key. Default: store id + absolute destination path (watermarkKey). */
  stateKey?: string;
  /** The run's start (tests). Default: now, taken before the first order is read. */
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
}

/**
 * `mbulk export orders FILE --incremental`: exports the orders created or changed since the last
 * successful export to the same destination (see watermark.ts for the guarantees), then saves the
 * new watermark. The state is written only after the export files are complete: a failed run
 * changes nothing, and the next run covers its orders.
 */
export async function exportOrdersIncremental(
  options: ExportOrdersIncrementalOptions,
): Promise<ExportOrdersIncrementalResult> {
  const {
    stateFile = DEFAULT_EXPORT_STATE_FILE,
    full = false,
    overlapMs,
    stateKey,
    now,
    ...exportOptions
  } = options;
  const runStartedAt = now ?? new Date();
  const key = stateKey ?? watermarkKey(options.store.id, options.path);
  const state = await loadExportState(stateFile);
  const previous = full ? null : (state.exports[key] ?? null);
  const selector = createIncrementalSelector(previous, {
    storeId: options.store.id,
    destination: options.path,
    runStartedAt,
    ...(overlapMs === undefined ? {} : { overlapMs }),
  });
  const result = await exportOrders({ ...exportOptions, incremental: selector });
  const entry = selector.next();
  const since = previous?.watermark ?? null;
  // A dry run shows what the next run would take: the watermark does not move.
  if (exportOptions.dryRun)
    return { ...result, watermark: entry, resumed: previous !== null, since, dryRun: true };
  // Re-read the file: another export (to another destination) may have saved meanwhile.
  const latest = await loadExportState(stateFile);
  await saveExportState(stateFile, withWatermarkEntry(latest, key, entry));
  return { ...result, watermark: entry, resumed: previous !== null, since, dryRun: false };
}
