import { describe, expect, it } from 'vitest';
import { checkApplyGuards, trippedGuards } from '../../../src/mcp/apply-guards.js';
import type { PlanView } from '../../../src/mcp/plan-view.js';

const view = (over: Partial<PlanView>): PlanView => ({
  kind: 'products',
  writes: 1,
  hides: 0,
  deletes: 0,
  liveCount: null,
  invalid: [],
  notReversible: [],
  priceJumps: [],
  refusal: null,
  stockUnknown: null,
  noCategory: null,
  changes: [],
  ...over,
});
const jump = {
  label: 'ERP-1 price',
  row: 2,
  before: { amount: '11.90', currency: 'MYR' },
  after: { amount: '1190.00', currency: 'MYR' },
  reason: 'ratio',
  message: 'ERP-1 (row 2): price 11.90 → 1190.00 (×100)',
};
const server = { maxChanges: 500, allowDelete: false };

describe('MCP apply guards', () => {
  it('passes a plan that trips none, with or without a reason', () => {
    expect(trippedGuards(view({}), server)).toEqual([]);
    expect(checkApplyGuards([], {})).toBeUndefined();
  });

  it("new products without a category: a guard nothing but planning again lifts, in the tools' terms", () => {
    const tripped = trippedGuards(
      view({
        noCategory:
          'no category: 3 new products would have no category, so they are not listed on the storefront: --apply refuses (nothing is written) until you choose --category-map FILE (source category \u2192 store category id), --default-category ID or --no-category (create them unlisted)',
      }),
      server,
    );
    expect(tripped).toMatchObject([{ guard: 'no-category', allow: null, operatorFlag: null }]);
    expect(tripped[0]?.message).toContain('category_map');
    expect(tripped[0]?.message).toContain('no_category: true');
    expect(tripped[0]?.message).not.toContain('--');
    expect(checkApplyGuards(tripped, { allow: { price_jumps: true }, reason: 'price_jumps' })).toMatchObject({
      refused: 'no-category',
    });
  });

  it('lifts price jumps only with allow.price_jumps and a reason that names it', () => {
    const tripped = trippedGuards(view({ priceJumps: [jump] }), server);
    expect(checkApplyGuards(tripped, {})).toMatchObject({ refused: 'price-jumps', allow: 'price_jumps' });
    expect(checkApplyGuards(tripped, { allow: { price_jumps: true } })).toMatchObject({
      refused: 'reason-missing',
    });
    expect(
      checkApplyGuards(tripped, { allow: { price_jumps: true }, reason: 'owner said so' }),
    ).toMatchObject({
      refused: 'reason-missing',
    });
    expect(
      checkApplyGuards(tripped, { allow: { price_jumps: true }, reason: 'price_jumps: confirmed' }),
    ).toBeUndefined();
  });

  it('never lifts deletes on a server without --allow-delete, whatever the assistant passes', () => {
    const tripped = trippedGuards(view({ deletes: 2 }), server);
    expect(checkApplyGuards(tripped, { allow: { deletes: true }, reason: 'deletes' })).toMatchObject({
      refused: 'deletes',
      allow: null,
      operatorFlag: '--allow-delete',
    });
    const allowed = trippedGuards(view({ deletes: 2 }), { ...server, allowDelete: true });
    expect(checkApplyGuards(allowed, {})).toMatchObject({ refused: 'deletes', allow: 'deletes' });
    expect(
      checkApplyGuards(allowed, { allow: { deletes: true }, reason: 'deletes: agreed' }),
    ).toBeUndefined();
  });

  it('refuses more writes than --max-changes, and a plan its planner refused, with no allow flag', () => {
    const big = trippedGuards(view({ writes: 501 }), server);
    expect(
      checkApplyGuards(big, { allow: { price_jumps: true, deletes: true }, reason: 'price_jumps deletes' }),
    ).toMatchObject({
      refused: 'max-changes',
      operatorFlag: '--max-changes',
    });
    expect(trippedGuards(view({ writes: 500 }), server)).toEqual([]);
    const refused = trippedGuards(view({ refusal: 'too many hides' }), server);
    expect(checkApplyGuards(refused, {})).toMatchObject({
      refused: 'plan-refused',
      message: 'too many hides',
    });
  });

  it('refuses unknown stock until the sheet is planned again with a stock_unknown mode', () => {
    const tripped = trippedGuards(view({ stockUnknown: 'stock unknown: 3 variants' }), server);
    expect(checkApplyGuards(tripped, { allow: { price_jumps: true }, reason: 'price_jumps' })).toMatchObject({
      refused: 'stock-unknown',
      allow: null,
    });
  });
});
