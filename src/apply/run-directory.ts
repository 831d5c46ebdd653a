import { isPidAlive } from './lock-file.js';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../files/atomic-file.js';
import { writePrettyJsonAtomic } from '../files/pretty-json-file.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { StateFileError } from '../errors/state-file-error.js';

/**
 * A run directory `.mbulk/runs/<run-id>/` holds everything one import produced: the plan, the
 * journal, the results and failed files, the backup, the report and `run.json` (what the run
 * is and how far it got). Run ids sort by creation time and read like
 * `20261122-001530-products-a1b2` (UTC).
 */

export type RunStatus = 'planned' | 'applying' | 'applied' | 'failed' | 'interrupted';

/** Files of a run directory, by role. `backup.ndjson` is the crash-safe log `backup.json` is built from. */
export const RUN_FILES = {
  meta: 'run.json',
  plan: 'plan.json',
  journal: 'journal.ndjson',
  results: 'results.csv',
  failed: 'failed.csv',
  backup: 'backup.json',
  backupLog: 'backup.ndjson',
  report: 'report.md',
  /** The review page of the plan (self-contained HTML), written beside report.md. */
  reportHtml: 'report.html',
  /** The last drift check that refused applying the run (shown on its review page), if any. */
  drift: 'drift.json',
} as const;
export type RunFile = keyof typeof RUN_FILES;

const RunMetaSchema = z.object({
  id: z.string(),
  kind: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(['planned', 'applying', 'applied', 'failed', 'interrupted']),
  input: z.string().optional(),
  options: z.record(z.string(), z.unknown()),
  target: z.string(),
  store_id: z.string().optional(),
  counts: z.record(z.string(), z.number()),
  /** Process applying the run while status is `applying` (a dead pid means it was killed). */
  pid: z.int().optional(),
  /** Sequence number of the journal's last record when the last session ended (damage check). */
  journal_seq: z.int().optional(),
  /** The identity of the input it was planned from (jobs/input-identity.ts): a re-run finds it by this. */
  input_key: z.string().optional(),
  /** sha256 (hex) of the input's bytes. */
  input_sha256: z.string().optional(),
  /** The input holds deltas: applied once, it is refused again (`--again` applies it once more). */
  input_deltas: z.boolean().optional(),
  /**
   * The command line's options that shaped the plan (`--images`, `--missing`…; null: not given):
   * an `import … --apply` continuing this run with other ones is refused (cli/plan-flags.ts).
   */
  plan_flags: z.record(z.string(), z.unknown()).optional(),
  /**
   * What an apply of the plan needs, else it is refused (set when planned; see ApplyNeed): the
   * options that lift a refusal (`allowDeletes`, `allowPriceJumps`) or `plan-again` when none can.
   */
  needs: z.array(z.string()).optional(),
});

/**
 * What an apply of a planned run needs (run.json's `needs`): an option that lifts its refusal
 * (`allowDeletes`: the delete guard; `allowPriceJumps`: suspicious prices), or `plan-again`: no
 * option lifts it (a --max-changes guard, stock read without --stock-unknown).
 */
export type ApplyNeed = 'allowDeletes' | 'allowPriceJumps' | 'plan-again';

/** Contents of `run.json`. */
export type RunMeta = z.infer<typeof RunMetaSchema>;

export interface CreateRunOptions {
  /** What is imported: `products`, `customers`, `stock`, `templates`, `messages`. */
  kind: string;
  /** Input file path as given by the user. */
  input?: string;
  /** The options the run was planned with (secrets are dropped, see `dropSecrets`). */
  options?: Record<string, unknown>;
  /** Where it writes, for people: `sandbox (embedded)` or a base URL. Never the token. */
  target: string;
  storeId?: string;
  counts?: Record<string, number>;
  /** Clock (default: now). */
  now?: Date;
}

/** A run id or prefix that matches no run, or several. */
export class RunNotFoundError extends MbulkError {
  static override readonly errorName: string = 'RunNotFoundError';
  constructor(
    message: string,
    readonly candidates: string[] = [],
  ) {
    super('usage', message);
  }
}

/** `<cwd>/.mbulk/runs`: the default root of run directories. */
export function defaultRunsRoot(cwd: string): string {
  return path.join(cwd, '.mbulk', 'runs');
}

/** `YYYYMMDD-HHMMSS-<kind>-<4 hex>` in UTC: sorts by creation time, unique in practice. */
export function newRunId(
  kind: string,
  now: Date = new Date(),
  suffix = randomBytes(2).toString('hex'),
): string {
  const iso = now.toISOString(); // 2026-11-22T00:15:30.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  const safeKind =
    kind
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'run';
  return `${stamp}-${safeKind}-${suffix}`;
}

/** The last millisecond newPreciseRunId gave an id in this process. */
let lastPreciseMs = 0;

