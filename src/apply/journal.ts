import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { AppendLog, type AppendLogFs } from '../files/append-log.js';
import { LockFile, LockHeldError } from './lock-file.js';
import { MbulkError } from '../errors/mbulk-error.js';

/**
 * The apply journal: `journal.ndjson` in the run directory, one JSON record per line, append
 * only. Every operation is recorded once before its request is sent (`start`) and once after
 * the answer (`done`, `failed`, or `unknown` when the answer was lost). Each record is one
 * write(2) as soon as it is appended (so a process killed at any instant leaves every earlier
 * record intact and at worst a torn last line, which readers skip), and `flush()` makes the
 * records durable against a power loss (fdatasync, shared by concurrent callers). The executor
 * awaits `flush()` after a `start` record before sending. Reading the journal back tells, per
 * operation key, whether it is done (with its result), failed, started without an answer
 * (outcome unknown), or not started.
 *
 * Integrity: every record carries `seq` (1, 2, 3… across sessions) and `crc` (CRC-32 of the line
 * up to the checksum), and counts only once its whole line is written (short writes are looped;
 * a failed write stops the journal: nothing more is appended, and the executor sends nothing
 * unjournaled). Reading back tells a torn last record (a prefix of a record, from a crash or a
 * full disk: it never counted) from damage (a bad checksum, a gap in the sequence, zeroed or
 * foreign bytes, or fewer records than the run recorded when it finished): a damaged journal
 * cannot prove what was sent, so `runs resume` refuses it unless told to re-read the store.
 */

/**
 * `settled` is not about one operation: written when `runs resume --reconcile` settled every
 * operation of a damaged journal against the store, it marks the damage before it as dealt with.
 */
export type JournalPhase = 'start' | 'done' | 'failed' | 'unknown' | 'settled';

/** Key of the `settled` record (it names no operation). */
export const SETTLED_KEY = '(journal)';

/** What is kept of an error: enough to report it, never a token. */
export interface JournalError {
  message: string;
  name?: string;
  code?: string;
  type?: string;
  status?: number;
  param?: string;
  requestId?: string;
  exitCode?: number;
}

export interface JournalRecord {
  /** Position in the journal, 1 for the first record ever written to it (absent in journals of older versions). */
  seq?: number;
  /** ISO timestamp of the record. */
  t: string;
  /** Kind of operation, e.g. `create_product`, `stock_batch`. */
  op: string;
  phase: JournalPhase;
  /** Operation key, unique within the run (stable across resumes). */
  key: string;
  idempotencyKey?: string;
  /** 1 for the first `start` of this key, 2 for the next (a resume), … */
  attempt?: number;
  /** On `done`: the operation's result (JSON). */
  result?: unknown;
  /** On `failed` / `unknown`. */
  error?: JournalError;
  /** On `done` / `failed`: the outcome was established by re-reading the live state, not by an answer. */
  reconciled?: boolean;
}

/** The journal's knowledge of one operation. */
export type OperationState =
  | { status: 'not_started' }
  | { status: 'done'; result: unknown; attempts: number; reconciled: boolean }
  /** A definite failure: the service answered and did not apply the operation. */
  | { status: 'failed'; error: JournalError; attempts: number }
  /** Started, and no definite answer was recorded: the operation may or may not have been applied. */
  | {
      status: 'unknown';
      attempts: number;
      idempotencyKey?: string;
      /** When the last attempt started (ISO): idempotency keys expire (24 h on the Merchant API). */
      startedAt?: string;
      error?: JournalError;
      /**
       * The journal holds no start of it, or a failure that a lost later attempt may have overtaken:
       * it is treated as possibly sent because the journal may have lost its last records (a
       * resume, see `executeOperations`' `unjournaledSince`) or is damaged (`settleUnproven`).
       */
      unproven?: boolean;
    };

