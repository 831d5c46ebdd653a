import { backupJournalSeq } from './backup.js';
import type { JournalEvidence } from './journal.js';
import type { RunDirectory } from './run-directory.js';

/**
 * What a run recorded about its journal's length outside the journal (see `journalDamage`):
 * run.json's `journal_seq` (at the end of each session) and the highest record its backup log
 * names (written during the session, after the operation's start record was flushed). Neither
 * catches a whole run directory restored from an earlier snapshot: a resume proves every write
 * the journal does not before it sends (see `executeOperations`' `unjournaledSince`).
 */
export function runJournalEvidence(run: RunDirectory): JournalEvidence {
  const backupSeq = backupJournalSeq(run.file('backupLog'));
  return { recordedSeq: run.meta.journal_seq, ...(backupSeq > 0 ? { backupSeq } : {}) };
}
