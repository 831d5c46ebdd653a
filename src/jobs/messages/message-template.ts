import type { MerchantClient } from '../../api/merchant-client.js';
import { MbulkError } from '../../errors/mbulk-error.js';
import { renderTemplate } from '../../plan/message-plan.js';
import type { MessageTemplate } from '../../schema/index.js';

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
