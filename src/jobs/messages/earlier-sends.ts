import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../../apply/journal.js';
import { RUN_FILES, listRuns, type RunMeta } from '../../apply/run-directory.js';
import type { EarlierSend } from '../../plan/message-plan.js';

/** run.json's option naming the id of the template a message run sends (see planMessageSend). */
export const TEMPLATE_ID_OPTION = 'templateId';

/**
 * The id of the template a message run sent: its run.json's `templateId`, or, for a run recorded
 * before that option existed (its template's name only), the template of its plan.json.
 * Undefined when neither says (plan.json gone or damaged).
 */
function templateIdOf(runsRoot: string, meta: RunMeta): string | undefined {
  const recorded = meta.options[TEMPLATE_ID_OPTION];
  if (typeof recorded === 'string') return recorded;
  try {
    const plan: unknown = JSON.parse(readFileSync(join(runsRoot, meta.id, RUN_FILES.plan), 'utf8'));
    const template: unknown =
      typeof plan === 'object' && plan !== null ? Reflect.get(plan, 'template') : undefined;
    const id: unknown =
      typeof template === 'object' && template !== null ? Reflect.get(template, 'id') : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends that other message runs under `runsRoot` made for this store and template, by send key,
 * read from their journals: answered sends (`sent`) and sends whose answer was lost (`unknown`: they
 * may have been delivered; resuming that run settles them). Failed sends are not listed.
 *
 * The template is the one of that id: a template deleted and created again under the same name is
 * another template, whose runs are not this one's. A run whose template id cannot be known (an old
 * run without its plan.json) counts by its name: a message skipped is said (and `--resend` sends
 * it), a message sent twice cannot be taken back.
 */
export function earlierMessageSends(
  runsRoot: string,
  storeId: string,
  template: { readonly id: string; readonly name: string },
  excludeRunId?: string,
): Map<string, EarlierSend> {
  const earlier = new Map<string, EarlierSend>();
  for (const meta of listRuns(runsRoot)) {
    if (meta.kind !== 'messages' || meta.id === excludeRunId) continue;
    if (meta.store_id !== storeId || meta.options['template'] !== template.name) continue;
    const id = templateIdOf(runsRoot, meta);
    if (id !== undefined && id !== template.id) continue;
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
