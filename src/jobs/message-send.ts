import { idempotencyKey } from '../api/idempotency-key.js';
import type { MerchantClient } from '../api/merchant-client.js';
import { listAll } from '../api/paginate.js';
import { applyRun } from '../apply/apply-run.js';
import type { ExecuteSummary, OperationOutcome } from '../apply/execute-plan.js';
import { writeReport } from '../apply/report.js';
import { messageReview } from '../report/message-review.js';
import {
  invalidRowResult,
  operationRowResult,
  type RowFilesSummary,
  type RowResult,
} from '../apply/results-file.js';
import { readJournal } from '../apply/journal.js';
import { RUN_FILES, RunDirectory, listRuns } from '../apply/run-directory.js';
import {
  mapRecipientRow,
  resolveRecipientColumns,
  type DesiredRecipient,
} from '../mapping/recipient-sheet.js';
import { formatRowIssue, type RowIssue } from '../mapping/row-issue.js';
import {
  planMessages,
  renderTemplate,
  type AlreadySent,
  type DuplicateSend,
  type EarlierSend,
  type MessagePlan,
  type MessageSendEntry,
} from '../plan/message-plan.js';
import type { MessageSend, MessageTemplate, Store } from '../schema/index.js';
import { readSheet, type ReadSheetOptions } from '../sheets/read-sheet.js';
import { dirname, join } from 'node:path';
import { abortFields, fileWarning, type AbortCause, type JobCallbacks } from './job-events.js';
import { inputLabel, keepRunInput, writeInputResults, type RunInput } from './run-input.js';
import { SheetHeaderError } from './sheet-header-error.js';
import { InvalidRowsError } from './template-import.js';
import { appendAll, prependAll } from '../plan/append-all.js';
import { UsageError } from '../errors/usage-error.js';
import { MbulkError } from '../errors/mbulk-error.js';
import { checkRunStore } from '../apply/run-store.js';

/** Most customers read to resolve `customer_id` recipients. */
const MAX_CUSTOMERS = 1_000_000;

/** One rendered message of the preview. */
export interface MessagePreview {
  rowNumber: number;
  to: string;
  text: string;
}

/** plan.json of a messages run. Plain JSON. */
export interface MessagePlanFile {
  kind: 'messages';
  version: 1;
  store: { id: string; name: string; country: string };
  input: RunInput;
  /** The template as it was when planned (APPROVED). */
  template: MessageTemplate;
  allowDuplicates: boolean;
  /** Send again what earlier runs already sent (default false: such rows are skipped). */
  resend?: boolean;
  /** Send the valid rows even when others are invalid (default: nothing is sent then). */
  skipInvalid: boolean;
  /** `--max N`: the largest send allowed. */
  max?: number | undefined;
  /** Rows of the sheet (data rows). */
  rows: number;
  preview: MessagePreview[];
  plan: MessagePlan;
}

export interface PlanMessageOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  /** Name of the template to send. */
  template: string;
  read?: ReadSheetOptions;
  allowDuplicates?: boolean;
  /**
   * Send again to recipients that earlier runs in `runsRoot` already sent the same message (same
   * store, template, recipient and parameters). Default false: those rows are skipped.
   */
  resend?: boolean;
  skipInvalid?: boolean;
  /** Refuse (exit 3) a send to more recipients than this. */
  max?: number | undefined;
  /** Messages rendered in the preview (default 3). */
  previewCount?: number;
}

export interface PlannedMessageRun {
  run: RunDirectory;
  file: MessagePlanFile;
  store: Store;
  /** Set when a guardrail refuses the send (exit 3); nothing may be sent. */
  refusal?: string;
}

/** The template is missing or not APPROVED: nothing can be sent (exit 3, refused). */
export class TemplateNotSendableError extends MbulkError {
  static override readonly errorName: string = 'TemplateNotSendableError';
  constructor(
    message: string,
    readonly template: string,
    readonly status?: string,
  ) {
    super('refused', message);
  }
}

/** A refused send (over --max): exit 3. */
export class SendRefusedError extends MbulkError {
  static override readonly errorName: string = 'SendRefusedError';
  constructor(message: string) {
    super('refused', message);
  }
}

/** Finds a template by its exact name (the list filter is a contains match). */
export async function findTemplate(
  client: MerchantClient,
  name: string,
  signal?: AbortSignal,
): Promise<MessageTemplate | undefined> {
  for await (const t of client.templates.list({ name }, signal ? { signal } : {})) {
    if (t.name === name) return t;
  }
  return undefined;
}

