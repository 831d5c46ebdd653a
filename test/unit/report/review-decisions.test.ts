import { describe, expect, it } from 'vitest';
import type { PriceJump } from '../../../src/plan/price-jumps.js';
import type { PlanEntry, ProductPlan } from '../../../src/plan/product-plan.js';
import { CREATED_KEPT } from '../../../src/plan/rollback-plan.js';
import type { RollbackPlanFile } from '../../../src/jobs/rollback/rollback-plan-file.js';
import {
  describeRestore,
  formatRestoreValue,
  rollbackReview,
} from '../../../src/jobs/rollback/rollback-report.js';
import { pageHeadline } from '../../../src/report/page-headline.js';
import { productReview } from '../../../src/report/product-review.js';
import { renderReviewHtml } from '../../../src/report/render-review-html.js';
import type { ReviewPage } from '../../../src/report/review-page.js';
import { attr, parseHtml, select, text } from '../../helpers/review-dom.js';

const update: PlanEntry = {
  action: 'update',
  key: 'update:prod_1',
  productId: 'prod_1',
  match: { by: 'reference_id', value: 'ERP-1' },
  label: 'ERP-1',
  expectedUpdatedAt: '2026-01-01T00:00:00Z',
  changes: [{ path: 'price', before: 1190, after: 119000, money: true }],
  rows: [{ sheet: 'p.csv', rowNumber: 2 }],
  issues: [],
  body: { name: 'Latte', price: 119000 },
} as unknown as PlanEntry;

const plan = {
  format: 'merchant-bulk/product-plan',
  version: 1,
  decimals: 2,
  options: { missing: 'ignore', replace: { variants: false, options: false } },
  liveCount: 1,
  entries: [update],
  summary: { create: 0, update: 1, hide: 0, delete: 0, noop: 0, skip: 0, invalid: 0, total: 1 },
} as unknown as ProductPlan;

const jump: PriceJump = {
  key: 'update:prod_1',
  label: 'ERP-1 price',
  before: 1190,
  after: 119000,
  reason: 'ratio',
  message: 'ERP-1 (row 2): price 11.90 → 1190.00 (×100)',
};

function page(body: Omit<ReviewPage, 'title' | 'facts' | 'counts'>, status = 'planned'): ReviewPage {
  return {
    title: 'Import products',
    facts: [
      ['Status', status],
      ['Target', 'http://127.0.0.1:4010'],
    ],
    counts: [['update', 1]],
    ...body,
  };
}

