import { describe, expect, it } from 'vitest';
import type { CustomerPlan } from '../../../src/plan/customer-plan.js';
import type { TemplatePlan } from '../../../src/plan/template-plan.js';
import type { MessagePlan } from '../../../src/plan/message-plan.js';
import { customerReview } from '../../../src/report/customer-review.js';
import { messageReview } from '../../../src/report/message-review.js';
import { templateReview } from '../../../src/report/template-review.js';
import { TABLE_FROM_ENTITIES, withChangeTable } from '../../../src/report/change-table.js';
import { MAX_REVIEW_CARDS, type ReviewBody, type ReviewCard } from '../../../src/report/review-page.js';
import type { StockPlan } from '../../../src/plan/stock-plan.js';
import { stockReview } from '../../../src/report/stock-review.js';

describe('customer and template page bodies', () => {
  it('customers: a card per row with the phone as key and before → after per field; invalid rows point at their cell', () => {
    const plan: CustomerPlan = {
      kind: 'customers',
      entries: [
        {
          action: 'update',
          sheet: 'customers.csv',
          rowNumber: 2,
          key: 'update:cus_1',
          customerId: 'cus_1',
          matchedBy: 'phone',
          update: { email: 'aina@example.com' },
          changes: [{ field: 'email', before: null, after: 'aina@example.com' }],
          before: { name: 'Aina', phone: '+60123456789', email: null },
        },
        {
          action: 'create',
          sheet: 'customers.csv',
          rowNumber: 3,
          key: 'create:phone:+60172223333',
          create: { name: 'Chen', phone: '+60172223333' },
          changes: [
            { field: 'name', before: undefined, after: 'Chen' },
            { field: 'phone', before: undefined, after: '+60172223333' },
          ],
        },
      ],
      issues: [
        {
          severity: 'error',
          code: 'phone_invalid',
          message: 'not a phone number',
          sheet: 'customers.csv',
          rowNumber: 4,
          column: 'B',
          header: 'phone',
        },
      ],
      counts: { create: 1, update: 1, noop: 0, skip: 0, invalid: 1 },
    };
    const body = customerReview({ plan }, { applyCommand: 'mbulk apply R', failedWritten: false });
    expect(body.cards.map((c) => [c.action, c.name, c.key])).toEqual([
      ['update', 'Aina', '+60123456789'],
      ['create', 'Chen', '+60172223333'],
    ]);
    expect(body.cards[0]!.rows).toEqual([{ cells: ['email', '—', 'aina@example.com'] }]);
    expect(body.cards[1]!.rows).toEqual([
      { cells: ['name', '—', 'Chen'] },
      { cells: ['phone', '—', '+60172223333'] },
    ]);
    expect(body.invalid).toEqual([
      {
        file: 'customers.csv',
        row: 4,
        column: 'B',
        header: 'phone',
        code: 'phone_invalid',
        message: 'not a phone number',
      },
    ]);
    expect(body.failedFile).toEqual({ href: 'failed.csv', written: false });
    expect(body.cards.map((c) => c.outcome)).toEqual([undefined, undefined]);

    // A run page: each customer's outcome (done unless not written), and the resume command.
    const run = customerReview(
      { plan },
      {
        failedWritten: true,
        resumeCommand: 'mbulk runs resume R',
        applied: { notWritten: { 'create:phone:+60172223333': 'pending' } },
      },
    );
    expect(run.cards.map((c) => [c.name, c.outcome])).toEqual([
      ['Aina', 'done'],
      ['Chen', 'pending'],
    ]);
    expect(run.resumeCommand).toBe('mbulk runs resume R');
    expect(run.applyCommand).toBeUndefined();
  });

  it('templates: a card per template with its body as the preview', () => {
    const plan: TemplatePlan = {
      kind: 'templates',
      entries: [
        {
          action: 'create',
          sheet: 'templates.csv',
          rowNumber: 2,
          name: 'order_ready',
          key: 'create:order_ready',
          body: {
            name: 'order_ready',
            body: 'Hi {{name}}, <b>ready</b>',
            category: 'UTILITY',
            language: 'en',
          },
        },
      ],
      issues: [],
      counts: { create: 1, unchanged: 0, invalid: 0 },
    };
    const body = templateReview({ plan });
    expect(body.cards).toEqual([
      {
        action: 'create',
        name: 'order_ready',
        key: 'templates.csv row 2',
        preview: 'Hi {{name}}, <b>ready</b>',
        rows: [{ cells: ['category', 'UTILITY'] }, { cells: ['language', 'en'] }],
      },
    ]);
    const failed = templateReview(
      { plan },
      { applied: { notWritten: { 'create:order_ready': 'failed: invalid_body: body too long' } } },
    );
    expect(failed.cards[0]!.outcome).toBe('failed: invalid_body: body too long');
    expect(templateReview({ plan }, { applied: { notWritten: {} } }).cards[0]!.outcome).toBe('done');
  });

  it('messages: a run page shows what became of each send: done, pending or failed with the reason', () => {
    const send = (n: number) => ({
      sheet: 'to.csv',
      rowNumber: n + 1,
      to: `+6012000000${n}`,
      parameters: { name: `P${n}` },
      key: `order_ready:+6012000000${n}`,
    });
    const plan: MessagePlan = {
      kind: 'messages',
      template: { name: 'order_ready', status: 'APPROVED', language: 'en', parameters: ['name'] },
      sends: [send(1), send(2), send(3)],
      duplicates: [],
      issues: [],
    };
    const body = messageReview(
      { plan, template: { body: 'Hi {{name}}' } },
      {
        failedWritten: true,
        resumeCommand: 'mbulk runs resume R',
        applied: {
          notWritten: {
            'order_ready:+60120000002': 'failed: recipient_blocked: the customer opted out',
            'order_ready:+60120000003': 'pending',
          },
        },
      },
    );
    expect(body.cards.map((c) => c.outcome)).toEqual([
      'done',
      'failed: recipient_blocked: the customer opted out',
      'pending',
    ]);
    expect(body.resumeCommand).toBe('mbulk runs resume R');
  });
});

