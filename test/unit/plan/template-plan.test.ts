import { describe, expect, it } from 'vitest';
import {
  mapTemplateRow,
  resolveTemplateColumns,
  type DesiredTemplate,
} from '../../../src/mapping/template-sheet.js';
import type { RowIssue } from '../../../src/mapping/row-issue.js';
import { planTemplates } from '../../../src/plan/template-plan.js';
import type { MessageTemplate } from '../../../src/schema/template.js';
import { columnLetter, type CellValue } from '../../../src/sheets/sheet-row.js';

const HEADER = [
  'name',
  'category',
  'language',
  'header',
  'header_image_url',
  'body',
  'footer',
  'button_1_type',
  'button_1_text',
  'example_name',
];

function mapSheet(
  names: string[],
  rows: Record<string, CellValue>[],
): { templates: DesiredTemplate[]; issues: RowIssue[] } {
  const cols = names.map((h, index) => ({
    header: h,
    key: h.toLowerCase(),
    letter: columnLetter(index),
    index,
  }));
  const { columns, issues } = resolveTemplateColumns('templates.csv', cols);
  const templates: DesiredTemplate[] = [];
  rows.forEach((cells, n) => {
    const r = mapTemplateRow({ sheet: 'templates.csv', rowNumber: n + 2, cells }, columns);
    issues.push(...r.issues);
    if (r.template) templates.push(r.template);
  });
  return { templates, issues };
}

const good = {
  name: 'order_ready',
  category: 'utility',
  body: 'Hi {{name}}, your order is ready',
  example_name: 'Aina',
};

describe('template sheet', () => {
  it('builds the create body with buttons and parameter examples', () => {
    const { templates, issues } = mapSheet(HEADER, [
      { ...good, button_1_type: 'quick_reply', button_1_text: 'Thanks' },
    ]);
    expect(issues).toEqual([]);
    expect(templates[0]?.body).toEqual({
      name: 'order_ready',
      category: 'UTILITY',
      body: 'Hi {{name}}, your order is ready',
      buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }],
      parameter_examples: { name: 'Aina' },
    });
  });

  it.each([
    ['name', { name: 'Order Ready' }, 'invalid_name', 'A'],
    ['name length', { name: 'a'.repeat(513) }, 'invalid_name', 'A'],
    ['body length', { body: `{{name}} ${'x'.repeat(1024)}` }, 'invalid_body', 'F'],
    ['header length', { header: 'h'.repeat(61) }, 'invalid_header', 'D'],
    ['header variable', { header: 'Hi {{name}}' }, 'invalid_header', 'D'],
    ['footer variable', { footer: 'Bye {{name}}' }, 'invalid_footer', 'G'],
    [
      'header and image',
      { header: 'Hi', header_image_url: 'https://x.test/a.png' },
      'invalid_header_image_url',
      'E',
    ],
    ['image not https', { header_image_url: 'http://x.test/a.png' }, 'invalid_header_image_url', 'E'],
    ['image not jpeg/png', { header_image_url: 'https://x.test/a.gif' }, 'invalid_header_image_url', 'E'],
    ['category', { category: 'promo' }, 'invalid_category', 'B'],
    ['missing example', { example_name: '' }, 'missing_example', 'J'],
    ['body starting with a variable', { body: '{{name}}, your order is ready' }, 'variable_at_edge', 'F'],
    ['body ending with a variable', { body: 'Your order is ready, {{name}}' }, 'variable_at_edge', 'F'],
    ['language name', { language: 'English' }, 'invalid_language', 'C'],
    ['language code with a space', { language: 'en US' }, 'invalid_language', 'C'],
  ])('reports a bad %s with its cell', (_rule, patch, code, column) => {
    const { templates, issues } = mapSheet(HEADER, [{ ...good, ...patch }]);
    expect(templates).toEqual([]);
    expect(issues.map((i) => [i.code, i.column, i.rowNumber])).toContainEqual([code, column, 2]);
  });

  it('accepts language codes and fixed text around the variables', () => {
    for (const language of ['en', 'ms', 'en_US', 'pt-BR', 'zh_Hant']) {
      const { issues } = mapSheet(HEADER, [{ ...good, language, body: 'Hi {{name}}.' }]);
      expect(issues, language).toEqual([]);
    }
  });

  it('names the blank example cell when the column exists, and asks for a column only when it does not', () => {
    const blank = mapSheet(HEADER, [{ ...good, example_name: '' }]).issues;
    expect(blank.map((i) => i.message)).toEqual([
      'the body uses {{name}} but the example cell J2 (example_name) is blank: write a sample value for the reviewer',
    ]);
    const absent = mapSheet(
      HEADER.filter((h) => h !== 'example_name'),
      [good],
    ).issues;
    expect(absent.map((i) => [i.column, i.message])).toEqual([
      ['F', 'the body uses {{name}}: add a column example_name with a sample value for the reviewer'],
    ]);
  });

  it('needs the URL of a URL button and the number of a phone button, in their cells', () => {
    const header = [...HEADER, 'button_1_url', 'button_2_type', 'button_2_text', 'button_2_phone_number'];
    const { issues, templates } = mapSheet(header, [
      {
        ...good,
        button_1_type: 'url',
        button_1_text: 'Track',
        button_2_type: 'PHONE_NUMBER',
        button_2_text: 'Call',
      },
      { ...good, button_1_type: 'URL', button_1_text: 'Track', button_1_url: 'www.example.com' },
      { ...good, button_1_type: 'URL', button_1_text: 'Track', button_1_url: 'https://example.com/t' },
    ]);
    expect(issues.map((i) => [i.rowNumber, i.code, i.column])).toEqual([
      [2, 'missing_button_url', 'K'],
      [2, 'missing_button_phone_number', 'N'],
      [3, 'invalid_button_url', 'K'],
    ]);
    expect(templates.map((t) => t.rowNumber)).toEqual([4]);
  });

  it('rejects an example for a variable the body does not use, and a fourth button', () => {
    const { issues } = mapSheet(
      [...HEADER, 'example_other', 'button_4_text'],
      [{ ...good, example_other: 'x' }],
    );
    expect(issues.map((i) => [i.code, i.column])).toEqual([
      ['too_many_buttons', 'L'],
      ['unknown_example', 'K'],
    ]);
  });
});

