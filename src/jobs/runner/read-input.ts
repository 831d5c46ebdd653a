import { readSheet, type ReadSheetOptions, type SheetReader } from '../../sheets/read-sheet.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { fileWarning, type JobCallbacks } from '../job-events.js';
import { SheetHeaderError } from '../sheet-header-error.js';

/** Opens an input sheet: the reader and what its header says. */
export async function openSheet(file: string, read: ReadSheetOptions | undefined) {
  const reader = readSheet(file, read);
  const info = await reader.open();
  return { reader, info };
}

/**
 * Reads every data row of an opened sheet in batches, reporting the `read` phase after each batch
 * and the reader's warnings (encoding guesses, ignored columns) at the end. Returns the row count.
 */
export async function readRowsInBatches(
  reader: Pick<SheetReader, 'batches' | 'warnings'>,
  file: string,
  callbacks: JobCallbacks,
  onRow: (row: SheetRow) => void,
  /** Rows read before these (the progress counts on from them). */
  before = 0,
): Promise<number> {
  let rows = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) onRow(row);
    rows += batch.length;
    callbacks.onProgress?.({ phase: 'read', done: before + rows });
  }
  for (const w of reader.warnings) callbacks.onWarning?.(fileWarning(file, w.message));
  return rows;
}

/**
 * A header that cannot be read on (a required column missing): closes the sheet and throws
 * SheetHeaderError naming every header error (`issues`: the header's issues; warnings are ignored).
 */
export async function refuseFatalHeader(
  reader: Pick<SheetReader, 'close'>,
  file: string,
  issues: readonly RowIssue[],
): Promise<void> {
  const fatal = issues.filter((i) => i.severity === 'error');
  if (fatal.length === 0) return;
  await reader.close();
  throw new SheetHeaderError(`${file}: ${fatal.map((i) => i.message).join('; ')}`, [...fatal]);
}
