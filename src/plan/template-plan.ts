import type { DesiredTemplate } from '../mapping/template-sheet.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { MessageTemplate, TemplateButton, TemplateCreate } from '../schema/template.js';

export type TemplateAction = 'create' | 'unchanged';

export interface TemplatePlanEntry {
  action: TemplateAction;
  sheet: string;
  rowNumber: number;
  name: string;
  /** Stable identity of the operation (idempotency key, journal). */
  key: string;
  body: TemplateCreate;
  /** The live template when it already exists with the same content. */
  existing?: { id: string; status: string; category: string };
}

export interface TemplatePlan {
  kind: 'templates';
  entries: TemplatePlanEntry[];
  issues: RowIssue[];
  counts: { create: number; unchanged: number; invalid: number };
}

/** Buttons compared by their non-empty fields, in order. */
function buttonsText(buttons: readonly TemplateButton[] | undefined): string {
  return JSON.stringify(
    (buttons ?? []).map((b) =>
      (['type', 'text', 'url', 'phone_number'] as const).map((k) => (b[k] ? b[k] : null)),
    ),
  );
}

/**
 * Same content as the live template: body, header, footer, image, buttons, and the language when
 * the sheet gives one. The category is not compared: the reviewer may have changed it.
 */
function sameContent(body: TemplateCreate, live: MessageTemplate): boolean {
  return (
    body.body === live.body &&
    (body.language === undefined || body.language === live.language) &&
    buttonsText(body.buttons) === buttonsText(live.buttons) &&
    (body.header ?? null) === (live.header || null) &&
    (body.footer ?? null) === (live.footer || null) &&
    (body.header_image_url ?? null) === (live.header_image_url || null)
  );
}

/**
 * Names must be unique within the sheet and against existing templates. A template that already
 * exists with the same content is unchanged (a re-run creates nothing); with other content it is an
 * error, since the API cannot edit a template. Pure.
 */
export function planTemplates(
  desired: Iterable<DesiredTemplate>,
  live: readonly MessageTemplate[],
): TemplatePlan {
  const liveByName = new Map(live.map((t) => [t.name, t]));
  const seen = new Map<string, number>();
  const entries: TemplatePlanEntry[] = [];
  const issues: RowIssue[] = [];
  const counts = { create: 0, unchanged: 0, invalid: 0 };
  for (const d of desired) {
    const name = d.body.name;
    const issue = (code: string, message: string): void => {
      const i: RowIssue = {
        severity: 'error',
        code,
        message,
        sheet: d.sheet,
        rowNumber: d.rowNumber,
        header: 'name',
        value: name,
      };
      if (d.nameColumn !== undefined) i.column = d.nameColumn;
      issues.push(i);
      counts.invalid++;
    };
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      issue(
        'duplicate_name',
        `template name "${name}" is already used on row ${earlier}; names must be unique`,
      );
      continue;
    }
    seen.set(name, d.rowNumber);
    const existing = liveByName.get(name);
    const base = { sheet: d.sheet, rowNumber: d.rowNumber, name, key: `template:${name}`, body: d.body };
    if (existing) {
      if (!sameContent(d.body, existing)) {
        issue(
          'name_taken',
          `a template named "${name}" already exists (status ${existing.status}) with other content; templates cannot be edited, choose a new name`,
        );
        continue;
      }
      entries.push({
        ...base,
        action: 'unchanged',
        existing: { id: existing.id, status: existing.status, category: existing.category },
      });
      counts.unchanged++;
      continue;
    }
    entries.push({ ...base, action: 'create' });
    counts.create++;
  }
  return { kind: 'templates', entries, issues, counts };
}
