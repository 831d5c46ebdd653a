import { z } from 'zod';
import {
  TemplateCategory,
  TemplateCreate,
  TemplateStatus,
  templateVariables,
  type MessageTemplate,
} from '../../schema/index.js';
import { parseLimit } from '../pagination.js';
import { invalidParam, notFound } from '../sandbox-error.js';
import { EntryTable } from './entry-table.js';
import type { Entry } from './list-json.js';
import { enumFilter, parseBody, type ListQuery } from './request-parsing.js';
import type { StoreContext } from './store-context.js';

/** Language of templates created without one. */
export const DEFAULT_TEMPLATE_LANGUAGE = 'en';

const TemplateReview = z.object({
  status: TemplateStatus,
  category: TemplateCategory.optional(),
  rejected_reason: z.string().nullable().optional(),
});

/** Message templates: list with filters, create (PENDING, unique names), the admin review. */
export class TemplateTable {
  readonly table: EntryTable<MessageTemplate>;
  private readonly byName = new Map<string, Entry<MessageTemplate>>();

  constructor(private readonly ctx: StoreContext) {
    this.table = new EntryTable(ctx);
  }

  load(templates: readonly MessageTemplate[], seqs: readonly number[] | undefined): void {
    templates.forEach((t, i) => {
      this.byName.set(t.name, this.table.load(t, seqs?.[i]));
    });
  }

  /** GET /api/v2/message_templates: `limit`, `cursor`, `status`, `category`, `name` (contains). */
  listJson(query: ListQuery): string {
    const limit = parseLimit(query.get('limit'));
    const status = enumFilter(query, 'status', TemplateStatus);
    const category = enumFilter(query, 'category', TemplateCategory);
    const name = query.get('name');
    return this.table.pageJson(
      query.get('cursor'),
      limit,
      (e) =>
        (status === undefined || e.value.status === status) &&
        (category === undefined || e.value.category === category) &&
        (name === null || e.value.name.includes(name)),
    );
  }

  /** POST /api/v2/message_templates: starts PENDING; names are unique. */
  create(body: unknown): MessageTemplate {
    const b = parseBody(TemplateCreate, body);
    if (this.byName.has(b.name)) {
      throw invalidParam('name', `a template named ${b.name} already exists`);
    }
    const value: MessageTemplate = {
      id: this.ctx.newId('tpl', (x) => this.table.has(x)),
      object: 'message_template',
      name: b.name,
      status: 'PENDING',
      category: b.category,
      language: b.language ?? DEFAULT_TEMPLATE_LANGUAGE,
      header: b.header ?? null,
      header_image_url: b.header_image_url ?? null,
      body: b.body,
      footer: b.footer ?? null,
      buttons: b.buttons ?? [],
      parameters: templateVariables(b.body),
      rejected_reason: null,
    };
    this.byName.set(value.name, this.table.add(value));
    this.ctx.changed();
    return value;
  }

  /** Admin: the external review (approve, reject, re-categorise…). */
  review(name: string, body: unknown): MessageTemplate {
    const e = this.byName.get(name);
    if (e === undefined) throw notFound(`no template named ${name}`);
    const b = parseBody(TemplateReview, body);
    const value: MessageTemplate = { ...e.value, status: b.status };
    if (b.category !== undefined) value.category = b.category;
    if (b.rejected_reason !== undefined) value.rejected_reason = b.rejected_reason;
    else if (b.status === 'APPROVED') value.rejected_reason = null;
    this.table.replace(e, value);
    this.ctx.changed();
    return value;
  }

  /** The template named `name`, if any. */
  named(name: string): MessageTemplate | undefined {
    return this.byName.get(name)?.value;
  }
}
