import { describe, expect, it } from 'vitest';
import { describeChange, describeChanges } from '../../../src/plan/describe-changes.js';
import { diffImages } from '../../../src/plan/diff-images.js';
import { indexLiveCatalog } from '../../../src/plan/live-catalog.js';
import { summarizePlan } from '../../../src/plan/summarize-plan.js';
import { liveProduct, variant } from './live-fixture.js';

describe('describeChanges', () => {
  it('shows money in currency units with the currency decimals, and whole-entry notes', () => {
    expect(describeChange({ field: 'price', before: 1990, after: 2100, money: true }, 2)).toBe(
      'price: 19.90 → 21.00',
    );
    expect(describeChange({ field: 'price', before: 1200, after: 1500, money: true }, 0)).toBe(
      'price: 1200 → 1500',
    );
    expect(describeChange({ field: 'cost', before: null, after: 5, money: true }, 3)).toBe(
      'cost: (none) → 0.005',
    );
    expect(describeChange({ field: 'variants[S-2]', before: null, after: null, note: 'added' }, 2)).toBe(
      'variants[S-2]: added',
    );
    expect(
      describeChanges(
        {
          changes: [
            { path: 'tags', before: ['a'], after: [] },
            { path: 'description', before: 'line 1\nline 2', after: 'x'.repeat(80) },
            { path: 'weight', before: 1, after: 2 },
          ],
        },
        2,
      ),
    ).toEqual(['tags: a → (empty)', `description: line 1⏎line 2 → ${'x'.repeat(60)}…`, 'weight: 1 → 2']);
  });
});

describe('summarizePlan', () => {
  it('counts every action, zero included', () => {
    expect(
      summarizePlan({ entries: [{ action: 'update' }, { action: 'update' }, { action: 'invalid' }] }),
    ).toEqual({
      create: 0,
      update: 2,
      hide: 0,
      delete: 0,
      noop: 0,
      skip: 0,
      invalid: 1,
      total: 3,
    });
  });
});

describe('indexLiveCatalog', () => {
  it('indexes by id, reference_id, product sku and variant sku, keeping only what the diff needs', () => {
    const c = indexLiveCatalog([
      liveProduct('p1', { variants: [variant('p1', 'v1', { sku: 'V-1', qty: 9 })] }),
      liveProduct('p2', { reference_id: null, sku: '' }),
    ]);
    expect(c.byId.get('p2')?.id).toBe('p2');
    expect(c.byReferenceId.get('REF-p1')?.id).toBe('p1');
    expect([...c.byReferenceId.keys()]).toEqual(['REF-p1']);
    expect([...c.bySku.keys()]).toEqual(['P-p1']);
    expect(c.byVariantSku.get('V-1')?.id).toBe('p1');
    const p1 = c.byId.get('p1')!;
    expect(p1.inventory_quantity).toBe(7);
    expect(p1.variants[0]).toEqual({
      id: 'v1',
      name: 'Variant v1',
      sku: 'V-1',
      description: null,
      price: 1000,
      original_price: null,
      cost: null,
      weight: 100,
      inventory_quantity: 9,
      inventory_updated_at: '2026-11-01T10:00:00.000Z', // when its stock last changed (stale-stock check)
    });
    expect(p1).not.toHaveProperty('created_at');
    expect(p1).not.toHaveProperty('soldout');
  });
});

describe('diffImages', () => {
  it('compares in order: a reorder of live images is a change without uploads', () => {
    const live = ['https://cdn/a', 'https://cdn/b'];
    expect(diffImages(['https://cdn/a', 'https://cdn/b'], live, new Map())).toEqual({
      changed: false,
      images: live,
      uploads: [],
    });
    expect(diffImages(['https://cdn/b', 'https://cdn/a'], live, new Map())).toEqual({
      changed: true,
      images: ['https://cdn/b', 'https://cdn/a'],
      uploads: [],
    });
    expect(diffImages([], live, new Map()).changed).toBe(true);
  });

  it('a remembered source whose stored URL is no longer live is uploaded again', () => {
    const d = diffImages(['https://src/a'], ['https://cdn/b'], new Map([['https://src/a', 'https://cdn/a']]));
    expect(d).toEqual({
      changed: true,
      images: ['https://src/a'],
      uploads: [{ index: 0, source: 'https://src/a' }],
    });
  });
});
