import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { newPreciseRunId } from '../apply/run-directory.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import { UsageError } from '../errors/usage-error.js';
import type { FleetFile, FleetStore } from './fleet-file.js';
import { DEFAULT_PARALLEL } from './default-parallel.js';
import { renderFleetReport } from './fleet-report-html.js';
import { fleetSummary, type FleetSummary } from './fleet-summary.js';
import { inFleetTerms, storeInvocation } from './store-invocation.js';
import { localFeed, rememberLocalFeed, storeFeedMemory } from './local-feed.js';
import { STOP_WITH_PARENT_ENV } from './stop-with-parent.js';
import {
  notRunResult,
  storeResultOf,
  unchangedFeedResult,
  type StoreExit,
  type StoreResult,
} from './store-result.js';

/** A store's `--json` result larger than this is left in its file, not read into the summary. */
const MAX_RESULT_BYTES = 64 * 2 ** 20;

export interface RunFleetOptions {
  fleet: FleetFile;
  /** Run only the store at this index of the file (a Kubernetes Indexed Job's pod). */
  onlyIndex?: number | undefined;
  /** Stores at once (default DEFAULT_PARALLEL). */
  parallel?: number | undefined;
  /** Write (each store runs with `--apply --yes`), else plan only. */
  apply: boolean;
  /** How to run `mbulk`: the program and its first arguments, e.g. [node, /…/bin/mbulk.js]. */
  command: readonly [string, ...string[]];
  /**
   * The fleet's directory (absolute): `runs/<fleet-run-id>/` for each fleet run (summary.json,
   * report.html, each store's result and log under stores/), `stores/<name>/runs/` for each store's
   * own run directories (and its feed memory, `stores/<name>/sources.json`).
   */
  fleetDir: string;
  /** The stores' working directory. */
  cwd: string;
  /** The environment the stores' environments are made from. */
  env: NodeJS.ProcessEnv;
  /** Aborting stops starting stores and sends each running one SIGTERM (once). */
  signal?: AbortSignal | undefined;
  /** After each store ends: its result, and how many of how many have ended. */
  onStoreEnd?: (result: StoreResult, ended: number, total: number) => void;
  now?: Date;
}

/** `<fleet-dir>/stores/<name>/runs`: where a store's run directories go, run after run. */
export function storeRunsDir(fleetDir: string, store: { name: string }): string {
  return join(fleetDir, 'stores', store.name, 'runs');
}

/**
 * The stores a run takes (all of them, or the one at `onlyIndex`) and how many at once; a usage
 * error (exit 2) for an index the file does not have or a parallelism below 1.
 */
export function fleetSelection(
  fleet: FleetFile,
  options: { onlyIndex?: number | undefined; parallel?: number | undefined },
): { stores: FleetStore[]; parallel: number } {
  const parallel = options.parallel ?? DEFAULT_PARALLEL;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new UsageError('--parallel must be a whole number >= 1', 'parallel');
  const index = options.onlyIndex;
  if (index === undefined) return { stores: fleet.stores, parallel };
  const only = Number.isInteger(index) ? fleet.stores[index] : undefined;
  if (only === undefined) {
    const n = fleet.stores.length;
    throw new UsageError(
      `--only-index ${index}: ${fleet.file} lists ${n} store${n === 1 ? '' : 's'}, numbered 0 to ${n - 1}`,
      'only-index',
    );
  }
  return { stores: [only], parallel };
}

/**
 * Runs the fleet's job for each store (or the one of `onlyIndex`) as its own `mbulk` process, at
 * most `parallel` at once. A process per store isolates what a store can break: its token and
 * feed header (in its own environment), its rate limit, its store lock, a crash, and it reuses
 * every guard of the single-store command. One store's failure never stops the others. On abort
 * (Ctrl-C, SIGTERM) no further store starts and each running one gets one SIGTERM: it lets its
 * writes in flight finish, journals them and exits 130, resumable. When this process exits while
 * stores still run (a second Ctrl-C), each gets a second SIGTERM and quits at once.
 *
 * The stores run in process groups of their own, so a Ctrl-C typed in a terminal reaches them only
 * through this process, once. They die with it: each watches this process (STOP_WITH_PARENT_ENV)
 * and, once it is gone (even SIGKILLed), stops as on SIGTERM, journaled and resumable. A store
 * whose process the interrupt stopped while it was starting (before any run began) is `not
 * started`, like one never started. Writes the fleet run's directory (summary.json, report.html,
 * each store's result and log) and returns its summary; prints nothing.
 */