export interface JournalSnapshot {
  states: Map<string, OperationState>;
  /** Records read. */
  records: number;
  /** Lines that were not valid records (torn or damaged). */
  damagedLines: number;
  /** Sequence number of the last valid record (0: none). */
  lastSeq: number;
  /** Time (ISO) of the last valid record: whatever a lost tail held was written after it. */
  lastAt?: string;
  /** Sequence number of the last `settled` record: evidence of a length before it was dealt with. */
  settledSeq?: number;
  /** Torn records: a prefix of a record cut short by a crash or a failed write; it never counted. */
  tornLines: number;
  /**
   * Why the journal cannot be trusted to tell what was sent (bad checksum, sequence gap, zeroed
   * bytes…), one line each with its line number; empty when it is intact (torn records aside).
   */
  damage: string[];
  /**
   * Set when a `settled` record follows damage: `runs resume --reconcile` re-read the store for
   * everything the journal could not prove (at `at`, ISO), so that damage no longer counts.
   */
  settled?: { at: string; damage: string[] };
}

const NOT_STARTED: OperationState = { status: 'not_started' };

/** Reads a journal file; a missing file is an empty journal. Torn or damaged lines are skipped and counted. */
export function readJournal(file: string): JournalSnapshot {
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptySnapshot();
    throw error;
  }
  return parseJournal(text);
}

/**
 * Parses journal text (see readJournal). `text` is the file read as latin1 (one char per byte, so
 * checksums are over the exact bytes); plain JSON text also works.
 */
export function parseJournal(text: string): JournalSnapshot {
  const snapshot = emptySnapshot();
  let start = 0;
  let lineNumber = 0;
  /** A bad line not yet known to be torn (it is, when the sequence goes on unbroken after it). */
  let pendingBad: { line: number; torn: boolean } | undefined;
  let legacy = 0;
  const damage = (message: string): void => {
    if (snapshot.damage.length < 20) snapshot.damage.push(message);
  };
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const raw = text.slice(start, end);
    start = end + 1;
    lineNumber++;
    if (raw.trim() === '') {
      if (raw.length > 0 && /[^\t\r ]/.test(raw)) damage(`line ${lineNumber}: zeroed or foreign bytes`);
      continue;
    }
    const parsed = parseLine(raw);
    if (parsed.kind === 'bad') {
      snapshot.damagedLines++;
      if (pendingBad) damage(`line ${pendingBad.line}: not a complete record`);
      pendingBad = { line: lineNumber, torn: parsed.torn };
      continue;
    }
    const record = parsed.record;
    if (record.seq === undefined) {
      legacy++;
    } else if (record.seq !== snapshot.lastSeq + 1) {
      damage(
        `line ${lineNumber}: record ${record.seq} follows record ${snapshot.lastSeq} (records are missing)`,
      );
    }
    if (pendingBad) {
      // A torn record never took its sequence number: the next session wrote it again.
      if (!pendingBad.torn) damage(`line ${pendingBad.line}: not a complete record`);
      else snapshot.tornLines++;
      pendingBad = undefined;
    }
    if (record.seq !== undefined) snapshot.lastSeq = record.seq;
    if (typeof record.t === 'string') snapshot.lastAt = record.t;
    applyRecord(snapshot, record);
    if (record.phase === 'settled' && record.seq !== undefined) snapshot.settledSeq = record.seq;
    if (record.phase === 'settled' && snapshot.damage.length > 0) {
      // Everything before was settled against the store: the damage stays on record, not in force.
      snapshot.settled = { at: record.t, damage: snapshot.damage };
      snapshot.damage = [];
    }
  }
  if (pendingBad) {
    if (pendingBad.torn) snapshot.tornLines++;
    else damage(`line ${pendingBad.line}: not a complete record`);
  }
  if (legacy > 0 && legacy !== snapshot.records)
    damage('records with and without sequence numbers are mixed');
  return snapshot;
}

type ParsedLine = { kind: 'record'; record: JournalRecord } | { kind: 'bad'; torn: boolean };

const CRC_TAIL = /,"crc":(\d{1,10})\}\s*$/;

