import { dirname } from 'node:path';
import { idempotencyKey } from '../../api/idempotency-key.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal } from '../../apply/journal.js';
import type { RowFilesSummary } from '../../apply/results-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { AlreadySent, MessageSendEntry } from '../../plan/message-plan.js';
import type { MessageSend, MessageTemplate } from '../../schema/index.js';
import type { AbortCause } from '../job-events.js';
import { changeOf } from '../runner/change-outcome.js';
import { refuseInvalidRows } from '../runner/invalid-rows-error.js';
import type {
  ApplyJobOptions,
  DriftedEntity,
  FailedRow,
  JobContext,
  JobDefinition,
  JobSession,
} from '../runner/job-definition.js';
import { readPlanFile } from '../runner/plan-file.js';
import { earlierMessageSends } from './earlier-sends.js';
import { MessagePlanFileSchema, sendRefusal, type MessagePlanFile } from './message-plan-file.js';
import { alreadySentMessage, duplicateMessage, messageCounts, writeMessageReport } from './message-report.js';
import { findTemplate, SendRefusedError } from './message-template.js';
import { isUnreachable } from '../../errors/exit-code.js';

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
export type ApplyMessageOptions = Omit<ApplyJobOptions, 'allowPriceJumps' | 'writeCheck'>;

export interface MessageApplySummary {
  runId: string;
  status: 'completed' | 'interrupted' | 'aborted';
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
  failedRows: FailedRow[];
}

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
  const earlier = earlierMessageSends(dirname(run.dir), file.store.id, file.template.name, run.id);
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
): JobSession<SendOp, SendResult, MessageApplySummary> {
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
  let reused: number | undefined;
  return {
    first: { operations, retryFailed: true },
    // A send whose answer was lost even after the client's retries is replayed once more under the
    // same key (the service answers from its memory instead of sending again).
    next: (execution) => {
      if (reused !== undefined) return undefined;
      reused = execution.counts.reused;
      return execution.status === 'completed' && execution.counts.unknown > 0
        ? { operations, retryFailed: false }
        : undefined;
    },
    // No abort signal: a stop lets the sends in flight finish and be journaled.
    execute: async (op) => {
      const m = await client.messages.send(op.body, { idempotencyKey: op.idempotencyKey });
      return { id: m.id, status: m.status, to: m.to };
    },
    // The template is no longer sendable (paused, rejected…): every other send would fail the same way.
    isFatal: (error) => {
      const e = error as { param?: string; status?: number };
      return isUnreachable(error) || (e.status === 400 && e.param === 'template');
    },
    changes: (o) => {
      const s = o.op.send;
      const result = o.status === 'done' ? o.result : undefined;
      const change = changeOf(
        o,
        { sheet: s.sheet, row: s.rowNumber },
        { outcome: 'created', key: s.to, entityId: result?.id },
      );
      change.extra =
        result || o.status === 'done'
          ? { message_status: result?.status, send_result: 'sent' }
          : { send_result: notSentResult(o.status, change.failure?.code) };
      return [change];
    },
    rowResults: (label, rows) => {
      for (const i of file.plan.issues) {
        if (i.rowNumber > 1 && i.severity === 'error')
          rows.extra.set(i.rowNumber, { send_result: 'not sent: invalid row' });
      }
      for (const d of file.plan.duplicates) {
        rows.byRow.set(d.rowNumber, {
          sheet: label,
          row: d.rowNumber,
          outcome: 'skipped',
          ...(d.to !== undefined ? { key: d.to } : {}),
          errorCode: 'duplicate_recipient',
          errorMessage: duplicateMessage(d),
        });
        rows.extra.set(d.rowNumber, { send_result: `duplicate of row ${d.firstRow}` });
      }
      for (const a of alreadySent) {
        rows.byRow.set(a.rowNumber, {
          sheet: label,
          row: a.rowNumber,
          outcome: 'skipped',
          ...(a.to !== undefined ? { key: a.to } : {}),
          errorCode: 'already_sent',
          errorMessage: alreadySentMessage(a),
        });
        rows.extra.set(a.rowNumber, {
          send_result:
            a.status === 'sent'
              ? `already sent in run ${a.runId}`
              : `maybe sent in run ${a.runId} (answer lost)`,
        });
      }
    },
    summarize: (t) => ({
      runId: run.id,
      status: t.execution.status,
      ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
      sent: t.done,
      failed: t.failed,
      unknown: t.unknown,
      reused: reused ?? 0,
      alreadySent: alreadySent.length,
      rows: t.rows as RowFilesSummary,
      failedRows: t.failedRows,
    }),
  };
}

/**
 * For `mbulk apply RUN`: the template must still exist and be APPROVED (the service would reject
 * every send otherwise) and keep the parameters the plan filled.
 */
export async function checkMessageDrift(run: RunDirectory, client: MerchantClient): Promise<DriftedEntity[]> {
  const file = readPlanFile<MessagePlanFile>(run, MessagePlanFileSchema);
  const now = await findTemplate(client, file.template.name);
  const entity = { type: 'message_template', id: file.template.id, label: file.template.name };
  if (now === undefined) return [{ ...entity, reason: 'the template no longer exists' }];
  if (now.status !== 'APPROVED') return [{ ...entity, reason: `the template is now ${now.status}` }];
  const missing = now.parameters.filter((p) => !file.template.parameters.includes(p));
  if (missing.length > 0) return [{ ...entity, reason: `the template now needs ${missing.join(', ')}` }];
  return [];
}

/** The messages kind: one approved template sent to the recipients of a sheet. */
export const messageJob: JobDefinition<MessagePlanFile, SendOp, SendResult, MessageApplySummary> = {
  kind: 'messages',
  planSchema: MessagePlanFileSchema,
  backup: false,
  notRun: 'failure',
  // Refuses (before any request) a plan over --max, or with invalid rows unless planned with skipInvalid.
  refuse: (run, file) => {
    const refusal = sendRefusal(file);
    if (refusal) throw new SendRefusedError(refusal);
    refuseInvalidRows(file.plan.issues, {
      skipInvalid: file.skipInvalid,
      invalid: messageCounts(file)['invalid'] ?? 0,
      done: 'sent',
      report: run.file('report'),
    });
  },
  session: messageSession,
  invalidIssues: (file) => file.plan.issues.filter((i) => i.rowNumber > 1),
  otherwise: 'skipped',
  extraColumns: ['message_status', SEND_RESULT_COLUMN],
  runCounts: (s) => ({ sent: s.sent, failed: s.failed, already_sent: s.alreadySent }),
  report: writeMessageReport,
  cliSummary: (s) => ({ sent: s.sent, failed: s.failed, reused: s.reused, failedRows: s.failedRows }),
  drift: checkMessageDrift,
};
