import * as fs from 'node:fs';
import * as path from 'node:path';
import { listRuns, RunDirectory, type RunMeta } from '../apply/run-directory.js';
import type { InputIdentity } from './input-identity.js';

/**
 * The store's memory of its inputs: `<runs dir>/inputs.ndjson`, one line per event of a run
 * planned from an input (planned, started, ended), keyed by the input's identity. Run directories
 * say the same (run.json's `input_key`), but `runs prune` removes those; this file stays, so a
 * delta sheet applied by a run since pruned is still refused. A line that cannot be read is skipped.
 */
export const INPUT_MEMORY_FILE = 'inputs.ndjson';

/** One line of inputs.ndjson. */
type InputEvent =
  | {
      event: 'planned';
      at: string;
      key: string;
      run: string;
      kind: string;
      target: string;
      store_id: string;
      input: string;
      sha256: string;
      sheet?: string | undefined;
      /**
       * Applying the input twice writes twice: deltas (`delta_quantity`), messages (sent twice),
       * templates (submitted twice).
       */
      deltas: boolean;
    }
  | { event: 'started'; at: string; key: string; run: string }
  | { event: 'ended'; at: string; key: string; run: string; status: string; done?: number; total?: number };

function memoryFile(runsRoot: string): string {
  return path.join(runsRoot, INPUT_MEMORY_FILE);
}

function append(runsRoot: string, event: InputEvent): void {
  fs.mkdirSync(runsRoot, { recursive: true });
  fs.appendFileSync(memoryFile(runsRoot), `${JSON.stringify(event)}\n`);
}

