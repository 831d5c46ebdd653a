import { dirname } from 'node:path';
import { idempotencyKey } from '../../api/idempotency-key.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { AlreadySent, MessageSendEntry } from '../../plan/message-plan.js';
import type { MessageSend, MessageTemplate } from '../../schema/index.js';
import { changeOf, notWrittenByKey } from '../../results/change-outcome.js';
import { invalidRowsError } from '../runner/invalid-rows-error.js';
import { defineJob } from '../runner/define-job.js';
import type {
  ApplyJobOptions,
  DriftedEntity,
  JobContext,
  JobSession,
  SummaryOf,
} from '../runner/job-definition.js';
import type { ChangeOutcome } from '../../results/change-outcome.js';
import type { DeclaredRow } from '../../results/sheet-results.js';
import { readPlanFile } from '../runner/plan-file.js';
import { earlierMessageSends } from './earlier-sends.js';
import { MessagePlanFileSchema, sendRefusal, type MessagePlanFile } from './message-plan-file.js';
import { alreadySentMessage, duplicateMessage, messageCounts, writeMessageReport } from './message-report.js';
import { findTemplate, SendRefusedError } from './message-template.js';

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

/** `concurrency`: sends in flight at most (default 4); the client's rate controller also paces them. */
export type ApplyMessageOptions = ApplyJobOptions;

/** results.csv's `send_result`: what happened to one row, in words. */
export const SEND_RESULT_COLUMN = 'send_result';

export function sendBody(template: MessageTemplate, send: MessageSendEntry): MessageSend {
  return { to: send.to, template: template.name, parameters: send.parameters };
}

/**
 * The sends another run made since this one was planned (two plans of one sheet, or a re-run
 * instead of a resume) are not sent again, unless planned with resend.
 */
function sendsToMake(
  run: RunDirectory,
  file: MessagePlanFile,
  alreadySent: AlreadySent[],
): MessageSendEntry[] {
  if (file.resend === true) return file.plan.sends;
  const earlier = earlierMessageSends(dirname(run.dir), file.store.id, file.template, run.id);
  if (earlier.size === 0) return file.plan.sends;
  const own = readJournal(run.file('journal'));
  return file.plan.sends.filter((send) => {
    const mine = own.states.get(send.key)?.status;
    const other = earlier.get(send.key);
    if (other === undefined || mine === 'done' || mine === 'unknown') return true;
    alreadySent.push({ sheet: send.sheet, rowNumber: send.rowNumber, to: send.to, ...other });
    return false;
  });
}

/** What results.csv's send_result says of a send that did not go out. */
function notSentResult(status: 'failed' | 'unknown' | 'not_run', code: string | undefined): string {
  if (status === 'unknown') return 'outcome unknown: resume the run to settle it';
  if (status === 'not_run') return 'not sent: the run stopped first';
  return `failed: ${code ?? 'error'}`;
}

/**
 * Every send carries idempotencyKey(run, send, body) and is journaled before it leaves, so a run
 * killed and resumed never messages anyone twice: a send that was done is reused from the journal,
 * one whose answer was lost is replayed under the same key (the service answers from its memory).
 */
