import { TEMPLATE_LIMITS, type MessageTemplate } from '../schema/template.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import { type ColumnSpec } from '../sheets/sheet-writer.js';
import { column, withWriter, writeRow } from './catalog-sheet.js';
import { writeJsonArrayFile } from './json-array-file.js';

export const TEMPLATES_SHEET = 'templates';
const BUTTON_FIELDS = ['type', 'text', 'url', 'phone_number'] as const;

/**
 * Columns of the templates export: the template import's columns (`name, category, language,
 * header, header_image_url, body, footer, button_N_type|text|url|phone_number`), so a sheet
 * exported from one store can create the templates in another, plus the review state (`id`,
 * `status`, `rejected_reason`, which the import skips) and `parameters` (the body's variables,
 * `|`-joined). `buttons` is the number of button column groups (0..3).
 */
export function templateColumns(buttons: number): ColumnSpec[] {
  const cols: ColumnSpec[] = [
    column('id', 'text', 20),
    column('name', 'text', 24),
    column('status', 'text', 12),
    column('category', 'text', 14),
    column('language', 'text', 9),
    column('header', 'text', 24),
    column('header_image_url', 'text', 30),
    column('body', 'text', 60),
    column('footer', 'text', 24),
  ];
  for (let n = 1; n <= buttons; n++) {
    for (const f of BUTTON_FIELDS) cols.push(column(`button_${n}_${f}`, 'text', 16));
  }
  cols.push(column('parameters', 'text', 24), column('rejected_reason', 'text', 40));
  return cols;
}

export function templateCells(t: MessageTemplate): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    status: t.status,
    category: t.category,
    language: t.language,
    header: t.header,
    header_image_url: t.header_image_url,
    body: t.body,
    footer: t.footer,
    parameters: t.parameters,
    rejected_reason: t.rejected_reason,
  };
  t.buttons.forEach((b, i) => {
    for (const f of BUTTON_FIELDS) row[`button_${i + 1}_${f}`] = b[f];
  });
  return row;
}

export interface ExportTemplatesOptions {
  templates: AsyncIterable<MessageTemplate>;
  store: Pick<Store, 'timezone'>;
  path: string;
  format: 'csv' | 'xlsx' | 'json';
  onProgress?: (progress: { templatesRead: number; phase: 'reading' | 'done' }) => void;
}

export interface ExportTemplatesResult {
  templates: number;
  /** Count per review status. */
  byStatus: Record<string, number>;
  paths: { templates: string };
}

/**
 * `mbulk export templates`: message templates with their review status (one row each). Templates
 * are few (a store has at most a few hundred), so they are read first to size the button columns.
 * JSON writes the raw templates.
 */
export async function exportTemplates(options: ExportTemplatesOptions): Promise<ExportTemplatesResult> {
  const list: MessageTemplate[] = [];
  const byStatus: Record<string, number> = {};
  for await (const t of options.templates) {
    list.push(t);
    byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    if (list.length % 100 === 0) options.onProgress?.({ templatesRead: list.length, phase: 'reading' });
  }
  if (options.format === 'json') {
    await writeJsonArrayFile(options.path, list);
  } else {
    const buttons = Math.min(
      TEMPLATE_LIMITS.buttonsMax,
      list.reduce((m, t) => Math.max(m, t.buttons.length), 0),
    );
    const writer = createSheetWriter(options.path, {
      format: options.format,
      currencyDecimals: 0,
      timezone: options.store.timezone,
    });
    await withWriter(writer, async () => {
      const sheet = await writer.addSheet(
        { name: TEMPLATES_SHEET, columns: templateColumns(buttons) },
        options.path,
      );
      for (const t of list) await writeRow(sheet, templateCells(t));
      await sheet.end();
    });
  }
  options.onProgress?.({ templatesRead: list.length, phase: 'done' });
  return { templates: list.length, byStatus, paths: { templates: options.path } };
}
