import { unfinishedHeadline } from '../apply/unfinished-headline.js';
import { ExitCode } from '../errors/exit-code.js';

/** How one store's job ended, in words (the table, the review page, the notification). */
export type StoreOutcome =
  | 'applied'
  | 'planned'
  | 'unchanged feed'
  | 'already applied'
  | 'rows failed'
  | 'config error'
  | 'refused'
  | 'unreachable'
  | 'local failure'
  | 'interrupted'
  | 'not started'
  | 'crashed';

/** One store's line of the fleet's summary. */
export interface StoreResult {
  index: number;
  name: string;
  outcome: StoreOutcome;
  /**
   * The store's exit code, always one of the documented ones (README, Exit codes): a store never
   * started because the fleet was interrupted counts as 130, a process that died (killed, out of
   * memory, an undocumented code) as 5.
   */
  exitCode: number;
  runId?: string;
  runDir?: string;
  /** The store run's review page. */
  reportHtml?: string;
  /** The plan's counts (update, unchanged, invalid…). */
  counts?: Record<string, number>;
  /** The refusal, the error, or what happened to the process. */
  message?: string;
  /** Where the store's `--json` result and its log (the child's stderr) are. */
  output?: string;
  log?: string;
  durationMs: number;
  /** The store's own `--json` document, as it printed it. */
  result?: Record<string, unknown>;
}

/**
 * The order in which exit codes win when stores end differently (the fleet exits with the first
 * of these that any store ended with; 0 only when every store ended 0):
 *
 * - 5, a local failure (disk full, read-only, a process that crashed): this machine; every
 *   store run on it is at risk, and a store's run may need `mbulk runs resume`;
 * - 4, the API could not be reached or rejected the token: a store's service or credentials,
 *   which someone outside must fix;
 * - 3, refused (guardrail, drift, another run holding the store): someone must look at a plan;
 * - 2, a store's configuration or input (a missing feed, an unset token variable);
 * - 1, rows failed: fix `failed.csv` and re-import;
 * - 130, interrupted: usually a planned stop (a deploy, a node drained); it only shows when
 *   nothing worse happened, and running the fleet again continues every store.
 */
export const EXIT_CODE_ORDER: readonly number[] = [
  ExitCode.LocalFailure,
  ExitCode.Unreachable,
  ExitCode.Refused,
  ExitCode.Usage,
  ExitCode.RowsFailed,
  ExitCode.Interrupted,
  ExitCode.Ok,
];

/** The worst of the stores' exit codes by EXIT_CODE_ORDER (0 for none). */
export function worstExitCode(codes: Iterable<number>): number {
  let worst = EXIT_CODE_ORDER.length - 1;
  for (const code of codes) {
    const rank = EXIT_CODE_ORDER.indexOf(code);
    worst = Math.min(worst, rank === -1 ? 0 : rank);
  }
  return EXIT_CODE_ORDER[worst] ?? ExitCode.Ok;
}

const OUTCOME_BY_CODE: Readonly<Record<number, StoreOutcome>> = {
  [ExitCode.RowsFailed]: 'rows failed',
  [ExitCode.Usage]: 'config error',
  [ExitCode.Refused]: 'refused',
  [ExitCode.Unreachable]: 'unreachable',
  [ExitCode.LocalFailure]: 'local failure',
  [ExitCode.Interrupted]: 'interrupted',
};

/** How a store's process ended: its exit code or signal, and the `--json` document it printed. */
export interface StoreExit {
  code: number | null;
  signal: string | null;
  result: Record<string, unknown> | undefined;
  /** Why there is no result (nothing printed, not JSON, too large to read). */
  resultProblem?: string;
  /** Why the process could not be started at all. */
  failure?: string;
  /** The counts of the run.json of the run the store's result names (how far an interrupted run got). */
  runCounts?: Readonly<Record<string, number>> | undefined;
  /** The fleet was interrupted (Ctrl-C, SIGTERM) before the store's process ended. */
  fleetInterrupted?: boolean | undefined;
}

/**
 * Whether a store's process ended before its job began anything: killed by the fleet's SIGTERM while
 * it was still starting (before it could take the signal as a request to stop: Node's default is to
 * die at once), or stopped by it before it began a run (`interrupted`, naming no run: nothing was
 * written).
 */