function readEvents(runsRoot: string, key: string): InputEvent[] {
  let text: string;
  try {
    text = fs.readFileSync(memoryFile(runsRoot), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const events: InputEvent[] = [];
  for (const line of text.split('\n')) {
    // A cheap filter first: the file holds every input the store was sent.
    if (!line.includes(key)) continue;
    try {
      const event = JSON.parse(line) as InputEvent;
      if (event.key === key && typeof event.run === 'string') events.push(event);
    } catch {
      // a torn line (a process killed mid-write): skipped
    }
  }
  return events;
}

/**
 * Records a run planned from an input: run.json's `input_key` and `input_sha256`, and a line in
 * the store's memory. `deltas`: the input holds deltas (applying it twice adds twice).
 */
export function rememberPlannedInput(run: RunDirectory, identity: InputIdentity, deltas: boolean): void {
  run.update({ input_key: identity.key, input_sha256: identity.sha256, input_deltas: deltas });
  append(path.dirname(run.dir), {
    event: 'planned',
    at: new Date().toISOString(),
    key: identity.key,
    run: run.id,
    kind: identity.kind,
    target: identity.target,
    store_id: identity.storeId,
    input: identity.input,
    sha256: identity.sha256,
    ...(identity.sheet !== undefined ? { sheet: identity.sheet } : {}),
    deltas,
  });
}

/** Records that a run planned from an input starts writing (before its first write). */
export function rememberApplyStarted(run: RunDirectory): void {
  const key = run.meta.input_key;
  if (key === undefined) return;
  append(path.dirname(run.dir), { event: 'started', at: new Date().toISOString(), key, run: run.id });
}

/** Records how a run planned from an input ended (its status, and how many of its changes were done). */
export function rememberApplyEnded(run: RunDirectory): void {
  const meta = run.refresh();
  const key = meta.input_key;
  if (key === undefined) return;
  const done = meta.counts['changes_done'];
  const total = meta.counts['changes_total'];
  append(path.dirname(run.dir), {
    event: 'ended',
    at: new Date().toISOString(),
    key,
    run: run.id,
    status: meta.status,
    ...(done !== undefined ? { done } : {}),
    ...(total !== undefined ? { total } : {}),
  });
}

/** What is known of one run planned from an input. */
export interface InputRun {
  runId: string;
  /** Its directory, when still there (`runs prune` may have removed it). */
  run?: RunDirectory | undefined;
  /**
   * `planned` (nothing written), `applying` (a live process writes it), `unfinished` (interrupted,
   * failed, or applied with operations whose outcome is unknown: continue it), `applied` (every
   * operation tried; some may have failed).
   */
  state: 'planned' | 'applying' | 'unfinished' | 'applied';
  deltas: boolean;
  /** When it last wrote (run.json's `updated_at`, or the memory's last line). */
  at: string;
  /** Changes done and planned, when known. */
  done?: number | undefined;
  total?: number | undefined;
  failed?: number | undefined;
}

function stateOf(meta: RunMeta): InputRun['state'] {
  switch (meta.status) {
    case 'planned':
      return 'planned';
    case 'applying':
      return 'applying';
    case 'interrupted':
    case 'failed':
      return 'unfinished';
    case 'applied':
      return (meta.counts['ops_unknown'] ?? 0) > 0 ? 'unfinished' : 'applied';
  }
}

/**
 * Every run planned from the input `key` under `runsRoot`, newest first: from the run
 * directories (their run.json), and from the store's memory for those since removed.
 */
export function inputRuns(runsRoot: string, key: string): InputRun[] {
  const byRun = new Map<string, InputRun>();
  const events = readEvents(runsRoot, key);
  for (const meta of listRuns(runsRoot)) {
    if (meta.input_key !== key) continue;
    const counts = meta.counts;
    byRun.set(meta.id, {
      runId: meta.id,
      run: RunDirectory.load(path.join(runsRoot, meta.id)),
      state: stateOf(meta),
      deltas: meta.input_deltas === true,
      at: meta.updated_at,
      done: counts['changes_done'],
      total: counts['changes_total'],
      failed: counts['ops_failed'],
    });
  }
  // Runs whose directory is gone: what the memory says of them.
  const gone = new Map<string, InputRun>();
  for (const event of events) {
    if (byRun.has(event.run)) continue;
    const known = gone.get(event.run) ?? {
      runId: event.run,
      state: 'planned' as const,
      deltas: false,
      at: event.at,
    };
    if (event.event === 'planned') known.deltas = event.deltas;
    else if (event.event === 'started') {
      // Started and never ended: written in part (how much is not known).
      known.state = 'applied';
      known.at = event.at;
    } else if (event.status === 'planned') {
      // Refused as a whole before its first write.
      known.state = 'planned';
    } else {
      known.state = 'applied';
      known.at = event.at;
      known.done = event.done;
      known.total = event.total;
    }
    gone.set(event.run, known);
  }
  const runs = [...byRun.values(), ...gone.values()];
  // Newest first by when each was planned: the memory is appended in that order (two runs planned
  // in one second have ids that sort by their random suffix, not by time); by id for runs it lacks.
  const plannedAt = new Map<string, number>();
  events.forEach((event, index) => {
    if (event.event === 'planned' && !plannedAt.has(event.run)) plannedAt.set(event.run, index);
  });
  return runs.sort((a, b) => {
    const ia = plannedAt.get(a.runId);
    const ib = plannedAt.get(b.runId);
    if (ia !== undefined && ib !== undefined) return ib - ia;
    return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
  });
}

/** The refusal of an input of deltas (messages, templates) already applied to the store (exit 3), as JSON and for people. */
export interface AlreadyAppliedInput {
  refused: 'already-applied';
  /** The run that applied it. */
  run: string;
  /** When that run last wrote (ISO 8601). */
  appliedAt: string;
  /** Changes (deltas) it applied, and planned; undefined when not known (its directory is gone). */
  applied?: number | undefined;
  total?: number | undefined;
  input: string;
  sha256: string;
  message: string;
}

/** What a re-run of an input does (see inputRunDecision). */
export type InputRunDecision =
  /** Plan the input as a new run (never written, written in full with absolute values, or `again`). */
  | { action: 'plan'; identity: InputIdentity }
  /** Continue this unfinished run of the same input instead of planning again. */
  | { action: 'continue'; identity: InputIdentity; run: RunDirectory; previous: InputRun }
  /** Refuse: an input of deltas already applied, in full or in part, to this store. */
  | { action: 'refuse'; identity: InputIdentity; refusal: AlreadyAppliedInput; previous: InputRun };

/**
 * What a command about to apply an input should do, by the runs of the same input (same kind,
 * store and bytes; see InputIdentity) under `runsRoot`:
 * - an unfinished run of it (interrupted, killed, failed, or with outcomes unknown) is continued,
 *   never planned again;
 * - an input of deltas that a run applied, in full or in part, is refused (exit 3) naming the run,
 *   when, and how much, unless `again`;
 * - anything else (an input of absolute values, or one never applied) is planned as a new run.
 */
export function inputRunDecision(
  runsRoot: string,
  identity: InputIdentity,
  options: { again?: boolean | undefined } = {},
): InputRunDecision {
  const runs = inputRuns(runsRoot, identity.key);
  const unfinished = runs.find((r) => r.state === 'unfinished' && r.run !== undefined);
  if (unfinished?.run !== undefined)
    return { action: 'continue', identity, run: unfinished.run, previous: unfinished };
  if (options.again !== true) {
    const applied = runs.find((r) => r.deltas && (r.state === 'applied' || r.state === 'unfinished'));
    if (applied !== undefined)
      return { action: 'refuse', identity, refusal: alreadyApplied(identity, applied), previous: applied };
  }
  return { action: 'plan', identity };
}

/** What a kind's refusal counts, and what `--again` does for it. */
function repeatWords(kind: string): { unit: string; again: string } {
  switch (kind) {
    case 'messages':
      // Planned again, the recipients an earlier run sent to are skipped unless --resend.
      return {
        unit: 'messages',
        again:
          '--resend sends it once more (--again plans it again without the recipients this template was already sent to)',
      };
    case 'templates':
      return {
        unit: 'templates',
        again: '--again plans it again (a template the store already has is not submitted again)',
      };
    default:
      return { unit: 'deltas', again: '--again applies it once more' };
  }
}

function alreadyApplied(identity: InputIdentity, previous: InputRun): AlreadyAppliedInput {
  const { done, total } = previous;
  const { unit, again } = repeatWords(identity.kind);
  const howMuch =
    done !== undefined && total !== undefined
      ? `${done} of ${total} ${unit}`
      : total !== undefined
        ? `an unknown part of ${total} ${unit} (its run directory is gone)`
        : `an unknown number of its ${unit} (its run directory is gone)`;
  const failed = (previous.failed ?? 0) > 0 && previous.run !== undefined;
  const retry = failed ? `; to retry what failed instead: mbulk runs resume ${previous.runId}` : '';
  const sheet = identity.sheet !== undefined ? ` sheet ${identity.sheet}` : '';
  return {
    refused: 'already-applied',
    run: previous.runId,
    appliedAt: previous.at,
    ...(done !== undefined ? { applied: done } : {}),
    ...(total !== undefined ? { total } : {}),
    input: identity.input,
    sha256: identity.sha256,
    message: `${identity.input}${sheet} (sha256 ${identity.sha256.slice(0, 8)}…) was applied to this store by run ${previous.runId} at ${previous.at}: ${howMuch}; ${again}${retry}. Nothing was written`,
  };
}
