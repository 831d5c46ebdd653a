import { MessageSend, type Message } from '../../schema/index.js';
import { invalidParam } from '../sandbox-error.js';
import { parseBody } from './request-parsing.js';
import type { StoreContext } from './store-context.js';
import type { TemplateTable } from './template-table.js';

/** A message the sandbox "sent" (kept for tests; the API returns only the Message fields). */
export interface SentMessage extends Message {
  language: string;
  parameters: Record<string, string>;
  created_at: string;
}

/** Messages: the send rules (approved template, every parameter) and the log of what was sent. */
export class MessageLog {
  private readonly sent: SentMessage[] = [];

  constructor(
    private readonly ctx: StoreContext,
    private readonly templates: TemplateTable,
  ) {}

  load(messages: readonly SentMessage[]): void {
    this.sent.push(...messages);
  }

  /** POST /api/v2/messages: APPROVED template only, every named parameter present. */
  send(body: unknown): Message {
    const b = parseBody(MessageSend, body);
    const t = this.templates.named(b.template);
    if (t === undefined) throw invalidParam('template', `no template named ${b.template}`);
    if (t.status !== 'APPROVED') {
      throw invalidParam(
        'template',
        `template ${b.template} is ${t.status}; only APPROVED templates can be sent`,
      );
    }
    if (b.language !== undefined && b.language !== t.language) {
      throw invalidParam('language', `template ${b.template} exists in ${t.language}, not ${b.language}`);
    }
    const parameters = b.parameters ?? {};
    for (const name of t.parameters) {
      if (parameters[name] === undefined) {
        throw invalidParam(
          `parameters.${name}`,
          `parameter ${name} is required by template ${t.name}`,
          'missing_parameter',
        );
      }
    }
    const message: Message = {
      id: this.ctx.newId('msg', () => false),
      object: 'message',
      to: b.to,
      template: t.name,
      status: 'sent',
    };
    this.sent.push({ ...message, language: t.language, parameters, created_at: this.ctx.clock.tick() });
    this.ctx.changed();
    return message;
  }

  /** Messages sent so far, oldest first. */
  all(): SentMessage[] {
    return this.sent;
  }
}