function endedBeforeItBegan(exit: StoreExit): boolean {
  if (exit.code === null) return exit.signal === 'SIGTERM' || exit.signal === 'SIGINT';
  const r = exit.result;
  return (
    exit.code === ExitCode.Interrupted &&
    r?.['interrupted'] === true &&
    r['applied'] !== true &&
    typeof r['runId'] !== 'string'
  );
}

/** What a store's exit means: outcome, documented exit code, and the facts of its result. */
export function storeResultOf(
  store: { index: number; name: string },
  exit: StoreExit,
  files: { output: string; log: string; runsDir: string },
  durationMs: number,
): StoreResult {
  const base = { index: store.index, name: store.name, output: files.output, log: files.log, durationMs };
  if (exit.fleetInterrupted === true && endedBeforeItBegan(exit))
    return {
      ...notRunResult(store, { interrupted: true }),
      ...base,
      message: NOT_STARTED_WHILE_STARTING,
    };
  const code = exit.code;
  if (code === null || !EXIT_CODE_ORDER.includes(code)) {
    const resume = `a run it began continues with mbulk runs resume RUN --runs-dir ${files.runsDir}`;
    const message =
      exit.failure !== undefined
        ? `the store's mbulk process ${exit.failure}`
        : code === null
          ? `the store's mbulk process was killed by ${exit.signal ?? 'a signal'} (out of memory? see its log); ${resume}`
          : `the store's mbulk process exited with code ${code}, which mbulk never ends with (see its log); ${resume}`;
    return {
      ...base,
      ...resultFacts(exit.result),
      outcome: 'crashed',
      exitCode: ExitCode.LocalFailure,
      message,
      ...(exit.result !== undefined ? { result: exit.result } : {}),
    };
  }
  const r = exit.result;
  const facts = resultFacts(r);
  const already = alreadyApplied(code, r, files.runsDir);
  if (already !== undefined)
    return { ...base, ...facts, ...already, ...(r !== undefined ? { result: r } : {}) };
  let outcome = OUTCOME_BY_CODE[code];
  if (outcome === undefined) {
    outcome = r?.['unchanged'] === true ? 'unchanged feed' : r?.['applied'] === true ? 'applied' : 'planned';
  }
  let message = resultMessage(r) ?? (exit.result === undefined ? exit.resultProblem : undefined);
  // A re-run that continued the store's unfinished run of the same feed (never planned again).
  const continued = r?.['continuedRun'];
  if (typeof continued === 'string' && code !== ExitCode.Interrupted)
    message =
      message === undefined ? `continued run ${continued}` : `continued run ${continued} · ${message}`;
  if (code === ExitCode.Interrupted) {
    message =
      facts.runId !== undefined
        ? unfinishedHeadline(
            facts.runId,
            'interrupted',
            exit.runCounts ?? {},
            `mbulk runs resume ${facts.runId} --runs-dir ${files.runsDir}`,
          )
        : r !== undefined
          ? 'interrupted before it wrote anything'
          : `interrupted and quit at once: mbulk runs list --runs-dir ${files.runsDir} shows a run it began, mbulk runs resume RUN continues it`;
  }
  return {
    ...base,
    ...facts,
    outcome,
    exitCode: code,
    ...(message !== undefined ? { message } : {}),
    ...(r !== undefined ? { result: r } : {}),
  };
}

/**
 * A store whose feed of deltas a run already applied to it (the store refused it, exit 3,
 * `refused: "already-applied"`: a fleet run again after an interrupt, with this store done): not run
 * again, and not a failure (exit 0), unless that run left some deltas failed (exit 1, with the way
 * to retry them). The run that applied it is the store's run.
 */
function alreadyApplied(
  code: number,
  r: Record<string, unknown> | undefined,
  runsDir: string,
): Pick<StoreResult, 'outcome' | 'exitCode' | 'message' | 'runId'> | undefined {
  if (code !== ExitCode.Refused || r?.['refused'] !== 'already-applied') return undefined;
  const run = typeof r['run'] === 'string' ? r['run'] : undefined;
  if (run === undefined) return undefined;
  const at = typeof r['appliedAt'] === 'string' ? ` at ${r['appliedAt']}` : '';
  const applied = r['applied'];
  const total = r['total'];
  const inPart = typeof applied === 'number' && typeof total === 'number' && applied < total;
  return {
    outcome: 'already applied',
    exitCode: inPart ? ExitCode.RowsFailed : ExitCode.Ok,
    runId: run,
    message: inPart
      ? `already applied by run ${run}${at}: ${applied} of ${total} deltas (not run again; to retry the others: mbulk runs resume ${run} --runs-dir ${runsDir})`
      : `already applied by run ${run}${at} (not run again)`,
  };
}

