import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { AlreadySent, DuplicateSend, MessageSendEntry } from '../../plan/message-plan.js';
import { messageReview } from '../../report/message-review.js';
import { errorRowNumbers, issueLines, reviewState, sheetRunFacts } from '../sheet-run-report.js';
import type { MessagePlanFile } from './message-plan-file.js';

export function messageCounts(file: MessagePlanFile): Record<string, number> {
  const invalid = errorRowNumbers(file.plan.issues.filter((i) => i.rowNumber > 1));
  return {
    rows: file.rows,
    send: file.plan.sends.length,
    duplicates: file.plan.duplicates.length,
    already_sent: file.plan.alreadySent?.length ?? 0,
    invalid: invalid.size,
  };
}

/** Why a row was not sent because an earlier run sent it. */
export function alreadySentMessage(a: AlreadySent): string {
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

/** "row 5: 60123456789 (customer cus_1): name=Siti, order_number=1009" */
export function describeSend(s: MessageSendEntry): string {
  const params = Object.entries(s.parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return `row ${s.rowNumber}: ${s.to}${s.customerId ? ` (customer ${s.customerId})` : ''}${params ? `: ${params}` : ''}`;
}

/** report.html / report.md of a messages run: the plan, and after an apply what was sent. */
export function writeMessageReport(
  run: RunDirectory,
  file: MessagePlanFile,
  applied?: {
    status: 'completed' | 'interrupted' | 'aborted';
    alreadySent: number;
    sent: number;
    failed: number;
    /** Sends not made, by send key (`pending`, `failed: …`). */
    notWritten: Readonly<Record<string, string>>;
  },
): void {
  const counts = messageCounts(file);
  writeReport(run.file('report'), {
    title: `Send template messages: ${file.template.name}`,
    runId: run.id,
    facts: [
      ...sheetRunFacts(run, file, [
        ['Template', `${file.template.name} (${file.template.language}, ${file.template.status})`],
      ]),
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
    changes: file.plan.sends.map(describeSend),
    issues: [
      ...issueLines(file.plan.issues),
      ...file.plan.duplicates.map((d) => `duplicate: ${d.sheet} row ${d.rowNumber}: ${duplicateMessage(d)}`),
      ...(file.plan.alreadySent ?? []).map(
        (a) => `already sent: ${a.sheet} row ${a.rowNumber}: ${alreadySentMessage(a)}`,
      ),
    ],
    review: messageReview(file, reviewState(run, applied)),
  });
}