describe('decisions first', () => {
  const input = { store: { currency: 'MYR' }, plan, issues: [], before: {}, priceJumps: [jump] };

  it('a plan with a price jump: the refusal with --allow-price-jumps, the card marked, the apply command carries the flag', () => {
    const body = productReview(input, { applyCommand: 'mbulk apply R1' });
    expect(body.refusals).toHaveLength(1);
    expect(body.refusals![0]!.fix).toContain('mbulk apply R1 refuses this plan (exit 3)');
    expect(body.refusals![0]!.fix).toContain('--allow-price-jumps');
    expect(body.applyCommand).toBe('mbulk apply R1 --allow-price-jumps');
    expect(body.cards[0]!.refused).toContain('price 11.90 → 1190.00 (×100)');

    const doc = parseHtml(renderReviewHtml(page(body)));
    const order = select(doc, '*')
      .map((e) => attr(e, 'id'))
      .filter((id) => id === 'refusals' || id === 'apply-command' || id === 'counts' || id === 'meta');
    expect(order).toEqual(['refusals', 'apply-command', 'counts', 'meta']);
    expect(text(select(doc, 'p', 'apply')[0]!)).not.toContain('To apply this plan:');
    expect(select(doc, 'article', 'refused')).toHaveLength(1);
    expect(text(select(doc, 'p', 'headline')[0]!)).toBe(
      'Plan · nothing has been written yet · target http://127.0.0.1:4010',
    );
  });

  it('planned with --allow-price-jumps, or refused when planned: no refusal of jumps; a refused plan has no apply command', () => {
    const allowed = productReview(input, { applyCommand: 'mbulk apply R1', priceJumpsAllowed: true });
    expect(allowed.refusals).toEqual([]);
    expect(allowed.applyCommand).toBe('mbulk apply R1');
    expect(allowed.cards[0]!.refused).toBeUndefined();

    const refused = productReview(
      {
        ...input,
        priceJumps: undefined,
        refusal:
          'refused: the plan would hide 0 and delete 9 of 10 live products (more than 50% of the catalog or more than 100); check the sheet, or pass --allow-deletes',
      },
      { applyCommand: 'mbulk apply R1' },
    );
    expect(refused.applyCommand).toBeUndefined();
    expect(refused.refusals).toEqual([
      {
        message:
          'the plan would hide 0 and delete 9 of 10 live products (more than 50% of the catalog or more than 100); check the sheet, or pass --allow-deletes',
        fix: 'mbulk apply refuses this plan (exit 3): check the sheet, or plan it again with --allow-deletes.',
      },
    ]);
    const html = renderReviewHtml(page(refused));
    expect(html).not.toContain('id="apply-command"');
  });

  it('unknown stock without --stock-unknown: a refusal with the flag and no apply command; chosen, a neutral note', () => {
    const unknown = { products: 2, items: 3, examples: ['ERP-1'] };
    const refused = productReview(
      { ...input, priceJumps: undefined, plan: { ...plan, stockUnknown: unknown } },
      { applyCommand: 'mbulk apply R1' },
    );
    expect(refused.applyCommand).toBeUndefined();
    expect(refused.refusals!.map((r) => r.fix)).toEqual([
      'mbulk apply refuses this plan (exit 3): plan it again with --stock-unknown untracked, zero or keep.',
    ]);
    const chosen = productReview(
      { ...input, priceJumps: undefined, plan: { ...plan, stockUnknown: { ...unknown, mode: 'zero' } } },
      { applyCommand: 'mbulk apply R1' },
    );
    expect(chosen.refusals).toEqual([]);
    expect(chosen.applyCommand).toBe('mbulk apply R1');
    expect(chosen.notes![0]).toMatch(/^Stock unknown: .*--stock-unknown zero/);
  });

  it('an applied run: each product its outcome, the counts of what was done, and when interrupted the resume command', () => {
    const body = productReview(input, {
      counts: [
        ['updated', 0],
        ['pending', 1],
      ],
      applied: { notWritten: { 'update:prod_1': 'pending' } },
      resumeCommand: 'mbulk runs resume R1',
    });
    expect(body.cards[0]!.outcome).toBe('pending');
    expect(body.cards[0]!.refused).toBeUndefined();
    expect(body.applyCommand).toBeUndefined();
    const doc = parseHtml(renderReviewHtml(page(body, 'interrupted')));
    expect(text(select(doc, 'span', 'outcome')[0]!)).toBe('pending');
    expect(select(doc, 'li').flatMap((li) => attr(li, 'data-count') ?? [])).toEqual(['updated', 'pending']);
    expect(text(select(doc, 'code').find((c) => attr(c, 'id') === 'resume-command')!)).toBe(
      'mbulk runs resume R1',
    );
    expect(text(select(doc, 'p', 'headline')[0]!)).toMatch(/^Interrupted run · /);
    const done = productReview(input, { applied: { notWritten: {} } });
    expect(done.cards[0]!.outcome).toBe('done');
  });

  it('names each kind of page', () => {
    const of = (title: string, status: string) =>
      pageHeadline({ ...page({ columns: [], cards: [], invalid: [] }, status), title });
    expect(of('Import stock', 'applied')).toMatch(/^Applied run · /);
    expect(of('Import stock', 'failed')).toMatch(/^Failed run · /);
    expect(of('Rollback of run X', 'planned')).toMatch(/^Rollback plan · /);
    expect(of('Rollback of run X', 'interrupted')).toMatch(/^Interrupted rollback · /);
  });
});