/** Why a store whose process the fleet's interrupt stopped as it started counts as not started. */
const NOT_STARTED_WHILE_STARTING =
  'not started: the fleet was interrupted while this store was starting (nothing was written); run it again to do this store';

/**
 * A store not run again: its feed file is the one a run of it applied in full (local-feed.ts), said
 * as the store's process says it of an unchanged URL feed.
 */
export function unchangedFeedResult(
  store: { index: number; name: string },
  applied: { appliedAt: string; run?: string | undefined },
): StoreResult {
  const by = applied.run !== undefined ? `by run ${applied.run} ` : '';
  return {
    index: store.index,
    name: store.name,
    outcome: 'unchanged feed',
    exitCode: ExitCode.Ok,
    ...(applied.run !== undefined ? { runId: applied.run } : {}),
    message: `already applied ${by}at ${applied.appliedAt} (feed unchanged since: not run again)`,
    durationMs: 0,
  };
}

/** A store that never ran: not started (the fleet was interrupted: 130) or not startable (2). */
export function notRunResult(
  store: { index: number; name: string },
  why: { interrupted: true } | { problem: string },
): StoreResult {
  return 'problem' in why
    ? {
        index: store.index,
        name: store.name,
        outcome: 'config error',
        exitCode: ExitCode.Usage,
        message: why.problem,
        durationMs: 0,
      }
    : {
        index: store.index,
        name: store.name,
        outcome: 'not started',
        exitCode: ExitCode.Interrupted,
        message: 'not started: the fleet was interrupted; run it again to do this store',
        durationMs: 0,
      };
}

function resultFacts(
  r: Record<string, unknown> | undefined,
): Pick<StoreResult, 'runId' | 'runDir' | 'reportHtml' | 'counts'> {
  if (r === undefined) return {};
  const facts: Pick<StoreResult, 'runId' | 'runDir' | 'reportHtml' | 'counts'> = {};
  if (typeof r['runId'] === 'string') facts.runId = r['runId'];
  if (typeof r['runDir'] === 'string') facts.runDir = r['runDir'];
  if (typeof r['reportHtml'] === 'string') facts.reportHtml = r['reportHtml'];
  const counts = r['counts'];
  if (counts !== null && typeof counts === 'object') {
    facts.counts = Object.fromEntries(
      Object.entries(counts).filter((e): e is [string, number] => typeof e[1] === 'number'),
    );
  }
  return facts;
}

/** The refusal or error a store's result carries. */
function resultMessage(r: Record<string, unknown> | undefined): string | undefined {
  if (r === undefined) return undefined;
  if (typeof r['refused'] === 'string') return `refused: ${r['refused']}`;
  const error = r['error'];
  if (
    error !== null &&
    typeof error === 'object' &&
    typeof (error as { message?: unknown }).message === 'string'
  )
    return (error as { message: string }).message;
  if (typeof r['abortedBy'] === 'object' && r['abortedBy'] !== null) {
    const m = (r['abortedBy'] as { message?: unknown }).message;
    if (typeof m === 'string') return `stopped: ${m}`;
  }
  if (r['unchanged'] === true && typeof r['source'] === 'string')
    return typeof r['run'] === 'string'
      ? `already applied by run ${r['run']}${typeof r['appliedAt'] === 'string' ? ` at ${r['appliedAt']}` : ''} (feed unchanged since: not run again)`
      : `unchanged since the last applied run: ${r['source']}`;
  const rows = r['failedRows'];
  if (Array.isArray(rows) && rows.length > 0) {
    const where = typeof r['runDir'] === 'string' ? r['runDir'] : 'the run directory';
    return r['applied'] === true
      ? `${rows.length} failed row${rows.length === 1 ? '' : 's'}: fix them in ${where}/failed.csv and import it again`
      : `${rows.length} invalid row${rows.length === 1 ? '' : 's'}: see the run's review page in ${where}`;
  }
  return undefined;
}