/**
 * `YYYYMMDD-HHMMSS-mmm-<kind>-<4 hex>` in UTC: newRunId with the milliseconds, and later than any
 * id this function made before in this process (a second id in the same millisecond takes the
 * next one), so ids made within one second sort by when they were made, not by their random
 * suffix (fleet runs). An id of the older form, without the milliseconds, is read as before
 * (runIdTime reads both).
 */
export function newPreciseRunId(
  kind: string,
  now: Date = new Date(),
  suffix = randomBytes(2).toString('hex'),
): string {
  const ms = Math.max(now.getTime(), lastPreciseMs + 1);
  lastPreciseMs = ms;
  const at = new Date(ms);
  const id = newRunId(kind, at, suffix);
  // After `YYYYMMDD-HHMMSS` (15 characters): the milliseconds.
  return `${id.slice(0, 15)}-${String(at.getUTCMilliseconds()).padStart(3, '0')}${id.slice(15)}`;
}

const SECRET_OPTION = /^(token|api[-_]?token|authorization|password|secret|api[-_]?key)$/i;

/** Options as stored in run.json: without tokens or secrets, whatever the caller passed. */
export function dropSecrets(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (SECRET_OPTION.test(key) || value === undefined) continue;
    out[key] = value;
  }
  return out;
}

const DriftRefusalSchema = z.object({
  checkedAt: z.string(),
  entities: z.number(),
  lines: z.array(z.string()),
  fix: z.string(),
});

/**
 * `drift.json`: the last drift check that refused applying a run (the live store changed since
 * planning), so the run's review page says so until a check finds the store as planned again.
 */
export type DriftRefusalRecord = z.infer<typeof DriftRefusalSchema>;

/** The drift refusal recorded in run directory DIR, or undefined (none, or not readable as one). */
export function readDriftRefusal(dir: string): DriftRefusalRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, RUN_FILES.drift), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = DriftRefusalSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** One run directory. Paths are absolute; `meta` is the last `run.json` read or written. */
export class RunDirectory {
  private constructor(
    readonly dir: string,
    private currentMeta: RunMeta,
  ) {}

  /**
   * Set by `runs resume --reconcile` for this process only: the next apply settles every
   * operation the journal cannot prove done by re-reading the store (see applyRun).
   */
  settleUnproven = false;

  get id(): string {
    return this.currentMeta.id;
  }

  get meta(): RunMeta {
    return this.currentMeta;
  }

  /**
   * What the run really is, by the last `run.json` read (`refresh()` first for the latest):
   * `applying` only while the process applying it is alive, `interrupted` once it is gone.
   */
  status(): RunStatus {
    return derivedStatus(this.currentMeta);
  }

  /** Absolute path of one of the run's files. */
  file(name: RunFile): string {
    return path.join(this.dir, RUN_FILES[name]);
  }

  /**
   * Records the drift check's verdict: a refusal (drift.json written) or, with undefined, a store
   * found as planned (drift.json removed). True when the record changed (the page needs rewriting).
   */
  recordDriftRefusal(record: DriftRefusalRecord | undefined): boolean {
    const file = this.file('drift');
    if (record !== undefined) {
      writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
      return true;
    }
    if (!fs.existsSync(file)) return false;
    fs.rmSync(file, { force: true });
    return true;
  }

  /** Creates a new run directory under `root` (created if needed) with status `planned`. */
  static create(root: string, options: CreateRunOptions): RunDirectory {
    const now = options.now ?? new Date();
    fs.mkdirSync(root, { recursive: true });
    for (let tries = 0; ; tries++) {
      const id = newRunId(options.kind, now);
      const dir = path.resolve(root, id);
      try {
        fs.mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && tries < 20) continue;
        throw error;
      }
      const meta: RunMeta = {
        id,
        kind: options.kind,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        status: 'planned',
        options: dropSecrets(options.options ?? {}),
        target: options.target,
        counts: options.counts ?? {},
      };
      if (options.input !== undefined) meta.input = options.input;
      if (options.storeId !== undefined) meta.store_id = options.storeId;
      const run = new RunDirectory(dir, meta);
      run.writeMeta();
      return run;
    }
  }

  /** Opens an existing run directory (one holding `run.json`). */
  static load(dir: string): RunDirectory {
    const abs = path.resolve(dir);
    return new RunDirectory(abs, readMeta(path.join(abs, RUN_FILES.meta)));
  }

  /** Re-reads run.json. */
  refresh(): RunMeta {
    this.currentMeta = readMeta(this.file('meta'));
    return this.currentMeta;
  }

  /** Updates run.json atomically (status, counts, store id…) and returns the new meta. */
  update(patch: Partial<Omit<RunMeta, 'id' | 'created_at'>>): RunMeta {
    const next: RunMeta = { ...this.currentMeta, ...patch, updated_at: new Date().toISOString() };
    if (patch.options) next.options = dropSecrets(patch.options);
    this.currentMeta = RunMetaSchema.parse(next);
    this.writeMeta();
    return this.currentMeta;
  }

  /**
   * Sets the status; `applying` records this process's pid (so a later look can tell a killed
   * run from a running one) and any other status clears it.
   */
  setStatus(status: RunStatus, counts?: Record<string, number>): RunMeta {
    const next: RunMeta = { ...this.currentMeta, status, updated_at: new Date().toISOString() };
    if (counts) next.counts = counts;
    if (status === 'applying') next.pid = process.pid;
    else delete next.pid;
    this.currentMeta = next;
    this.writeMeta();
    return next;
  }

  /**
   * Writes plan.json atomically (the plan is never seen half-written): the text of
   * JSON.stringify(plan, null, 2), written in pieces (a million-row plan is never one string).
   */
  writePlan(plan: unknown): void {
    writePrettyJsonAtomic(this.file('plan'), plan);
  }

  /** Reads plan.json; validate it with the plan's own schema. A missing or damaged file: RunFileError. */
  readPlan(): unknown {
    return readJsonFile(this.file('plan'));
  }

  private writeMeta(): void {
    writeFileAtomic(this.file('meta'), `${JSON.stringify(this.currentMeta, null, 2)}\n`);
  }
}

