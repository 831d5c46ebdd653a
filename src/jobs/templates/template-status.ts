import type { MerchantClient } from '../../api/merchant-client.js';
import { listAll } from '../../api/paginate.js';
import type { MessageTemplate, Store } from '../../schema/index.js';
import { readSubmittedTemplates, submittedTemplatesPath } from './submitted-templates.js';

/** Most templates read from the store at once (a store has tens, not millions). */
export const MAX_LIVE_TEMPLATES = 100_000;

export interface TemplateStatusRow {
  name: string;
  id: string;
  status: MessageTemplate['status'];
  category: MessageTemplate['category'];
  language: string;
  parameters: string[];
  /** The category sent when it was created from this machine (unknown otherwise). */
  submittedCategory?: string;
  /** The reviewer changed the category from the one submitted. */
  recategorised: boolean;
  rejectedReason: string | null;
}

export interface TemplateStatusOptions {
  client: MerchantClient;
  /** `.mbulk`: where submitted categories are remembered. */
  stateDir: string;
  /** Only templates whose name contains this. */
  name?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Every template of the store with its review status, category and whether it was re-categorised. */
export async function readTemplateStatus(
  options: TemplateStatusOptions,
): Promise<{ store: Store; templates: TemplateStatusRow[] }> {
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await options.client.me(signal);
  const submitted = readSubmittedTemplates(submittedTemplatesPath(options.stateDir, store.id));
  const live = await listAll(
    options.client.templates.list(options.name ? { name: options.name } : {}, signal),
    { max: MAX_LIVE_TEMPLATES, what: 'GET /api/v2/message_templates' },
  );
  // The name filter is a contains match; applied here too in case a service ignores it.
  const name = options.name;
  const listed = name ? live.filter((t) => t.name.includes(name)) : live;
  const templates = listed.map((t): TemplateStatusRow => {
    const sent = submitted[t.name];
    const row: TemplateStatusRow = {
      name: t.name,
      id: t.id,
      status: t.status,
      category: t.category,
      language: t.language,
      parameters: t.parameters,
      recategorised: sent !== undefined && sent.category !== t.category,
      rejectedReason: t.rejected_reason,
    };
    if (sent) row.submittedCategory = sent.category;
    return row;
  });
  return { store, templates };
}

export interface WatchTemplateOptions extends TemplateStatusOptions {
  /** Between polls, ms (default 30 s). */
  intervalMs?: number;
  /** After every poll. */
  onPoll?: (templates: TemplateStatusRow[], poll: number) => void;
  /**
   * The client for poll number `poll` (default: `client` every time). An embedded sandbox is
   * started again from its state file for each poll, so a review made from another terminal shows.
   */
  clientForPoll?: (poll: number) => Promise<TemplateStatusOptions['client']>;
}

/**
 * Polls until no template is PENDING (or the signal aborts; then it resolves with the last poll and
 * `interrupted: true`).
 */
export async function watchTemplateStatus(
  options: WatchTemplateOptions,
): Promise<{ store: Store; templates: TemplateStatusRow[]; interrupted: boolean; polls: number }> {
  const intervalMs = options.intervalMs ?? 30_000;
  for (let poll = 1; ; poll++) {
    const client = options.clientForPoll ? await options.clientForPoll(poll) : options.client;
    const { store, templates } = await readTemplateStatus({ ...options, client });
    options.onPoll?.(templates, poll);
    if (!templates.some((t) => t.status === 'PENDING')) {
      return { store, templates, interrupted: false, polls: poll };
    }
    const aborted = await sleep(intervalMs, options.signal);
    if (aborted) return { store, templates, interrupted: true, polls: poll };
  }
}

/** Resolves true when the signal aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
