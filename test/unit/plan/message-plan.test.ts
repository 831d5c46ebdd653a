import { describe, expect, it } from 'vitest';
import {
  mapRecipientRow,
  resolveRecipientColumns,
  type DesiredRecipient,
} from '../../../src/mapping/recipient-sheet.js';
import { planMessages, renderTemplate } from '../../../src/plan/message-plan.js';
import type { MessageTemplate } from '../../../src/schema/template.js';
import { columnLetter, type CellValue } from '../../../src/sheets/sheet-row.js';

const template: MessageTemplate = {
  id: 't1',
  object: 'message_template',
  name: 'order_update',
  status: 'APPROVED',
  category: 'UTILITY',
  language: 'en',
  header: null,
  header_image_url: null,
  body: 'Hi {{name}}, order {{order_number}} is on its way',
  footer: null,
  buttons: [],
  parameters: ['name', 'order_number'],
  rejected_reason: null,
};

function recipients(names: string[], rows: CellValue[][]) {
  const cols = names.map((h, index) => ({
    header: h,
    key: h.toLowerCase(),
    letter: columnLetter(index),
    index,
  }));
  const { columns, issues } = resolveRecipientColumns('to.csv', cols, template.parameters);
  const out: DesiredRecipient[] = [];
  rows.forEach((cells, n) => {
    const record: Record<string, CellValue> = {};
    cols.forEach((c, i) => (record[c.key] = cells[i] ?? ''));
    const r = mapRecipientRow({ sheet: 'to.csv', rowNumber: n + 2, cells: record }, columns, 'MY');
    issues.push(...r.issues);
    if (r.recipient) out.push(r.recipient);
  });
  return { recipients: out, issues };
}

describe('message plan', () => {
  it('needs every parameter column', () => {
    const { issues } = recipients(['to', 'name'], []);
    expect(issues.map((i) => i.code)).toEqual(['missing_parameter_column']);
  });

  it('reports blank parameters and bad phones with their cells', () => {
    const { issues } = recipients(
      ['to', 'name', 'order_number'],
      [
        ['12', 'A', '1'],
        ['0123456789', '', '2'],
      ],
    );
    expect(issues.map((i) => [i.rowNumber, i.column, i.code])).toEqual([
      [2, 'A', 'phone_invalid'],
      [3, 'B', 'missing_parameter'],
    ]);
  });

  it('resolves customer ids, sends a repeated recipient once, and keys each send stably', () => {
    const { recipients: rs } = recipients(
      ['to', 'customer_id', 'name', 'order_number'],
      [
        ['012-345 6789', '', 'Aina', '1001'],
        ['', 'c2', 'Ben', '1002'],
        ['+60 12-345 6789', '', 'Aina', '1001'],
        ['', 'c404', 'Nobody', '1'],
      ],
    );
    const phones = new Map([['c2', '60198765432']]);
    const plan = planMessages(rs, template, phones);
    expect(plan.sends.map((s) => [s.rowNumber, s.to])).toEqual([
      [2, '60123456789'],
      [3, '60198765432'],
    ]);
    expect(plan.duplicates).toEqual([
      { sheet: 'to.csv', rowNumber: 4, firstRow: 2, to: '60123456789', sameParameters: true },
    ]);
    expect(plan.issues.map((i) => i.code)).toEqual(['unknown_customer']);
    expect(planMessages(rs, template, phones).sends.map((s) => s.key)).toEqual(plan.sends.map((s) => s.key));
    const all = planMessages(rs, template, phones, { allowDuplicates: true });
    expect(all.sends).toHaveLength(3);
    expect(new Set(all.sends.map((s) => s.key)).size).toBe(3);
  });

  it('the same phone with other parameters is another message, with its own key', () => {
    const { recipients: rs } = recipients(
      ['to', 'name', 'order_number'],
      [
        ['012-345 6789', 'Aina', '1001'],
        ['+60 12-345 6789', 'Aina', '1009'],
        ['60123456789', 'Aina', '1001'],
      ],
    );
    const plan = planMessages(rs, template, new Map());
    expect(plan.sends.map((s) => [s.rowNumber, s.to, s.parameters['order_number']])).toEqual([
      [2, '60123456789', '1001'],
      [3, '60123456789', '1009'],
    ]);
    expect(new Set(plan.sends.map((s) => s.key)).size).toBe(2);
    expect(plan.duplicates.map((d) => [d.rowNumber, d.firstRow])).toEqual([[4, 2]]);
    // Already sent is the same identity: only the #1001 message is skipped by an earlier run.
    const earlier = new Map([[plan.sends[0]?.key ?? '', { runId: 'r1', status: 'sent' as const }]]);
    const again = planMessages(rs, template, new Map(), { earlier });
    expect(again.sends.map((s) => s.rowNumber)).toEqual([3]);
    expect(again.alreadySent?.map((a) => [a.rowNumber, a.runId])).toEqual([[2, 'r1']]);
  });

  it('trims parameter values at the edges', () => {
    const { recipients: rs } = recipients(
      ['to', 'name', 'order_number'],
      [['0123456789', ' Aina \n', '1001\r\n']],
    );
    expect(rs[0]?.parameters).toEqual({ name: 'Aina', order_number: '1001' });
  });

  it('renders a preview', () => {
    expect(renderTemplate(template.body, { name: 'Aina', order_number: '1001' })).toBe(
      'Hi Aina, order 1001 is on its way',
    );
  });
});