describe('rollback pages', () => {
  const variant = (price: number) => ({ name: 'Hot / Regular', price, stock: 60 });
  const file = {
    kind: 'rollback',
    version: 1,
    source: { id: 'SRC', kind: 'products', status: 'applied', dir: '/runs/SRC' },
    store: { id: 's1', name: 'Kopi', currency: 'MYR', decimals: 2 },
    options: { deleteCreated: false, force: false },
    restores: [
      {
        type: 'product',
        key: 'p1',
        productId: 'prod_1',
        label: 'Latte',
        body: {},
        changes: [
          { field: 'price', now: 1250, restore: 1190 },
          { field: 'variants[HOT-REG]', now: variant(1250), restore: variant(1190) },
        ],
        notes: [],
        current: {},
      },
      { type: 'stock', key: 's', items: [{ itemId: 'inv_1', sku: 'TEE-M', current: 3, restore: 5 }] },
    ],
    notReversible: [
      { type: 'product', id: 'prod_9', label: 'New Beans', reason: CREATED_KEPT },
      { type: 'template', id: 'tpl_1', label: 'order_ready', reason: 'submitted for review' },
    ],
    drifted: [],
    leftAlone: [],
    counts: { products: 1, stock_items: 1 },
  } as unknown as RollbackPlanFile;

  it('shows every amount in currency units, in the terminal and report.md lines too (formatRestoreValue)', () => {
    expect(formatRestoreValue('price', 1250, 2)).toBe('12.50');
    expect(formatRestoreValue('variants[X]', variant(1250), 2, 'MYR')).toBe(
      'Hot / Regular · 12.50 MYR · stock 60',
    );
    // Plans written before variant summaries were structured hold text in minor units: shown in
    // currency units too.
    expect(formatRestoreValue('variants[X]', 'Small 1250, stock 3', 2)).toBe('Small 12.50, stock 3');
    expect(describeRestore(file.restores[0]!, 2)).toEqual([
      'product prod_1 (Latte): price: 12.50 → 11.90; variants[HOT-REG]: Hot / Regular · 12.50 · stock 60 → Hot / Regular · 11.90 · stock 60',
    ]);
  });

  it('before → after tables, created products kept with the flag that deletes them, and the command that writes it', () => {
    const body = rollbackReview(file, { id: 'RB', meta: { status: 'planned' } as never });
    expect(body.cards[0]!.rows).toEqual([
      { cells: ['price', '12.50 MYR', '11.90 MYR'] },
      {
        cells: [
          'variants[HOT-REG]',
          'Hot / Regular · 12.50 MYR · stock 60',
          'Hot / Regular · 11.90 MYR · stock 60',
        ],
      },
    ]);
    expect(body.table!.rows).toEqual([['TEE-M', 3, 5, 2]]);
    const kept = body.cards.find((c) => c.action === 'kept')!;
    expect(kept.name).toBe('New Beans');
    expect(kept.notes).toEqual([
      'created by the run: the rollback keeps it. To delete it too: mbulk runs rollback SRC --delete-created --apply',
    ]);
    expect(body.cards.filter((c) => c.action === 'not-reversible').map((c) => c.name)).toEqual([
      'order_ready',
    ]);
    expect(body.counts).toContainEqual(['created products kept', 1]);
    expect(body.counts).toContainEqual(['not reversible', 1]);
    expect(body.applyCommand).toBe('mbulk runs rollback SRC --apply');

    const drifted = rollbackReview(
      {
        ...file,
        refusal:
          '1 entity changed after run SRC wrote it; rolling back would overwrite those changes (use --force to restore them anyway)',
      },
      { id: 'RB', meta: { status: 'planned' } as never },
    );
    expect(drifted.applyCommand).toBeUndefined();
    expect(drifted.refusals![0]!.fix).toContain('mbulk runs rollback SRC --force --apply');
  });

  it('after an interrupted apply: each entity its outcome and the command that continues it', () => {
    const body = rollbackReview(
      file,
      { id: 'RB', meta: { status: 'interrupted' } as never },
      {
        status: 'interrupted',
        restored: 1,
        failed: 0,
        notReached: 1,
        requests: 1,
        failures: [{ type: 'inventory_item', id: 'inv_1', code: 'not_run', message: 'Not applied' }],
      },
    );
    expect(body.applyCommand).toBeUndefined();
    expect(body.resumeCommand).toBe('mbulk runs rollback RB --apply');
    expect(body.cards[0]!.outcome).toBe('done');
    expect(body.table!.rows).toEqual([['TEE-M', 3, 5, 2, 'pending (continue the rollback)']]);
    expect(body.counts).toEqual([
      ['restored', 1],
      ['failed', 0],
      ['not reached (pending)', 1],
    ]);
  });
});