/**
 * One line: a record whose checksum matches; a record of an older version (no seq, no crc); or a
 * bad line, torn when it is a cut-short record (a prefix of what the writer writes, no zero bytes).
 */
function parseLine(raw: string): ParsedLine {
  const tail = CRC_TAIL.exec(raw);
  if (tail) {
    const body = `${raw.slice(0, tail.index)}}`;
    if (crc32(Buffer.from(body, 'latin1')) !== Number(tail[1])) return { kind: 'bad', torn: false };
    const record = parseRecord(Buffer.from(body, 'latin1').toString('utf8'));
    return record ? { kind: 'record', record } : { kind: 'bad', torn: false };
  }
  const line = raw.trim();
  if (line.startsWith('{"seq":')) {
    // A record cut short: the writer's prefix, never zeroed or completed by other bytes.
    return { kind: 'bad', torn: !line.includes('\u0000') };
  }
  // Written by an older version (no checksum): readable, but proves less.
  const record = parseRecord(Buffer.from(line, 'latin1').toString('utf8'));
  if (record && record.seq === undefined) return { kind: 'record', record };
  return { kind: 'bad', torn: false };
}

/** The line the writer writes for a record: `{"seq":…,…,"crc":N}` + newline. */
export function formatRecord(record: JournalRecord & { seq: number }): string {
  const { seq, ...rest } = record;
  const body = JSON.stringify({ seq, ...rest });
  const crc = crc32(Buffer.from(body, 'utf8'));
  return `${body.slice(0, -1)},"crc":${crc}}\n`;
}

/**
 * Records the run wrote outside the journal, each proving the journal once reached some length:
 * run.json's `journal_seq` (written when a session ends) and the highest journal record the backup
 * log names (each backup entry is written after the start record of the operation it belongs to
 * was flushed, and before its request is sent). See `runJournalEvidence`.
 */
export interface JournalEvidence {
  /** run.json's `journal_seq`. */
  recordedSeq?: number | undefined;
  /** The highest `journal_seq` of backup.ndjson's entries. */
  backupSeq?: number | undefined;
}

/**
 * Why a journal cannot be trusted to tell what was sent: its own damage, or being shorter than
 * what the run recorded elsewhere (`evidence`: a truncated or emptied journal). Empty: intact.
 */
export function journalDamage(snapshot: JournalSnapshot, evidence: JournalEvidence = {}): string[] {
  const out = [...snapshot.damage];
  const { recordedSeq, backupSeq } = evidence;
  if (recordedSeq !== undefined && snapshot.lastSeq < recordedSeq) {
    out.push(
      `it ends at record ${snapshot.lastSeq}, but the run recorded ${recordedSeq} records (truncated or emptied)`,
    );
  } else if (backupSeq !== undefined && snapshot.settledSeq === undefined && snapshot.lastSeq < backupSeq) {
    // (After a `settled` record the numbering went on from where the damaged journal ended: the
    // backup's older entries no longer tell its length.)
    out.push(
      `it ends at record ${snapshot.lastSeq}, but the run's backup log names record ${backupSeq} (truncated or emptied)`,
    );
  }
  return out;
}

/** The state of one operation in a snapshot (`not_started` when the journal never mentions it). */
export function stateOf(snapshot: JournalSnapshot, key: string): OperationState {
  return snapshot.states.get(key) ?? NOT_STARTED;
}

/**
 * Whether the run left the entity of an operation in this state as it found it: never started,
 * or failed definitely (the service refused it). What a drift check of a resume still checks.
 */
export function unwritten(status: OperationState['status']): boolean {
  return status === 'not_started' || status === 'failed';
}

/** The file calls the journal writer makes: a seam for tests that need a full disk. */
export type JournalFs = AppendLogFs;

export interface JournalOptions {
  /** Where records are written (default: node:fs). Tests inject ENOSPC or short writes here. */
  fs?: JournalFs;
  /** `flush()` fdatasyncs, so records survive a power loss too, not only a killed process (default true). */
  durable?: boolean;
  /** Hold `<journal>.lock` while open, so two processes never apply one run at once (default true). */
  lock?: boolean;
  /** Clock for record timestamps (default: the system clock). */
  now?: () => Date;
}