describe('pages of runs without their own cards (rollbacks)', () => {
  it('one card per change and issue line, the action from its first word or prefix', async () => {
    const { reviewFromLines } = await import('../../../src/report/review-from-lines.js');
    const body = reviewFromLines(
      ['product prod_1 (Hat): price: 8.90 → 8.50', 'delete product prod_2'],
      ['not reversible: product prod_3 (Tote): created by the run', 'error: catalog.csv row 2: bad'],
    );
    expect(body.cards.map((c) => [c.action, c.name])).toEqual([
      ['change', 'product prod_1 (Hat): price: 8.90 → 8.50'],
      ['delete', 'delete product prod_2'],
      ['not-reversible', 'product prod_3 (Tote): created by the run'],
      ['error', 'catalog.csv row 2: bad'],
    ]);
  });
});

describe('big plans as one table', () => {
  const card = (i: number, action = 'update'): ReviewCard => ({
    action,
    name: `P${i}`,
    key: `K${i}`,
    rows: [{ cells: ['price', '1.00', '2.00'] }],
  });
  const body = (cards: ReviewCard[]): ReviewBody => ({ columns: [], cards, invalid: [] });
  const writes = (c: ReviewCard) => c.action === 'update';

  it(`keeps cards below ${TABLE_FROM_ENTITIES} entities that write, and moves them into one table from there`, () => {
    const few = body([...Array.from({ length: TABLE_FROM_ENTITIES - 1 }, (_, i) => card(i))]);
    expect(withChangeTable(few, writes)).toBe(few);
    const many = withChangeTable(
      body([
        ...Array.from({ length: TABLE_FROM_ENTITIES }, (_, i) => card(i)),
        card(-1, 'invalid'),
        { ...card(-2), refused: 'suspicious price' },
      ]),
      writes,
    );
    expect(many.table?.rows).toHaveLength(TABLE_FROM_ENTITIES);
    expect(many.table?.rows[0]).toEqual(['P0', 'K0', 'update', 'price', '1.00', '2.00']);
    expect(many.table?.totals).toEqual([
      ['update', TABLE_FROM_ENTITIES],
      ['field changes', TABLE_FROM_ENTITIES],
    ]);
    // What does not write, and a refused change (marked), stay cards.
    expect(many.cards.map((c) => c.name)).toEqual(['P-1', 'P-2']);
  });
});

describe('a stock plan past the page limit', () => {
  it('says the table holds the first changes, and that report.md holds every one', () => {
    const changes = Array.from({ length: MAX_REVIEW_CARDS + 1 }, (_, i) => ({
      itemId: `inv_${i}`,
      sku: `S${i}`,
      name: `Item ${i}`,
      before: 1,
      after: 2,
      mode: 'quantity',
      rowNumber: i + 2,
    }));
    const plan = { changes, skipped: [], issues: [] } as unknown as StockPlan;
    const body = stockReview({ plan });
    expect(body.table?.rows).toHaveLength(MAX_REVIEW_CARDS);
    expect(body.notes).toContain(
      `The table holds the first ${MAX_REVIEW_CARDS} of ${MAX_REVIEW_CARDS + 1} changes; every one is in report.md beside this page (and in plan.json).`,
    );
  });
});
