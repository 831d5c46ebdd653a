import type { Message, MessageSend } from '../../schema/message.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';
import { loadOnce } from './load-once.js';

const schemas = loadOnce(async () => ({ Message: (await import('../../schema/message.js')).Message }));

/** /api/v2/messages */
export class Messages {
  constructor(private readonly client: MerchantClient) {}

  /**
   * Sends one message with an APPROVED template. Pass a deterministic key (recipient + template +
   * run) so a resumed run never messages the same person twice.
   */
  async send(body: MessageSend, options: WriteOptions = {}): Promise<Message> {
    return this.client.request({
      method: 'POST',
      path: '/api/v2/messages',
      body,
      schema: (await schemas()).Message,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }
}
