import type {
  MessageTemplate,
  TemplateCategory,
  TemplateCreate,
  TemplateStatus,
} from '../../schema/template.js';
import type { MerchantClient, WriteOptions } from '../merchant-client.js';
import { PAGE_LIMIT, PageIterator } from '../paginate.js';
import { loadOnce } from './load-once.js';

const schemas = loadOnce(async () => {
  const [{ MessageTemplate }, { listOf }] = await Promise.all([
    import('../../schema/template.js'),
    import('../../schema/common.js'),
  ]);
  return { MessageTemplate, TemplateList: listOf(MessageTemplate) };
});

export interface TemplateListParams {
  status?: TemplateStatus;
  category?: TemplateCategory;
  /** Contains-match on the template name. */
  name?: string;
}

/** /api/v2/message_templates */
export class Templates {
  constructor(private readonly client: MerchantClient) {}

  list(
    params: TemplateListParams = {},
    options: { signal?: AbortSignal | undefined } = {},
  ): PageIterator<MessageTemplate> {
    return new PageIterator(
      async (cursor) =>
        this.client.request({
          method: 'GET',
          path: '/api/v2/message_templates',
          query: {
            limit: PAGE_LIMIT,
            cursor,
            status: params.status,
            category: params.category,
            name: params.name,
          },
          schema: (await schemas()).TemplateList,
          signal: options.signal,
        }),
      'GET /api/v2/message_templates',
    );
  }

  /** Submits a template for review (it comes back PENDING), keyed (see WriteOptions). */
  async create(body: TemplateCreate, options: WriteOptions = {}): Promise<MessageTemplate> {
    return this.client.request({
      method: 'POST',
      path: '/api/v2/message_templates',
      body,
      schema: (await schemas()).MessageTemplate,
      idempotencyKey: this.client.keyFor(options.idempotencyKey),
      signal: options.signal,
    });
  }
}
