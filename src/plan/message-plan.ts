import type { DesiredRecipient } from '../mapping/recipient-sheet.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { MessageTemplate } from '../schema/template.js';

export interface MessageSendEntry {
  sheet: string;
  rowNumber: number;
  to: string;
  customerId?: string;
  parameters: Record<string, string>;
  /** Stable identity of the send: template + recipient + parameters (+ row with --allow-duplicates). */
  key: string;
}

export interface MessagePlan {
  kind: 'messages';
  template: { name: string; status: string; language: string; parameters: string[] };
  sends: MessageSendEntry[];
  /**
   * Rows not sent because an earlier row sends the same message: same recipient (phone) and same
   * parameters. The same phone with other parameters is another message, sent too.
   */
  duplicates: DuplicateSend[];
  /**
   * Rows not sent because an earlier run already sent (or may have sent) the same message: same
   * template, recipient and parameters. Absent in plans written before this field existed.
   */
  alreadySent?: AlreadySent[];
  issues: RowIssue[];
}

/** A send an earlier run of the run store made: `sent` (answered) or `unknown` (outcome lost). */
export interface EarlierSend {
  runId: string;
  status: 'sent' | 'unknown';
}

export interface AlreadySent extends EarlierSend {
  sheet: string;
  rowNumber: number;
  /** The recipient's phone (absent in older plans). */
  to?: string;
}

export interface DuplicateSend {
  sheet: string;
  rowNumber: number;
  /** The earlier row that sends this message. */
  firstRow: number;
  /** The recipient's phone (absent in older plans). */
  to?: string;
  /**
   * True when the identity compared was recipient + parameters. Absent in plans written by
   * versions that de-duplicated on the phone alone: such a row may have had other parameters.
   */
  sameParameters?: true;
}

export interface MessagePlanOptions {
  allowDuplicates?: boolean;
  /**
   * Sends made by earlier runs, by send key (see MessageSendEntry.key). A send found here is not
   * planned again (it goes to `alreadySent`): re-running a sheet never messages anyone twice.
   */
  earlier?: ReadonlyMap<string, EarlierSend>;
}

/** Fills a template body's `{{variables}}` with a recipient's parameters (for the preview). */
export function renderTemplate(body: string, parameters: Record<string, string>): string {
  return body.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (whole, name: string) => parameters[name] ?? whole);
}

function stableParams(parameters: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(parameters)
      .sort()
      .map((k) => [k, parameters[k]]),
  );
}

/**
 * Resolves `customer_id` recipients to phones, drops repeated messages (the same phone with the
 * same parameters is sent once unless allowDuplicates; the same phone with other parameters is
 * another message), and gives every send a stable key: template + recipient + parameters, the
 * identity "already sent" is checked against too. Pure.
 */
export function planMessages(
  recipients: Iterable<DesiredRecipient>,
  template: MessageTemplate,
  customerPhones: ReadonlyMap<string, string>,
  options: MessagePlanOptions = {},
): MessagePlan {
  const sends: MessageSendEntry[] = [];
  const duplicates: MessagePlan['duplicates'] = [];
  const issues: RowIssue[] = [];
  const alreadySent: AlreadySent[] = [];
  const seen = new Map<string, number>();
  for (const r of recipients) {
    let to = r.to;
    if (to === undefined && r.customerId !== undefined) {
      to = customerPhones.get(r.customerId);
      if (to === undefined || to === '') {
        const issue: RowIssue = {
          severity: 'error',
          code: 'unknown_customer',
          message: `no customer with id "${r.customerId}" (or the customer has no phone)`,
          sheet: r.sheet,
          rowNumber: r.rowNumber,
          header: 'customer_id',
          value: r.customerId,
        };
        if (r.customerIdColumn !== undefined) issue.column = r.customerIdColumn;
        issues.push(issue);
        continue;
      }
    }
    if (to === undefined) continue;
    // The identity of a message is who gets it and what it says (the rendered parameters).
    const identity = `send:${template.name}:${to}:${stableParams(r.parameters)}`;
    const first = seen.get(identity);
    if (first !== undefined && !options.allowDuplicates) {
      duplicates.push({ sheet: r.sheet, rowNumber: r.rowNumber, firstRow: first, to, sameParameters: true });
      continue;
    }
    if (first === undefined) seen.set(identity, r.rowNumber);
    const key = options.allowDuplicates ? `${identity}:row${r.rowNumber}` : identity;
    const earlier = options.earlier?.get(key);
    if (earlier !== undefined) {
      alreadySent.push({ sheet: r.sheet, rowNumber: r.rowNumber, to, ...earlier });
      continue;
    }
    const entry: MessageSendEntry = {
      sheet: r.sheet,
      rowNumber: r.rowNumber,
      to,
      parameters: r.parameters,
      key,
    };
    if (r.customerId !== undefined) entry.customerId = r.customerId;
    sends.push(entry);
  }
  return {
    kind: 'messages',
    template: {
      name: template.name,
      status: template.status,
      language: template.language,
      parameters: template.parameters,
    },
    sends,
    duplicates,
    alreadySent,
    issues,
  };
}
