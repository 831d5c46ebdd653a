import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { MbulkError } from '../errors/mbulk-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';

/**
 * An exclusive lock held by one process, as a file: created atomically (the owner's details are
 * written to a private file first and hard-linked into place, so the lock never exists without
 * them), released by its owner. A lock left by a process that is gone (its pid is dead, or now
 * belongs to a process started later) is stale and is taken over, under a short-lived "breaker"
 * file so that two processes that both find it stale cannot both take it: the breaker re-checks
 * that the lock is still the same stale file (same inode) before removing it, and everyone then
 * races on the atomic create again. Holders on another host are never judged stale (their pid
 * means nothing here). Staleness is never judged by age: a loaded machine stalls live processes.
 */

/** Lock files (and the breaker) are private to their owner: they name the command that holds them. */
const LOCK_MODE = 0o600;

/** Who holds a lock (the lock file's JSON). */
export interface LockOwner {
  pid: number;
  /** The process's start time (Linux: clock ticks since boot, /proc/PID/stat field 22): tells a reused pid. */
  startTime?: string;
  host: string;
  /** The command line, for people. */
  command: string;
  /** The run being applied, once known. */
  runId?: string;
  acquiredAt: string;
  /** Random: tells this holder's lock from a later one at the same path. */
  token: string;
}

/** The lock is held by another live process (category `refused`). */
export class LockHeldError extends MbulkError {
  static override readonly errorName: string = 'LockHeldError';
  constructor(
    readonly file: string,
    readonly owner: LockOwner | undefined,
  ) {
    super('refused', `${file} is held by ${describeOwner(owner)}`);
  }
}

/** "process 1234 (mbulk import stock …, run 2026…) on host, since …" */
export function describeOwner(owner: LockOwner | undefined): string {
  if (!owner) return 'another process';
  const parts = [
    // Redacted again: a lock written by an older mbulk may hold a whole URL.
    owner.command ? `\`${redactUrls(owner.command)}\`` : undefined,
    owner.runId ? `run ${owner.runId}` : undefined,
  ]
    .filter((p) => p !== undefined)
    .join(', ');
  return `process ${owner.pid}${parts ? ` (${parts})` : ''} on ${owner.host}, since ${owner.acquiredAt}`;
}

export interface LockFileOptions {
  /** What the owner is doing (default: this process's command line). */
  command?: string;
  runId?: string;
}

/** A held lock. `release()` removes it if it is still this holder's; safe to call twice. */
export class LockFile {
  private released = false;
  private constructor(
    readonly file: string,
    private owner: LockOwner,
  ) {}

  /** Takes the lock or throws LockHeldError naming the live holder. Takes over a stale lock. */
  static acquire(file: string, options: LockFileOptions = {}): LockFile {
    const owner: LockOwner = {
      pid: process.pid,
      host: os.hostname(),
      command: redactUrls(options.command ?? commandLine()),
      acquiredAt: new Date().toISOString(),
      token: randomBytes(8).toString('hex'),
    };
    const start = processStartTime(process.pid);
    if (start !== undefined) owner.startTime = start;
    if (options.runId !== undefined) owner.runId = options.runId;
    const body = JSON.stringify(owner);
    for (let tries = 0; tries < 200; tries++) {
      if (createExclusive(file, body)) return new LockFile(file, owner);
      const seen = statOrUndefined(file);
      if (!seen) continue; // released meanwhile: try again
      const seenText = readText(file);
      const holder = readOwner(file);
      // Another user's lock (lock files are private): held, by someone we cannot name.
      if (holder === 'private') throw new LockHeldError(file, undefined);
      if (holder === 'unreadable') {
        // Being written? A link makes it appear complete, so this is a foreign or damaged file:
        // only when it is not fresh is it treated as stale.
        if (Date.now() - seen.mtimeMs < 2000) throw new LockHeldError(file, undefined);
      } else if (holder !== undefined && isOwnerAlive(holder)) {
        throw new LockHeldError(file, holder);
      }
      breakStale(file, seen, seenText);
    }
    throw new LockHeldError(file, ownerOrUndefined(file));
  }

