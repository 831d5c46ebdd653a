import { Message } from '../../schema/index.js';
import type { MessageSend } from '../../schema/index.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';

/** /api/v2/messages */
export class Messages {
  constructor(private readonly client: MerchantClient) {}

  /**
   * Sends one message with an APPROVED template. Pass a deterministic key (recipient + template +
   * run) so a resumed run never messages the same person twice.
   */
  send(body: MessageSend, options: WriteOptions = {}): Promise<Message> {
    return this.client.request({
      method: 'POST',
      path: '/api/v2/messages',
      body,
      schema: Message,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }
}
