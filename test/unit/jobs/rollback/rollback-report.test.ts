import { describe, expect, it } from 'vitest';
import { describeRestore, formatRestoreValue } from '../../../../src/jobs/rollback/rollback-report.js';
import type { RestoreEntry } from '../../../../src/plan/rollback-plan.js';

describe('rollback plan lines', () => {
  it('show every price in currency units: the product price and the price in a variant summary', () => {
    const entry = {
      type: 'product',
      key: 'product:p1',
      productId: 'p1',
      label: 'Linen tee',
      body: {},
      changes: [
        { field: 'price', now: 1190, restore: 1250 },
        { field: 'variants[TEE-S]', now: 'Size 12 1190, stock 3', restore: 'Size 12 1250, stock 3' },
        { field: 'variants[TEE-M]', now: '(deleted)', restore: 'M 1250' },
      ],
      notes: [],
      current: {},
    } as unknown as RestoreEntry;
    expect(describeRestore(entry, 2)).toEqual([
      'product p1 (Linen tee): price: 11.90 → 12.50; variants[TEE-S]: Size 12 11.90, stock 3 → Size 12 12.50, stock 3; variants[TEE-M]: (deleted) → M 12.50',
    ]);
  });

  it('formats one value the same way for every page (and leaves non-money alone)', () => {
    expect(formatRestoreValue('cost', 500, 2)).toBe('5.00');
    expect(formatRestoreValue('variants[X]', 'X 990', 0)).toBe('X 990');
    expect(formatRestoreValue('name', 'Tee', 2)).toBe('Tee');
  });
});
