import * as fs from 'node:fs';
import { StateFileError } from '../errors/state-file-error.js';
import { AppendLog } from '../files/append-log.js';
import { AtomicFileSync } from '../files/atomic-file.js';

/**
 * The before-state of every entity a run touches (docs/architecture.md, safety rule 3), so a run can be
 * rolled back. During the run it is an append-only `backup.ndjson`, one line per entity, recorded
 * BEFORE the entity's write is sent (`record`, then `await flush()`, then send); a kill leaves
 * at worst a torn last line, which readers skip. `finalizeBackup` turns it into `backup.json` (atomically) when the run ends.
 *
 * The first before-state recorded for an entity wins, across resumes too: a later record
 * would be taken after part of the run had already changed the entity.
 */

export interface BackupEntry {
  /** Entity type: `product`, `customer`, `inventory_item`, `template`… */
  type: string;
  /** Live id; for a create, the operation key (there was no entity). */
  id: string;
  /** The entity as it was before the run; null when the run creates it. */
  before: unknown;
  /** ISO time the before-state was read. */
  t: string;
  /**
   * The journal's length when it was written: its operation's `start` record (and every record
   * before it) was flushed first. Evidence of a journal cut short (`backupJournalSeq`).
   */
  journal_seq?: number;
}

export interface BackupFile {
  version: 1;
  run_id?: string;
  created_at: string;
  entities: BackupEntry[];
}

export interface BackupLogOptions {
  /** `flush()` fdatasyncs (default true); records survive a killed process either way. */
  durable?: boolean;
  now?: () => Date;
}

/** Appender of backup.ndjson. Remembers which entities are already saved (also from earlier sessions). */
export class BackupLog {
  private readonly now: () => Date;
  /** The highest journal record named in this session. */
  private journalSeq = 0;

  private constructor(
    readonly file: string,
    private readonly log: AppendLog,
    private readonly saved: Set<string>,
    options: BackupLogOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  static open(file: string, options: BackupLogOptions = {}): BackupLog {
    const saved = new Set(readBackupLog(file).map((e) => entityKey(e.type, e.id)));
    return new BackupLog(file, AppendLog.open(file, { durable: options.durable }), saved, options);
  }

  /** Whether the entity's before-state is already saved. */
  has(type: string, id: string): boolean {
    return this.saved.has(entityKey(type, id));
  }

  /**
   * Saves before-states (one write(2) for the batch) and returns how many were new (flush when
   * any was). Entities already saved are skipped: the first before-state wins. With `journalSeq`,
   * the lines name it; when nothing is new, a line naming only it is written (no flush needed).
   */
  record(
    entries: ReadonlyArray<{ type: string; id: string; before: unknown }>,
    /** The journal's last record flushed before this write (see `BackupEntry.journal_seq`). */
    journalSeq?: number,
  ): number {
    if (this.log.closed) throw new Error(`Backup ${this.file} is closed.`);
    const t = this.now().toISOString();
    const lines: string[] = [];
    for (const entry of entries) {
      const key = entityKey(entry.type, entry.id);
      if (this.saved.has(key)) continue;
      this.saved.add(key);
      const line = { type: entry.type, id: entry.id, before: entry.before ?? null, t };
      lines.push(
        `${JSON.stringify(journalSeq === undefined ? line : { ...line, journal_seq: journalSeq })}\n`,
      );
    }
    if (journalSeq !== undefined && journalSeq > this.journalSeq) {
      this.journalSeq = journalSeq;
      // Every entity already saved: a line that only marks how long the journal was (readers of
      // entries skip it; it needs no flush of its own).
      if (lines.length === 0) this.log.append(`${JSON.stringify({ journal_seq: journalSeq })}\n`);
    }
    if (lines.length === 0) return 0;
    this.log.append(lines.join(''));
    return lines.length;
  }

  /** Resolves when every entry recorded so far is on disk (shared fdatasync; no-op unless durable). */
  flush(): Promise<void> {
    return this.log.flush();
  }

  /** Flushes and closes. Await pending `flush()` calls first. */
  close(): void {
    this.log.close();
  }
}

/** Reads backup.ndjson (missing file: empty), skipping torn lines and keeping the first entry per entity. */
export function readBackupLog(file: string): BackupEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const seen = new Set<string>();
  const entries: BackupEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // torn line after a crash
    }
    if (!isEntry(value)) continue;
    const key = entityKey(value.type, value.id);
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(value);
  }
  return entries;
}

/**
 * The highest journal record backup.ndjson names (0: none): the journal was at least that long,
 * so a journal that ends earlier lost records. Torn and foreign lines are skipped.
 */
export function backupJournalSeq(file: string): number {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let highest = 0;
  for (const match of text.matchAll(/"journal_seq":(\d{1,15})\}$/gm)) {
    highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

/**
 * Writes backup.json from backup.ndjson, atomically, streaming entry by entry (a stock run can
 * touch a million items). The ndjson log is kept: it remains the source if the run is resumed.
 */
export function finalizeBackup(logFile: string, jsonFile: string, meta: { runId?: string } = {}): number {
  const entries = readBackupLog(logFile);
  const out = new AtomicFileSync(jsonFile);
  try {
    const head: Omit<BackupFile, 'entities'> = { version: 1, created_at: new Date().toISOString() };
    if (meta.runId !== undefined) head.run_id = meta.runId;
    const prefix = JSON.stringify(head).slice(0, -1);
    out.write(`${prefix},"entities":[\n`);
    let chunk: string[] = [];
    entries.forEach((entry, i) => {
      chunk.push(`${JSON.stringify(entry)}${i < entries.length - 1 ? ',' : ''}\n`);
      if (chunk.length >= 1000) {
        out.write(chunk.join(''));
        chunk = [];
      }
    });
    out.write(`${chunk.join('')}]}\n`);
  } catch (error) {
    out.discard();
    throw error;
  }
  out.commit();
  return entries.length;
}

/**
 * Reads a run's backup: backup.ndjson when present (it is a superset of backup.json, also after a
 * resume), else backup.json (e.g. a run directory copied without its log).
 */
export function readBackup(jsonFile: string, logFile?: string): BackupEntry[] {
  if (logFile !== undefined && fs.existsSync(logFile)) return readBackupLog(logFile);
  if (fs.existsSync(jsonFile)) {
    let parsed: Partial<BackupFile> | null;
    try {
      parsed = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as Partial<BackupFile> | null;
    } catch (error) {
      throw new StateFileError(
        jsonFile,
        `${jsonFile} is damaged: it is not valid JSON (${(error as Error).message}). ${BACKUP_REMEDY}`,
        { cause: error },
      );
    }
    if (!Array.isArray(parsed?.entities)) {
      throw new StateFileError(jsonFile, `${jsonFile} is not a backup file. ${BACKUP_REMEDY}`);
    }
    return parsed.entities.filter(isEntry);
  }
  return [];
}

/** What to do when a run's backup cannot be read: without it the run cannot be rolled back. */
const BACKUP_REMEDY =
  'Restore it (or backup.ndjson beside it) from a copy of the run directory: without it the run cannot be rolled back.';

function entityKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

function isEntry(value: unknown): value is BackupEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['type'] === 'string' && typeof v['id'] === 'string' && 'before' in v;
}