/** The template's text as a recipient will read it: header, body, footer. */
export function renderMessage(template: MessageTemplate, parameters: Record<string, string>): string {
  return [template.header, renderTemplate(template.body, parameters), template.footer]
    .filter((s): s is string => typeof s === 'string' && s !== '')
    .join('\n');
}

export function messageCounts(file: MessagePlanFile): Record<string, number> {
  const invalid = new Set(
    file.plan.issues.filter((i) => i.severity === 'error' && i.rowNumber > 1).map((i) => i.rowNumber),
  );
  return {
    rows: file.rows,
    send: file.plan.sends.length,
    duplicates: file.plan.duplicates.length,
    already_sent: file.plan.alreadySent?.length ?? 0,
    invalid: invalid.size,
  };
}

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

/** Why a row was not sent because an earlier run sent it. */
function alreadySentMessage(a: AlreadySent): string {
  return a.status === 'sent'
    ? `already sent to this recipient with the same parameters by run ${a.runId}; not sent again (use --resend to send it again)`
    : `run ${a.runId} may have sent this message (its answer was lost): resume it with mbulk runs resume ${a.runId}; not sent again (use --resend to send it anyway)`;
}

/** Why a row was not sent because an earlier row of the sheet sends the same message. */
export function duplicateMessage(d: DuplicateSend): string {
  return d.sameParameters
    ? `same recipient and parameters as row ${d.firstRow}: sent once (use --allow-duplicates to send every row)`
    : // Planned by a version that compared phones only: the parameters may differ.
      `same recipient as row ${d.firstRow}: not sent (planned by an older mbulk that compared phones only; if this row's parameters differ, plan the sheet again to send it)`;
}

/** results.csv's `send_result`: what happened to one row, in words. */
export const SEND_RESULT_COLUMN = 'send_result';

/**
 * Plans a bulk send (dry run): the template must exist and be APPROVED (else
 * TemplateNotSendableError, before anything else); every parameter column present and non-empty;
 * phones normalised with the store's country; `customer_id` resolved to the customer's phone (one
 * listing of the customers); a recipient listed twice is sent once unless allowDuplicates; the
 * first messages are rendered as a preview.
 */
export async function planMessageSend(options: PlanMessageOptions): Promise<PlannedMessageRun> {
  const { client } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  if (options.max !== undefined && !(Number.isInteger(options.max) && options.max >= 0)) {
    throw new UsageError(`--max must be a whole number >= 0, not ${options.max}`, 'max');
  }
  const store = await client.me(signal);
  const template = await findTemplate(client, options.template, options.signal);
  if (template === undefined) {
    throw new TemplateNotSendableError(
      `no template named "${options.template}" in ${store.name}; nothing was sent (see mbulk templates status)`,
      options.template,
    );
  }
  if (template.status !== 'APPROVED') {
    throw new TemplateNotSendableError(
      `template "${template.name}" is ${template.status}${template.rejected_reason ? ` (${template.rejected_reason})` : ''}; only APPROVED templates can be sent, nothing was sent${template.status === 'PENDING' ? ` (follow its review with mbulk templates status --watch; on the sandbox, approve it with mbulk sandbox review ${template.name})` : ''}`,
      template.name,
      template.status,
    );
  }

  const reader = readSheet(options.file, options.read);
  const info = await reader.open();
  const { columns, issues: headerIssues } = resolveRecipientColumns(
    info.sheet,
    info.columns,
    template.parameters,
  );
  const fatal = headerIssues.filter((i) => i.severity === 'error');
  if (fatal.length > 0) {
    await reader.close();
    throw new SheetHeaderError(`${options.file}: ${fatal.map((i) => i.message).join('; ')}`, fatal);
  }
  const recipients: DesiredRecipient[] = [];
  const rowIssues: RowIssue[] = [];
  let rows = 0;
  for await (const batch of reader.batches()) {
    for (const row of batch) {
      const mapped = mapRecipientRow(row, columns, store.country);
      appendAll(rowIssues, mapped.issues);
      if (mapped.recipient) recipients.push(mapped.recipient);
    }
    rows += batch.length;
    options.onProgress?.({ phase: 'read', done: rows });
  }
  for (const w of reader.warnings) options.onWarning?.(fileWarning(options.file, w.message));

  const phones = new Map<string, string>();
  if (recipients.some((r) => r.customerId !== undefined)) {
    options.onProgress?.({ phase: 'fetch', done: 0, message: 'customers' });
    const customers = await listAll(client.customers.list({}, signal), {
      max: MAX_CUSTOMERS,
      what: 'GET /api/v2/customers',
    });
    for (const c of customers) if (c.phone) phones.set(c.id, c.phone);
  }
  const plan = planMessages(recipients, template, phones, {
    allowDuplicates: options.allowDuplicates ?? false,
    ...(options.resend === true
      ? {}
      : { earlier: earlierMessageSends(options.runsRoot, store.id, template.name) }),
  });
  prependAll(plan.issues, headerIssues.concat(rowIssues));
  const preview = plan.sends.slice(0, options.previewCount ?? 3).map((s) => ({
    rowNumber: s.rowNumber,
    to: s.to,
    text: renderMessage(template, s.parameters),
  }));

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'messages',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: {
      template: template.name,
      allowDuplicates: options.allowDuplicates ?? false,
      resend: options.resend ?? false,
      skipInvalid: options.skipInvalid ?? false,
      ...(options.max !== undefined ? { max: options.max } : {}),
    },
  });
  const file: MessagePlanFile = {
    kind: 'messages',
    version: 1,
    store: { id: store.id, name: store.name, country: store.country },
    input: keepRunInput(run, options.file, 'recipients', info.format === 'xlsx' ? info.sheet : undefined),
    template,
    allowDuplicates: options.allowDuplicates ?? false,
    resend: options.resend ?? false,
    skipInvalid: options.skipInvalid ?? false,
    max: options.max,
    rows,
    preview,
    plan,
  };
  run.writePlan(file);
  run.update({ counts: messageCounts(file) });
  writeMessageReport(run, file);
  const refusal = sendRefusal(file);
  return refusal ? { run, file, store, refusal } : { run, file, store };
}