export async function runFleet(options: RunFleetOptions): Promise<FleetSummary> {
  const { fleet } = options;
  const { stores, parallel } = fleetSelection(fleet, options);
  const startedAt = options.now ?? new Date();
  // Milliseconds in the id: two fleet runs started in one second sort by when they started.
  const id = newPreciseRunId('fleet', startedAt);
  const dir = join(options.fleetDir, 'runs', id);
  mkdirSync(join(dir, 'stores'), { recursive: true });

  const running = new Set<{ kill(signal: NodeJS.Signals): boolean }>();
  const stopAll = (): void => {
    for (const child of running) child.kill('SIGTERM');
  };
  options.signal?.addEventListener('abort', stopAll, { once: true });
  process.on('exit', stopAll);
  const width = String(fleet.stores.length - 1).length;
  const limit = pLimit(parallel);
  let ended = 0;
  try {
    const results = await Promise.all(
      stores.map((store) =>
        limit(async () => {
          const result = await runStore(store);
          ended += 1;
          options.onStoreEnd?.(result, ended, stores.length);
          return result;
        }),
      ),
    );
    const summary = fleetSummary({
      fleet,
      id,
      dir,
      reportHtml: join(dir, 'report.html'),
      apply: options.apply,
      parallel,
      onlyIndex: options.onlyIndex,
      startedAt,
      endedAt: new Date(),
      stores: results,
    });
    writeFileAtomic(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileAtomic(summary.reportHtml, renderFleetReport(summary));
    return summary;
  } finally {
    options.signal?.removeEventListener('abort', stopAll);
    process.off('exit', stopAll);
  }

  async function runStore(store: FleetStore): Promise<StoreResult> {
    if (options.signal?.aborted) return notRunResult(store, { interrupted: true });
    const runsDir = storeRunsDir(options.fleetDir, store);
    const invocation = storeInvocation(fleet, store, { env: options.env, apply: options.apply, runsDir });
    if ('problem' in invocation) return notRunResult(store, invocation);
    const feed = localFeed(store, storeFeedMemory(options.fleetDir, store), options.apply);
    if (feed?.applied !== undefined) return unchangedFeedResult(store, feed.applied);
    const stem = join(dir, 'stores', `${String(store.index).padStart(width, '0')}-${store.name}`);
    const files = { output: `${stem}.json`, log: `${stem}.log`, runsDir };
    const began = Date.now();
    const exit = await runChild(options.command, invocation.args, {
      cwd: options.cwd,
      env: invocation.env,
      output: files.output,
      log: files.log,
      running,
    });
    if (options.signal?.aborted === true) exit.fleetInterrupted = true;
    const result = storeResultOf(store, exit, files, Date.now() - began);
    // Applied in full (or found applied already): these bytes are done for this store.
    if (feed !== undefined && result.exitCode === 0 && exit.code !== null)
      rememberLocalFeed(feed, result.runId);
    if (result.message !== undefined) result.message = inFleetTerms(result.message, store);
    return result;
  }
}

/**
 * Runs one child with stdout to `output` and stderr to `log` (file descriptors handed to it: the
 * parent holds none of its output in memory), and reads its `--json` result once it has exited.
 */
function runChild(
  command: readonly [string, ...string[]],
  args: readonly string[],
  o: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    output: string;
    log: string;
    running: Set<{ kill(signal: NodeJS.Signals): boolean }>;
  },
): Promise<StoreExit> {
  const [program, ...first] = command;
  const out = openSync(o.output, 'w');
  const err = openSync(o.log, 'w');
  return new Promise<StoreExit>((done) => {
    let settled = false;
    const settle = (code: number | null, signal: string | null, failure?: string): void => {
      if (settled) return;
      settled = true;
      o.running.delete(child);
      const read = readResult(o.output);
      const runCounts = readRunCounts(read.result);
      done({
        code,
        signal,
        result: read.result,
        ...(runCounts !== undefined ? { runCounts } : {}),
        ...(read.problem !== undefined ? { resultProblem: read.problem } : {}),
        ...(failure !== undefined ? { failure } : {}),
      });
    };
    const child = spawn(program, [...first, ...args], {
      cwd: o.cwd,
      // The store stops with this process, even when it is SIGKILLed (stop-with-parent.ts).
      env: { ...o.env, [STOP_WITH_PARENT_ENV]: String(process.pid) },
      stdio: ['ignore', out, err],
      detached: true,
    });
    o.running.add(child);
    child.once('error', (error) => settle(null, null, `could not be started (${error.message})`));
    child.once('exit', (code, signal) => settle(code, signal));
  }).finally(() => {
    closeSync(out);
    closeSync(err);
  });
}

/** A store's `--json` document, or why there is none. */
function readResult(file: string): { result?: Record<string, unknown>; problem?: string } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return { problem: 'it printed no result' };
  }
  if (size === 0) return { problem: `it printed no result (see its log)` };
  if (size > MAX_RESULT_BYTES)
    return {
      problem: `its result is ${Math.round(size / 2 ** 20)} MiB, too large to read here: see ${file}`,
    };
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return { result: value as Record<string, unknown> };
  } catch {
    // below
  }
  return { problem: `its output is not one JSON document: see ${file}` };
}

/**
 * The counts of the run.json of the run a store's result names (`runDir`): how far an interrupted
 * run got, for its headline. Undefined when there is none or it cannot be read.
 */
function readRunCounts(result: Record<string, unknown> | undefined): Record<string, number> | undefined {
  const runDir = result?.['runDir'];
  if (typeof runDir !== 'string') return undefined;
  try {
    const meta: unknown = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    const counts = (meta as { counts?: unknown } | null)?.counts;
    if (counts === null || typeof counts !== 'object') return undefined;
    return Object.fromEntries(
      Object.entries(counts).filter((e): e is [string, number] => typeof e[1] === 'number'),
    );
  } catch {
    return undefined;
  }
}
