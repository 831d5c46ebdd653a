import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { messageJob, type ApplyMessageOptions, type MessageApplySummary } from './message-job.js';

export { planMessageSend, type PlanMessageOptions, type PlannedMessageRun } from './plan-message-send.js';
export type { MessagePlanFile, MessagePreview } from './message-plan-file.js';
export {
  checkMessageDrift,
  SEND_RESULT_COLUMN,
  sendBody,
  type ApplyMessageOptions,
  type MessageApplySummary,
} from './message-job.js';
export { describeSend, duplicateMessage, messageCounts } from './message-report.js';
export { earlierMessageSends } from './earlier-sends.js';
export {
  findTemplate,
  renderMessage,
  SendRefusedError,
  TemplateNotSendableError,
} from './message-template.js';

/**
 * Sends (or resumes sending) a planned run (see messageJob): keyed, journaled sends, never one twice;
 * a plan over --max, or with invalid rows unless planned with skipInvalid, sends nothing.
 */
export function applyMessageRun(
  run: RunDirectory,
  options: ApplyMessageOptions,
): Promise<MessageApplySummary> {
  return runJob(run, messageJob, options);
}
