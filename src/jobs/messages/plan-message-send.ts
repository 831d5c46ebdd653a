import { listAll } from '../../api/paginate.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import {
  mapRecipientRow,
  resolveRecipientColumns,
  type DesiredRecipient,
} from '../../mapping/recipient-sheet.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { appendAll, prependAll } from '../../plan/append-all.js';
import { planMessages } from '../../plan/message-plan.js';
import type { Store } from '../../schema/index.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import { UsageError } from '../../errors/usage-error.js';
import { planFromSheet, readInputSheet, type PlanFromSheetOptions } from '../runner/plan-from-sheet.js';
import { earlierMessageSends, TEMPLATE_ID_OPTION } from './earlier-sends.js';
import { sendRefusal, type MessagePlanFile } from './message-plan-file.js';
import { messageCounts, writeMessageReport } from './message-report.js';
import { findTemplate, renderMessage, TemplateNotSendableError } from './message-template.js';

/** Most customers read to resolve `customer_id` recipients. */
const MAX_CUSTOMERS = 1_000_000;

export interface PlanMessageOptions extends Omit<PlanFromSheetOptions, 'allowEmpty'> {
  /** Name of the template to send. */
  template: string;
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
  const allowDuplicates = options.allowDuplicates ?? false;
  const resend = options.resend ?? false;
  const skipInvalid = options.skipInvalid ?? false;
  // An empty recipients sheet plans no send.
  return planFromSheet(
    { ...options, allowEmpty: true },
    {
      kind: 'messages',
      role: 'recipients',
      // The same recipients with another template are other messages.
      identityParams: [options.template],
      // Sent twice, a message arrives twice: a run of this sheet already sent is not planned again.
      deltas: () => true,
      read: async (store) => {
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
        const sheet = await readInputSheet(options, {
          header: (info) => resolveRecipientColumns(info.sheet, info.columns, template.parameters),
          take: (columns) => {
            const recipients: DesiredRecipient[] = [];
            const issues: RowIssue[] = [];
            const add = (row: SheetRow) => {
              const mapped = mapRecipientRow(row, columns, store.country);
              appendAll(issues, mapped.issues);
              if (mapped.recipient) recipients.push(mapped.recipient);
            };
            return { add, recipients, issues };
          },
        });
        return { ...sheet, template };
      },
      plan: async ({ template, taken, headerIssues, rows }, store) => {
        const phones = new Map<string, string>();
        if (taken.recipients.some((r) => r.customerId !== undefined)) {
          options.onProgress?.({ phase: 'fetch', done: 0, message: 'customers' });
          const customers = await listAll(client.customers.list({}, signal), {
            max: MAX_CUSTOMERS,
            what: 'GET /api/v2/customers',
          });
          for (const c of customers) if (c.phone) phones.set(c.id, c.phone);
        }
        const plan = planMessages(taken.recipients, template, phones, {
          allowDuplicates,
          ...(resend ? {} : { earlier: earlierMessageSends(options.runsRoot, store.id, template) }),
        });
        prependAll(plan.issues, headerIssues.concat(taken.issues));
        const preview = plan.sends.slice(0, options.previewCount ?? 3).map((s) => ({
          rowNumber: s.rowNumber,
          to: s.to,
          text: renderMessage(template, s.parameters),
        }));
        return {
          options: {
            template: template.name,
            // Its id: a template created again under the name is another (earlierMessageSends).
            [TEMPLATE_ID_OPTION]: template.id,
            allowDuplicates,
            resend,
            skipInvalid,
            ...(options.max !== undefined ? { max: options.max } : {}),
          },
          file: (head) => ({
            ...head,
            store: { id: store.id, name: store.name, country: store.country },
            template,
            allowDuplicates,
            resend,
            skipInvalid,
            max: options.max,
            rows,
            preview,
            plan,
          }),
          refusal: sendRefusal({ max: options.max, plan }),
        };
      },
      counts: messageCounts,
      report: writeMessageReport,
    },
  );
}
