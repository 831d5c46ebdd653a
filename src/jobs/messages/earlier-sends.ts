import { join } from 'node:path';
import { readJournal } from '../../apply/journal.js';
import { RUN_FILES, listRuns } from '../../apply/run-directory.js';
import type { EarlierSend } from '../../plan/message-plan.js';

/**
 * Sends that other message runs under `runsRoot` made for this store and template, by send key,
 * read from their journals: answered sends (`sent`) and sends whose answer was lost (`unknown`: they
 * may have been delivered; resuming that run settles them). Failed sends are not listed.
 */
export function earlierMessageSends(
  runsRoot: string,
  storeId: string,
  template: string,
  excludeRunId?: string,
): Map<string, EarlierSend> {
  const earlier = new Map<string, EarlierSend>();
  for (const meta of listRuns(runsRoot)) {
    if (meta.kind !== 'messages' || meta.id === excludeRunId) continue;
    if (meta.store_id !== storeId || meta.options['template'] !== template) continue;
    const journal = readJournal(join(runsRoot, meta.id, RUN_FILES.journal));
    for (const [key, state] of journal.states) {
      const status = state.status === 'done' ? 'sent' : state.status === 'unknown' ? 'unknown' : undefined;
      if (status === undefined) continue;
      // A run with --allow-duplicates keys its sends by row too; its identity is the key without it.
      for (const k of new Set([key, key.replace(/:row\d+$/, '')])) {
        if (earlier.get(k)?.status !== 'sent') earlier.set(k, { runId: meta.id, status });
      }
    }
  }
  return earlier;
}