/**
 * Whether a run that says `applying` is really being applied now; false when its process is
 * gone (killed): such a run is effectively interrupted and can be resumed.
 */
export function isRunLive(meta: RunMeta): boolean {
  return meta.status === 'applying' && meta.pid !== undefined && isPidAlive(meta.pid);
}

/**
 * The one derivation of a run's status from its `run.json`: a run recorded `applying` whose
 * process is gone (killed, crashed) is `interrupted`; everything else is as recorded.
 */
export function derivedStatus(meta: RunMeta): RunStatus {
  return meta.status === 'applying' && !isRunLive(meta) ? 'interrupted' : meta.status;
}

/**
 * Every run under `root`, oldest first (by `created_at`, to the millisecond: runs planned within
 * one second have ids that sort by their random suffix), each with its derived status (a run
 * left `applying` by a process that is gone reads `interrupted`). Directories without a readable
 * run.json are skipped.
 */
export function listRuns(root: string): RunMeta[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs: RunMeta[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    try {
      const meta = readMeta(path.join(root, entry.name, RUN_FILES.meta));
      runs.push({ ...meta, status: derivedStatus(meta) });
    } catch {
      // not a run directory, or run.json damaged: not listed
    }
  }
  const order = (a: RunMeta): string => `${a.created_at} ${a.id}`;
  return runs.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * Finds a run by id, by a unique id prefix, or by a path to a run directory or to a file in it
 * (e.g. its `plan.json`, relative to `cwd`). Throws RunNotFoundError when nothing or several runs match.
 */
export function openRun(root: string, idOrPath: string, cwd: string = process.cwd()): RunDirectory {
  const asPath = path.resolve(cwd, idOrPath);
  if (looksLikePath(idOrPath) || fs.existsSync(asPath)) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(asPath);
    } catch {
      stat = undefined;
    }
    if (stat) {
      const dir = stat.isDirectory() ? asPath : path.dirname(asPath);
      if (fs.existsSync(path.join(dir, RUN_FILES.meta))) return RunDirectory.load(dir);
      throw new RunNotFoundError(`${idOrPath} is not a run directory (it has no ${RUN_FILES.meta}).`);
    }
    if (looksLikePath(idOrPath)) throw new RunNotFoundError(`${idOrPath} does not exist.`);
  }
  const exact = path.join(root, idOrPath);
  if (fs.existsSync(path.join(exact, RUN_FILES.meta))) return RunDirectory.load(exact);
  const matches = listRuns(root)
    .map((meta) => meta.id)
    .filter((id) => id.startsWith(idOrPath));
  if (matches.length === 1) return RunDirectory.load(path.join(root, matches[0] as string));
  if (matches.length === 0) {
    throw new RunNotFoundError(
      `No run matches ${JSON.stringify(idOrPath)} in ${root} (see mbulk runs list).`,
    );
  }
  const shown = matches.slice(0, 10).join(', ');
  throw new RunNotFoundError(
    `${matches.length} runs match ${JSON.stringify(idOrPath)}: ${shown}${matches.length > 10 ? ', …' : ''}. Give more of the id.`,
    matches,
  );
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || value.includes(path.sep) || value.endsWith('.json') || value.startsWith('.');
}

/** A run file that is missing or not valid JSON (edited by hand, truncated): a usage error, not a crash. */
export class RunFileError extends StateFileError {
  static override readonly errorName: string = 'RunFileError';
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunFileError(
      file,
      code === 'ENOENT' ? `${file} does not exist.` : `${file} cannot be read (${code ?? 'error'}).`,
      { cause: error },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RunFileError(
      file,
      `${file} is damaged: it is not valid JSON (${(error as Error).message}). Plan the run again.`,
      { cause: error },
    );
  }
}

function readMeta(file: string): RunMeta {
  const parsed = RunMetaSchema.safeParse(readJsonFile(file));
  if (!parsed.success) {
    throw new RunFileError(file, `${file} is not a valid run.json: ${parsed.error.message}`);
  }
  return parsed.data;
}