describe('template plan', () => {
  const live: MessageTemplate = {
    id: 't1',
    object: 'message_template',
    name: 'order_ready',
    status: 'APPROVED',
    category: 'UTILITY',
    language: 'en',
    header: null,
    header_image_url: null,
    body: 'Hi {{name}}, your order is ready',
    footer: null,
    buttons: [],
    parameters: ['name'],
    rejected_reason: null,
  };

  it('creates new names, leaves identical ones unchanged and refuses taken names and duplicates', () => {
    const { templates } = mapSheet(HEADER, [
      good,
      { ...good, name: 'promo_nov', category: 'marketing' },
      { ...good, name: 'promo_nov' },
    ]);
    const other = { ...live, name: 'promo_nov', body: 'different' };
    const plan = planTemplates(templates, [live]);
    expect(plan.entries.map((e) => [e.name, e.action])).toEqual([
      ['order_ready', 'unchanged'],
      ['promo_nov', 'create'],
    ]);
    expect(plan.issues.map((i) => [i.rowNumber, i.code])).toEqual([[4, 'duplicate_name']]);
    expect(planTemplates(templates.slice(1, 2), [other]).issues[0]?.code).toBe('name_taken');
  });

  it('compares buttons and a given language, not the category (the reviewer may change it)', () => {
    const withButton = {
      ...live,
      buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }],
      category: 'MARKETING' as const,
    };
    const row = { ...good, button_1_type: 'quick_reply', button_1_text: 'Thanks' };
    const { templates } = mapSheet(HEADER, [row]);
    expect(planTemplates(templates, [withButton]).entries[0]?.action).toBe('unchanged');
    const other = mapSheet(HEADER, [{ ...row, button_1_text: 'Thank you' }]).templates;
    expect(planTemplates(other, [withButton]).issues.map((i) => [i.code, i.column])).toEqual([
      ['name_taken', 'A'],
    ]);
    const malay = mapSheet(HEADER, [{ ...row, language: 'ms' }]).templates;
    expect(planTemplates(malay, [withButton]).issues[0]?.code).toBe('name_taken');
  });
});