/** Another live process holds the journal: applying the same run twice at once could repeat writes. */
export class JournalLockedError extends MbulkError {
  static override readonly errorName: string = 'JournalLockedError';
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      'refused',
      `This run is being applied by another process (pid ${pid}). Wait for it to finish, or delete ${lockFile} if that process is gone.`,
    );
  }
}

/**
 * A journal record could not be written (disk full, read-only, permission, I/O error): the
 * operation it announced was not sent, and nothing more is. Category `local` (exit code 5).
 */
export class JournalWriteError extends MbulkError {
  static override readonly errorName: string = 'JournalWriteError';
  readonly code: string;
  constructor(
    readonly file: string,
    override readonly cause: unknown,
  ) {
    const code = (cause as { code?: unknown } | undefined)?.code;
    const reason = typeof code === 'string' ? code : cause instanceof Error ? cause.message : String(cause);
    const runId = path.basename(path.dirname(file));
    super(
      'local',
      `cannot write the journal ${file} (${reason}${code === 'ENOSPC' ? ': the disk is full' : code === 'EROFS' ? ': read-only file system' : code === 'EACCES' || code === 'EPERM' ? ': permission denied' : ''}); nothing more was sent. Fix it, then continue with: mbulk runs resume ${runId}`,
    );
    this.code = typeof code === 'string' ? code : 'journal_write_failed';
  }
}

/** Writer of one run's journal. Open it once per process; `previous` holds what earlier sessions recorded. */
export class Journal {
  /** What the journal held when it was opened (earlier sessions of this run). */
  readonly previous: JournalSnapshot;
  private readonly current: JournalSnapshot;
  private readonly durable: boolean;
  private readonly now: () => Date;
  private readonly lockFile: LockFile | undefined;
  private seq: number;
  /** Set once a write failed: the file may end in a torn record, and nothing more is appended. */
  private broken: JournalWriteError | undefined;

  private constructor(
    readonly file: string,
    private readonly log: AppendLog,
    previous: JournalSnapshot,
    options: JournalOptions,
    lockFile: LockFile | undefined,
  ) {
    this.previous = previous;
    this.current = {
      states: new Map(previous.states),
      records: previous.records,
      damagedLines: previous.damagedLines,
      lastSeq: previous.lastSeq,
      tornLines: previous.tornLines,
      damage: previous.damage,
    };
    this.seq = previous.lastSeq;
    this.durable = options.durable ?? true;
    this.now = options.now ?? (() => new Date());
    this.lockFile = lockFile;
  }

  /** Opens (creating if needed) a journal for appending, after reading what it already holds. */
  static open(file: string, options: JournalOptions = {}): Journal {
    const lockFile = options.lock === false ? undefined : acquireLock(`${file}.lock`);
    try {
      const previous = readJournal(file);
      const log = AppendLog.open(file, { durable: options.durable, fs: options.fs });
      return new Journal(file, log, previous, options, lockFile);
    } catch (error) {
      lockFile?.release();
      throw error;
    }
  }

  /** Current state of an operation: earlier sessions plus records written by this one. */
  stateOf(key: string): OperationState {
    return stateOf(this.current, key);
  }

  /** A snapshot of the current states (shared map: do not mutate). */
  get snapshot(): JournalSnapshot {
    return this.current;
  }

  /**
   * Appends one record with a single write(2) before returning: from then on it survives the
   * process being killed. Await `flush()` for it to survive a power loss as well.
   */
  append(record: Omit<JournalRecord, 't' | 'seq'>): JournalRecord {
    if (this.log.closed) throw new Error(`Journal ${this.file} is closed.`);
    if (this.broken) throw this.broken;
    const full = { seq: this.seq + 1, t: this.now().toISOString(), ...record };
    // The whole line or an error: a failed write leaves the record uncounted and the journal stopped.
    try {
      this.log.append(formatRecord(full));
    } catch (error) {
      this.broken = new JournalWriteError(this.file, error);
      throw this.broken;
    }
    this.seq = full.seq;
    this.current.lastSeq = full.seq;
    applyRecord(this.current, full);
    return full;
  }