function sendRefusal(file: MessagePlanFile): string | undefined {
  if (file.max !== undefined && file.plan.sends.length > file.max) {
    return `${file.plan.sends.length} messages to send is more than --max ${file.max}; nothing was sent`;
  }
  return undefined;
}

/** "row 5: 60123456789 (customer cus_1): name=Siti, order_number=1009" */
export function describeSend(s: MessageSendEntry): string {
  const params = Object.entries(s.parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return `row ${s.rowNumber}: ${s.to}${s.customerId ? ` (customer ${s.customerId})` : ''}${params ? `: ${params}` : ''}`;
}

function writeMessageReport(run: RunDirectory, file: MessagePlanFile, applied?: MessageApplySummary): void {
  const counts = messageCounts(file);
  writeReport(run.file('report'), {
    title: `Send template messages: ${file.template.name}`,
    runId: run.id,
    facts: [
      ['Input', file.input.original],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      ['Template', `${file.template.name} (${file.template.language}, ${file.template.status})`],
      ['Status', run.refresh().status],
      ...file.preview.map(
        (p, n) => [`Preview ${n + 1} (row ${p.rowNumber}, ${p.to})`, p.text.replace(/\n/g, ' / ')] as const,
      ),
    ],
    counts: [
      ['rows', counts['rows'] ?? 0],
      ['send', counts['send'] ?? 0],
      ['duplicates (same recipient and parameters, sent once)', counts['duplicates'] ?? 0],
      ['already sent by an earlier run', applied?.alreadySent ?? counts['already_sent'] ?? 0],
      ['invalid rows', counts['invalid'] ?? 0],
      ...(applied
        ? ([
            ['sent', applied.sent],
            ['failed', applied.failed],
          ] as const)
        : []),
    ],
    changes: file.plan.sends.slice(0, 200).map(describeSend),
    totalChanges: file.plan.sends.length,
    issues: [
      ...file.plan.issues.slice(0, 500).map((i) => `${i.severity}: ${formatRowIssue(i)}`),
      ...file.plan.duplicates
        .slice(0, 100)
        .map((d) => `duplicate: ${d.sheet} row ${d.rowNumber}: ${duplicateMessage(d)}`),
      ...(file.plan.alreadySent ?? [])
        .slice(0, 100)
        .map((a) => `already sent: ${a.sheet} row ${a.rowNumber}: ${alreadySentMessage(a)}`),
    ],
    totalIssues: file.plan.issues.length + file.plan.duplicates.length + (file.plan.alreadySent?.length ?? 0),
    review: messageReview(file, {
      applyCommand: applied ? undefined : `mbulk apply ${run.id}`,
      failedWritten: applied !== undefined,
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Apply

interface SendOp {
  kind: 'message-send';
  key: string;
  idempotent: true;
  idempotencyKey: string;
  send: MessageSendEntry;
  body: MessageSend;
}

/** What a send's journal record keeps. */
interface SendResult {
  id: string;
  status: string;
  to: string;
}

export interface ApplyMessageOptions extends JobCallbacks {
  client: MerchantClient;
  /** Sends in flight at most (default 4); the client's rate controller also paces them. */
  concurrency?: number;
}

export interface MessageApplySummary {
  runId: string;
  status: ExecuteSummary<unknown, unknown>['status'];
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  sent: number;
  failed: number;
  unknown: number;
  /** Sends already done by an earlier session of this run (not sent again). */
  reused: number;
  /** Rows not sent because another run already sent (or may have sent) the same message. */
  alreadySent: number;
  rows: RowFilesSummary;
  failedRows: { sheet: string; row: number; code: string; message: string }[];
}

export function sendBody(template: MessageTemplate, send: MessageSendEntry): MessageSend {
  return { to: send.to, template: template.name, parameters: send.parameters };
}

/**
 * Sends (or resumes sending) a planned run. Every send carries idempotencyKey(run, send, body) and
 * is journaled before it leaves, so a run killed and resumed never messages anyone twice: a send
 * that was done is reused from the journal, one whose answer was lost is replayed under the same
 * key (the service answers from its memory). A send whose outcome stays unknown after 24 hours is
 * not resent. Refuses (before any request) a plan over --max, or with invalid rows unless planned
 * with skipInvalid.
 */
export async function applyMessageRun(
  run: RunDirectory,
  options: ApplyMessageOptions,
): Promise<MessageApplySummary> {
  const { client } = options;
  // A client of another store is refused here, before anything is read or written.
  await checkRunStore(run, client);
  const file = run.readPlan() as MessagePlanFile;
  const refusal = sendRefusal(file);
  if (refusal) throw new SendRefusedError(refusal);
  const errors = file.plan.issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 && !file.skipInvalid) {
    throw new InvalidRowsError(
      `nothing was sent: ${messageCounts(file)['invalid'] ?? 0} invalid row(s); fix them (see ${run.file('report')}) or plan with --skip-invalid`,
      errors,
    );
  }
  // Another run may have sent some of these since this one was planned (two plans of one sheet,
  // or a re-run instead of a resume): those are not sent again, unless planned with resend.
  const alreadySent: AlreadySent[] = [...(file.plan.alreadySent ?? [])];
  let sends = file.plan.sends;
  if (file.resend !== true) {
    const earlier = earlierMessageSends(dirname(run.dir), file.store.id, file.template.name, run.id);
    if (earlier.size > 0) {
      const own = readJournal(run.file('journal'));
      sends = sends.filter((send) => {
        const mine = own.states.get(send.key)?.status;
        const other = earlier.get(send.key);
        if (other === undefined || mine === 'done' || mine === 'unknown') return true;
        alreadySent.push({ sheet: send.sheet, rowNumber: send.rowNumber, to: send.to, ...other });
        return false;
      });
    }
  }
  const ops: SendOp[] = sends.map((send) => {
    const body = sendBody(file.template, send);
    return {
      kind: 'message-send',
      key: send.key,
      idempotent: true,
      idempotencyKey: idempotencyKey(run.id, send.key, body),
      send,
      body,
    };
  });
  const signal = options.signal ? { signal: options.signal } : {};
  const execute = (retryFailed: boolean) =>
    applyRun<SendOp, SendResult>(run, ops, {
      concurrency: options.concurrency ?? 4,
      ...signal,
      retryFailed,
      keyOf: (op) => op.key,
      execute: async (op) => {
        // No abort signal: a stop lets the sends in flight finish and be journaled.
        const m = await client.messages.send(op.body, { idempotencyKey: op.idempotencyKey });
        return { id: m.id, status: m.status, to: m.to };
      },
      // The template is no longer sendable (paused, rejected…): every other send would fail the same way.
      isFatal: (error) => {
        const e = error as { exitCode?: number; param?: string; status?: number };
        return e.exitCode === 4 || (e.status === 400 && e.param === 'template');
      },
      onProgress: (p) =>
        options.onProgress?.({
          phase: 'apply',
          done: p.completed,
          total: p.total,
          failed: p.failed,
          rate: p.rate,
          etaSeconds: p.etaSeconds,
        }),
    });
  let summary = await execute(true);
  const reused = summary.counts.reused;
  // A send whose answer was lost even after the client's retries is replayed once more under the
  // same key (the service answers from its memory instead of sending again).
  if (summary.status === 'completed' && summary.counts.unknown > 0) summary = await execute(false);

  const label = inputLabel(file.input);
  const byRow = new Map<number, RowResult>();
  // results.csv says in words what happened to every row (send_result), next to the outcome.
  const extra = new Map<number, { message_status?: string; send_result: string }>();
  const failedRows: MessageApplySummary['failedRows'] = [];
  const issuesByRow = new Map<number, RowIssue[]>();
  for (const i of file.plan.issues) {
    if (i.rowNumber <= 1 || i.severity !== 'error') continue;
    const list = issuesByRow.get(i.rowNumber) ?? [];
    list.push(i);
    issuesByRow.set(i.rowNumber, list);
  }
  for (const [row, issues] of issuesByRow) {
    byRow.set(row, invalidRowResult(label, row, issues));
    extra.set(row, { send_result: 'not sent: invalid row' });
    for (const i of issues) failedRows.push({ sheet: i.sheet, row, code: i.code, message: i.message });
  }
  for (const d of file.plan.duplicates) {
    byRow.set(d.rowNumber, {
      sheet: label,
      row: d.rowNumber,
      outcome: 'skipped',
      ...(d.to !== undefined ? { key: d.to } : {}),
      errorCode: 'duplicate_recipient',
      errorMessage: duplicateMessage(d),
    });
    extra.set(d.rowNumber, { send_result: `duplicate of row ${d.firstRow}` });
  }
  for (const a of alreadySent) {
    byRow.set(a.rowNumber, {
      sheet: label,
      row: a.rowNumber,
      outcome: 'skipped',
      ...(a.to !== undefined ? { key: a.to } : {}),
      errorCode: 'already_sent',
      errorMessage: alreadySentMessage(a),
    });
    extra.set(a.rowNumber, {
      send_result:
        a.status === 'sent' ? `already sent in run ${a.runId}` : `maybe sent in run ${a.runId} (answer lost)`,
    });
  }
  let sent = 0;
  let failed = 0;
  let unknown = 0;
  for (const o of summary.outcomes as OperationOutcome<SendOp, SendResult>[]) {
    const s = o.op.send;
    const result = o.status === 'done' ? o.result : undefined;
    const r = operationRowResult(label, s.rowNumber, o, {
      outcome: 'created',
      key: s.to,
      ...(result ? { entityId: result.id } : {}),
    });
    byRow.set(s.rowNumber, r);
    if (result) {
      sent++;
      extra.set(s.rowNumber, { message_status: result.status, send_result: 'sent' });
    } else {
      if (o.status === 'unknown') unknown++;
      failed++;
      extra.set(s.rowNumber, {
        send_result:
          o.status === 'unknown'
            ? 'outcome unknown: resume the run to settle it'
            : o.status === 'not_run'
              ? 'not sent: the run stopped first'
              : `failed: ${r.errorCode ?? 'error'}`,
      });
      failedRows.push({
        sheet: s.sheet,
        row: s.rowNumber,
        code: r.errorCode ?? 'failed',
        message: r.errorMessage ?? '',
      });
    }
  }
  failedRows.sort((a, b) => a.row - b.row);
  const rows = await writeInputResults(run, file.input, byRow, {
    otherwise: 'skipped',
    extra,
    extraColumns: ['message_status', SEND_RESULT_COLUMN],
  });
  const result: MessageApplySummary = {
    runId: run.id,
    status: summary.status,
    ...abortFields(summary),
    sent,
    failed,
    unknown,
    reused,
    alreadySent: alreadySent.length,
    rows,
    failedRows,
  };
  run.update({ counts: { ...run.meta.counts, sent, failed, already_sent: alreadySent.length } });
  writeMessageReport(run, file, result);
  return result;
}

/**
 * For `mbulk apply RUN`: the template must still exist and be APPROVED (the service would reject
 * every send otherwise) and keep the parameters the plan filled.
 */
export async function checkMessageDrift(
  run: RunDirectory,
  client: MerchantClient,
): Promise<{ type: string; id: string; label: string; reason: string }[]> {
  const file = run.readPlan() as MessagePlanFile;
  const now = await findTemplate(client, file.template.name);
  const entity = { type: 'message_template', id: file.template.id, label: file.template.name };
  if (now === undefined) return [{ ...entity, reason: 'the template no longer exists' }];
  if (now.status !== 'APPROVED') return [{ ...entity, reason: `the template is now ${now.status}` }];
  const missing = now.parameters.filter((p) => !file.template.parameters.includes(p));
  if (missing.length > 0) return [{ ...entity, reason: `the template now needs ${missing.join(', ')}` }];
  return [];
}
