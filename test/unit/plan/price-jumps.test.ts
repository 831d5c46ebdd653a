import { describe, expect, it } from 'vitest';
import type { PlanEntry } from '../../../src/plan/product-plan.js';
import { indexLiveCatalog } from '../../../src/plan/live-catalog.js';
import { findPriceJumps, medianCatalogPrice } from '../../../src/plan/price-jumps.js';
import { liveProduct, variant } from './live-fixture.js';

function entry(over: Partial<PlanEntry>): PlanEntry {
  return {
    key: 'update:p1',
    action: 'update',
    productId: 'p1',
    match: null,
    label: 'P1',
    expectedUpdatedAt: null,
    changes: [],
    rows: [{ sheet: 'products', rowNumber: 2 }],
    issues: [],
    ...over,
  } as PlanEntry;
}

describe('findPriceJumps', () => {
  it('flags ×10 and ÷10 changes of product and variant prices, not ×9.9', () => {
    const jumps = findPriceJumps(
      {
        entries: [
          entry({
            changes: [
              { path: 'price', before: 1190, after: 119000, money: true },
              { path: 'variants[S-1].price', before: 1000, after: 100, money: true },
              { path: 'variants[S-2].price', before: 1000, after: 9900, money: true },
              { path: 'cost', before: 100, after: 100000, money: true },
            ],
          }),
        ],
      },
      { decimals: 2, median: undefined },
    );
    expect(jumps.map((j) => [j.label, j.reason, j.message])).toEqual([
      ['P1 price', 'ratio', 'P1 (row 2): price 11.90 → 1190.00 (×100)'],
      ['P1 variants[S-1].price', 'ratio', 'P1 (row 2): variants[S-1].price 10.00 → 1.00 (÷10)'],
    ]);
  });

  it('flags new prices (products and new variants) over 10× the median', () => {
    const jumps = findPriceJumps(
      {
        entries: [
          entry({
            key: 'create:ref:N',
            action: 'create',
            label: 'N',
            body: { name: 'N', price: 10001 } as never,
          }),
          entry({
            body: {
              variants: [
                { id: 'v1', name: 'kept', price: 50000 },
                { name: 'Big', sku: 'B-1', price: 20000 },
              ],
            } as never,
          }),
          entry({
            key: 'create:ref:M',
            action: 'create',
            label: 'M',
            body: { name: 'M', price: 10000 } as never,
          }),
        ],
      },
      { decimals: 2, median: 1000 },
    );
    expect(jumps.map((j) => j.label)).toEqual(['N price', 'P1 variants[B-1].price']);
  });

  it('takes the median over sellable items', () => {
    const catalog = indexLiveCatalog([
      liveProduct('a', { price: 100, variants: [] }),
      liveProduct('b', {
        price: 1,
        variants: [variant('b', 'b1', { price: 300 }), variant('b', 'b2', { price: 500 })],
      }),
    ]);
    expect(medianCatalogPrice(catalog)).toBe(300);
    expect(medianCatalogPrice(indexLiveCatalog([]))).toBeUndefined();
  });
});