function messageSession(
  ctx: JobContext<MessagePlanFile>,
): JobSession<SendOp, SendResult, { alreadySent: number; notWritten: Record<string, string> }> {
  const { run, file, client } = ctx;
  const alreadySent: AlreadySent[] = [...(file.plan.alreadySent ?? [])];
  const operations: SendOp[] = sendsToMake(run, file, alreadySent).map((send) => {
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
  return {
    operations,
    // A send whose answer was lost even after the client's retries is replayed once more under the
    // same key (the service answers from its memory instead of sending again).
    secondPass: (first) =>
      first.status === 'completed' && first.counts.unknown > 0
        ? { operations, retryFailed: false }
        : undefined,
    // No abort signal: a stop lets the sends in flight finish and be journaled.
    execute: async (op) => {
      const m = await client.messages.send(op.body, { idempotencyKey: op.idempotencyKey });
      return { id: m.id, status: m.status, to: m.to };
    },
    // The template is no longer sendable (paused, rejected…): every other send would fail the same way.
    isFatal: (error) => {
      const e = error as { param?: string; status?: number };
      return e.status === 400 && e.param === 'template';
    },
    changes: (o) => {
      const s = o.op.send;
      const result = o.status === 'done' ? o.result : undefined;
      const change = changeOf(o, {
        outcome: 'created',
        rows: [{ sheet: s.sheet, row: s.rowNumber }],
        key: s.to,
        entityId: result?.id,
      });
      return [{ ...change, extra: sendResultCells(change, result) }];
    },
    results: {
      invalid: file.plan.issues.filter((i) => i.rowNumber > 1),
      rows: notSentRows(file, alreadySent),
      otherwise: 'skipped',
      extraColumns: ['message_status', SEND_RESULT_COLUMN],
    },
    values: (t) => ({
      alreadySent: alreadySent.length,
      // The review page's outcome of each recipient: what was not sent, by send key.
      notWritten: notWrittenByKey(t.execution.outcomes, (op) => op.send.key),
    }),
  };
}

/** results.csv's cells of a send: the message's status, and what happened in words. */
function sendResultCells(change: ChangeOutcome, result: SendResult | undefined): ChangeOutcome['extra'] {
  if (result || change.status === 'done') return { message_status: result?.status, send_result: 'sent' };
  return { send_result: notSentResult(change.status, change.failure?.code) };
}

/** results.csv of the rows not sent: invalid, a duplicate of an earlier row, or sent by an earlier run. */
function notSentRows(file: MessagePlanFile, alreadySent: readonly AlreadySent[]): DeclaredRow[] {
  const rows: DeclaredRow[] = [];
  for (const i of file.plan.issues) {
    if (i.rowNumber > 1 && i.severity === 'error')
      rows.push({ sheet: i.sheet, row: i.rowNumber, extra: { send_result: 'not sent: invalid row' } });
  }
  for (const d of file.plan.duplicates) {
    rows.push({
      sheet: d.sheet,
      row: d.rowNumber,
      outcome: 'skipped',
      ...(d.to !== undefined ? { key: d.to } : {}),
      errorCode: 'duplicate_recipient',
      errorMessage: duplicateMessage(d),
      extra: { send_result: `duplicate of row ${d.firstRow}` },
    });
  }
  for (const a of alreadySent) {
    rows.push({
      sheet: a.sheet,
      row: a.rowNumber,
      outcome: 'skipped',
      ...(a.to !== undefined ? { key: a.to } : {}),
      errorCode: 'already_sent',
      errorMessage: alreadySentMessage(a),
      extra: {
        send_result:
          a.status === 'sent'
            ? `already sent in run ${a.runId}`
            : `maybe sent in run ${a.runId} (answer lost)`,
      },
    });
  }
  return rows;
}

/**
 * For `mbulk apply RUN`: the template must still be the one planned (its id: a template deleted
 * and created again under its name may say something else than the preview), APPROVED (the
 * service would reject every send otherwise) and keep the parameters the plan filled.
 */
export async function checkMessageDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedEntity[]> {
  const file = readPlanFile(run, MessagePlanFileSchema);
  const now = await findTemplate(client, file.template.name, options.signal);
  const entity = { type: 'message_template', id: file.template.id, label: file.template.name };
  if (now === undefined) return [{ ...entity, reason: 'the template no longer exists' }];
  // The name is what a send names; the planned template is the one of its id (the preview's text).
  if (now.id !== file.template.id) {
    return [{ ...entity, reason: `the template was replaced by another of the same name (${now.id})` }];
  }
  if (now.status !== 'APPROVED') return [{ ...entity, reason: `the template is now ${now.status}` }];
  const missing = now.parameters.filter((p) => !file.template.parameters.includes(p));
  if (missing.length > 0) return [{ ...entity, reason: `the template now needs ${missing.join(', ')}` }];
  return [];
}

/** The messages kind: one approved template sent to the recipients of a sheet. */
export const messageJob = defineJob({
  kind: 'messages',
  planSchema: MessagePlanFileSchema,
  backup: false,
  // Refuses (before any request) a plan over --max.
  refuse: (_run, file) => {
    const refusal = sendRefusal(file);
    if (refusal) throw new SendRefusedError(refusal);
  },
  // A plan with invalid rows sends nothing unless it was planned with skipInvalid.
  invalidRows: (run, file) =>
    invalidRowsError(file.plan.issues, {
      skipInvalid: file.skipInvalid,
      invalid: messageCounts(file)['invalid'] ?? 0,
      done: 'sent',
      report: run.file('report'),
    }),
  session: messageSession,
  /**
   * The summary of a send: messages `sent`, `failed` (failed, unknown, or not reached), `reused`
   * (sent by an earlier session of this run, not sent again), `alreadySent` (rows not sent because
   * another run already sent, or may have sent, the same message).
   */
  summary: {
    sent: { of: 'done' },
    failed: { of: 'failed' },
    reused: { of: 'reused', run: false },
    alreadySent: { of: 'own', run: 'already_sent', cli: false },
  },
  report: writeMessageReport,
  drift: checkMessageDrift,
});

export type MessageApplySummary = SummaryOf<typeof messageJob>;