  /** Records the run id in the lock (shown to whoever is refused). */
  setRunId(runId: string): void {
    if (this.released || this.owner.runId === runId) return;
    this.owner = { ...this.owner, runId };
    try {
      writeFileAtomic(this.file, JSON.stringify(this.owner), { mode: LOCK_MODE });
    } catch {
      // best effort: the lock still holds without the run id
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    const holder = readOwner(this.file);
    if (typeof holder === 'object' && holder.token === this.owner.token) {
      fs.rmSync(this.file, { force: true });
    }
  }
}

/** Atomic create with content: write a private file, hard-link it to `file` (fails if it exists). */
function createExclusive(file: string, body: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, body, { mode: LOCK_MODE });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Removes a stale lock, but only the very file judged stale (same inode, still stale), under a
 * breaker file: without it, two processes finding the same stale lock could each remove it, the
 * second removing the lock the first had just created (two holders).
 */
function breakStale(file: string, seen: fs.Stats, seenText: string | undefined): void {
  const breaker = `${file}.break`;
  const me: Pick<LockOwner, 'pid' | 'host' | 'startTime'> = { pid: process.pid, host: os.hostname() };
  const start = processStartTime(process.pid);
  if (start !== undefined) me.startTime = start;
  if (!createExclusive(breaker, JSON.stringify(me))) {
    // Someone else is breaking it (for microseconds). A breaker whose process is gone was left by
    // a process killed in that window: remove it (only that very file). Never judged by age: a
    // busy machine can stall a live process for seconds.
    const b = statOrUndefined(breaker);
    const holder = b ? readOwner(breaker) : undefined;
    if (b && typeof holder === 'object' && !isOwnerAlive(holder)) {
      const again = statOrUndefined(breaker);
      if (again && again.ino === b.ino && again.dev === b.dev) fs.rmSync(breaker, { force: true });
    }
    sleepMs(1);
    return;
  }
  try {
    const now = statOrUndefined(file);
    if (!now || now.ino !== seen.ino || now.dev !== seen.dev) return;
    if (readText(file) !== seenText) return;
    const holder = readOwner(file);
    if (typeof holder === 'object' && isOwnerAlive(holder)) return;
    fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readOwner(file: string): LockOwner | 'unreadable' | 'private' | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return code === 'EACCES' || code === 'EPERM' ? 'private' : 'unreadable';
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string') return value as LockOwner;
  } catch {
    // fall through
  }
  // An older lock file holds just the pid.
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid) && pid > 0 && /^\d+\s*$/.test(text)) {
    return { pid, host: os.hostname(), command: '', acquiredAt: '?', token: '' };
  }
  return 'unreadable';
}

function ownerOrUndefined(file: string): LockOwner | undefined {
  const o = readOwner(file);
  return typeof o === 'object' ? o : undefined;
}

/** Alive: same host, the pid exists, and (where known) it is the same process, not a reused pid. */
export function isOwnerAlive(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return true;
  if (!isPidAlive(owner.pid)) return false;
  if (owner.startTime === undefined) return true;
  const now = processStartTime(owner.pid);
  return now === undefined || now === owner.startTime;
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's start time on Linux (field 22 of /proc/PID/stat); undefined elsewhere. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function commandLine(): string {
  return describeCommand(process.argv.slice(2));
}

/**
 * Every URL in TEXT as its scheme and host only (`https://hooks.example.com/…`): a webhook's path
 * is its secret (Slack, Teams, Mattermost) and a feed's query string may carry a key, and lock
 * files and the messages that name their holder show neither.
 */
export function redactUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`]+/gi, (url) => {
    try {
      const parsed = new URL(url);
      const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`;
      return `${parsed.protocol}//${parsed.host}${rest === '' || rest === '/' ? '' : '/…'}`;
    } catch {
      return '<URL>';
    }
  });
}

/**
 * `mbulk ARGS` for people, without the value of a `--token`, `--header` or similar option, and
 * with every URL cut to its scheme and host (redactUrls).
 */
export function describeCommand(argv: readonly string[]): string {
  const shown: string[] = [];
  let hide = false;
  for (const arg of argv) {
    if (hide) {
      shown.push('***');
      hide = false;
    } else if (/^--(token|header|authorization)(=|$)/i.test(arg)) {
      shown.push(arg.includes('=') ? `${arg.slice(0, arg.indexOf('='))}=***` : arg);
      hide = !arg.includes('=');
    } else shown.push(arg);
  }
  return redactUrls(['mbulk', ...shown].join(' ')).slice(0, 300);
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