  /** Sequence number of the last record written (what `run.json` records at the end of a session). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Resolves when every record appended so far is on disk (no-op unless `durable`). */
  flush(): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    return this.log.flush().catch((error: unknown) => {
      this.broken ??= new JournalWriteError(this.file, error);
      throw this.broken;
    });
  }

  /** Flushes, closes the file and releases the lock. Await pending `flush()` calls first. Safe to call twice. */
  close(): void {
    if (this.log.closed) return;
    try {
      this.log.close(this.durable && !this.broken);
    } finally {
      this.lockFile?.release();
    }
  }
}

/** Turns any thrown value into what the journal keeps (message, code, type, status, request id). */
export function toJournalError(error: unknown): JournalError {
  if (!(error instanceof Error)) return { message: redact(String(error)) };
  const e = error as Error & Record<string, unknown>;
  const out: JournalError = { message: redact(e.message).slice(0, 2000), name: e.name };
  if (typeof e['code'] === 'string') out.code = e['code'];
  if (typeof e['type'] === 'string') out.type = e['type'];
  if (typeof e['status'] === 'number') out.status = e['status'];
  if (typeof e['param'] === 'string') out.param = e['param'];
  if (typeof e['requestId'] === 'string') out.requestId = e['requestId'];
  if (typeof e['exitCode'] === 'number') out.exitCode = e['exitCode'];
  return out;
}

/** Defence in depth: an error message must never carry a bearer token into a file. */
function redact(text: string): string {
  return text.replace(/(bearer\s+)[^\s"',;]+/gi, '$1[redacted]');
}

function emptySnapshot(): JournalSnapshot {
  return { states: new Map(), records: 0, damagedLines: 0, lastSeq: 0, tornLines: 0, damage: [] };
}

const PHASES = new Set<string>(['start', 'done', 'failed', 'unknown', 'settled']);

function parseRecord(line: string): JournalRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['key'] !== 'string' || typeof r['phase'] !== 'string' || !PHASES.has(r['phase'])) {
    return undefined;
  }
  return value as JournalRecord;
}

function applyRecord(snapshot: JournalSnapshot, record: JournalRecord): void {
  snapshot.records++;
  const before = snapshot.states.get(record.key);
  const attempts = before && before.status !== 'not_started' ? before.attempts : 0;
  switch (record.phase) {
    case 'start': {
      const next: OperationState = { status: 'unknown', attempts: attempts + 1 };
      if (record.idempotencyKey !== undefined) next.idempotencyKey = record.idempotencyKey;
      if (typeof record.t === 'string') next.startedAt = record.t;
      snapshot.states.set(record.key, next);
      break;
    }
    case 'done':
      snapshot.states.set(record.key, {
        status: 'done',
        result: record.result,
        attempts,
        reconciled: record.reconciled === true,
      });
      break;
    case 'failed':
      snapshot.states.set(record.key, {
        status: 'failed',
        error: record.error ?? { message: 'failed' },
        attempts,
      });
      break;
    case 'unknown': {
      const next: OperationState = { status: 'unknown', attempts };
      const previous = before?.status === 'unknown' ? before : undefined;
      const key = record.idempotencyKey ?? previous?.idempotencyKey;
      if (key !== undefined) next.idempotencyKey = key;
      if (previous?.startedAt !== undefined) next.startedAt = previous.startedAt;
      if (record.error !== undefined) next.error = record.error;
      snapshot.states.set(record.key, next);
      break;
    }
  }
}

/** The run's own lock (pid, start time; a stale one is taken over by exactly one process). */
function acquireLock(lockFile: string): LockFile {
  try {
    return LockFile.acquire(lockFile);
  } catch (error) {
    if (error instanceof LockHeldError) throw new JournalLockedError(lockFile, error.owner?.pid ?? 0);
    throw error;
  }
}
