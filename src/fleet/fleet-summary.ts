import type { FleetFile, FleetJob } from './fleet-file.js';
import { visibleText } from '../sheets/visible-text.js';
import { worstExitCode, type StoreResult } from './store-result.js';

/** Counts of what the applied stores wrote, summed (the fields their `--json` results carry). */
const SUMMED = ['created', 'updated', 'hidden', 'deleted', 'failed', 'notRun', 'writeRequests'] as const;

export interface FleetTotals {
  stores: number;
  /** Stores by outcome, e.g. `{ applied: 9, refused: 1, unreachable: 2 }`. */
  outcomes: Record<string, number>;
  /** Stores by exit code, e.g. `{ "0": 9, "3": 1, "4": 2 }`. */
  exitCodes: Record<string, number>;
  /** What the stores that applied wrote, summed: created, updated, failed, writeRequests… */
  applied: Record<string, number>;
}

/** A fleet run's combined summary: `--json`, summary.json, the review page and the notification. */
export interface FleetSummary {
  /** Every store ended 0. */
  ok: boolean;
  /** 0 when every store ended 0, else the worst of theirs (EXIT_CODE_ORDER). */
  exitCode: number;
  fleetRunId: string;
  fleetRunDir: string;
  reportHtml: string;
  file: string;
  job: FleetJob;
  mode: 'apply' | 'plan';
  parallel: number;
  onlyIndex?: number;
  startedAt: string;
  endedAt: string;
  totals: FleetTotals;
  /** In the file's order. */
  stores: StoreResult[];
}

export function fleetSummary(o: {
  fleet: FleetFile;
  id: string;
  dir: string;
  reportHtml: string;
  apply: boolean;
  parallel: number;
  onlyIndex: number | undefined;
  startedAt: Date;
  endedAt: Date;
  stores: StoreResult[];
}): FleetSummary {
  const stores = [...o.stores].sort((a, b) => a.index - b.index);
  const exitCode = worstExitCode(stores.map((s) => s.exitCode));
  return {
    ok: exitCode === 0,
    exitCode,
    fleetRunId: o.id,
    fleetRunDir: o.dir,
    reportHtml: o.reportHtml,
    file: o.fleet.file,
    job: o.fleet.job,
    mode: o.apply ? 'apply' : 'plan',
    parallel: o.parallel,
    ...(o.onlyIndex !== undefined ? { onlyIndex: o.onlyIndex } : {}),
    startedAt: o.startedAt.toISOString(),
    endedAt: o.endedAt.toISOString(),
    totals: fleetTotals(stores),
    stores,
  };
}

function fleetTotals(stores: readonly StoreResult[]): FleetTotals {
  const totals: FleetTotals = { stores: stores.length, outcomes: {}, exitCodes: {}, applied: {} };
  for (const s of stores) {
    totals.outcomes[s.outcome] = (totals.outcomes[s.outcome] ?? 0) + 1;
    totals.exitCodes[String(s.exitCode)] = (totals.exitCodes[String(s.exitCode)] ?? 0) + 1;
    if (s.result?.['applied'] !== true) continue;
    for (const key of SUMMED) {
      const v = s.result[key];
      if (typeof v === 'number') totals.applied[key] = (totals.applied[key] ?? 0) + v;
    }
  }
  return totals;
}

/** "update 2 · unchanged 57": a plan's counts that are not zero ("-" when none). */
export function countsText(counts: Readonly<Record<string, number>> | undefined): string {
  const parts = Object.entries(counts ?? {})
    .filter(([, n]) => n !== 0)
    .map(([k, n]) => `${k} ${n}`);
  return parts.length > 0 ? parts.join(' · ') : '-';
}

/** "9 applied · 1 refused · 2 unreachable". */
export function outcomesText(totals: FleetTotals): string {
  return Object.entries(totals.outcomes)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(' · ');
}

/** One store in one line: "kl-east: refused (exit 3) · update 12 · run 2026… · refused: …". */
export function storeLine(s: StoreResult): string {
  const parts = [`${s.name}: ${s.outcome} (exit ${s.exitCode})`];
  if (s.counts !== undefined) parts.push(countsText(s.counts));
  if (s.runId !== undefined) parts.push(`run ${s.runId}`);
  if (s.message !== undefined) parts.push(s.message);
  return parts.join(' · ');
}

/** The fleet's verdict in a word: ok, refused, interrupted or failed. */
function verdict(exitCode: number): string {
  return exitCode === 0 ? 'ok' : exitCode === 3 ? 'refused' : exitCode === 130 ? 'interrupted' : 'failed';
}

/**
 * The notification's `text` (what chat webhooks show): a first line with the verdict and the
 * outcomes, then one line per store. A store's message carries text from its sheet, feed file name
 * and store: every line is made visible (`visibleText`: a line feed shown as `\n`, ESC as `\x1b`),
 * so it stays one line and nothing in it is sent raw to a chat, a terminal or a log reading it.
 */
export function fleetNotificationText(summary: FleetSummary): string {
  const head = `mbulk fleet run: ${verdict(summary.exitCode)} (exit ${summary.exitCode}) · ${summary.job} (${summary.mode}) on ${summary.totals.stores} store${summary.totals.stores === 1 ? '' : 's'}: ${outcomesText(summary.totals)} · fleet run ${summary.fleetRunId}`;
  return [head, ...summary.stores.map((s) => `• ${storeLine(s)}`)]
    .map((line) => visibleText(line))
    .join('\n');
}

/**
 * What the notification posts: the summary without each store's whole `--json` document (a chat
 * webhook gets the facts, not every failed row of every store), with the per-store `text`.
 */
export function fleetNotification(summary: FleetSummary): Record<string, unknown> {
  return {
    ...summary,
    stores: summary.stores.map(({ result: _result, ...store }) => store),
    text: fleetNotificationText(summary),
  };
}
