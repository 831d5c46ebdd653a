import { describe, expect, it } from 'vitest';

import { planFlagsDiffer, planFlagsOf } from '../../../src/cli/plan-flags.js';

describe('plan flags of a run (what a continuing command must match)', () => {
  const names = ['category-map', 'map-file', 'stock-unknown', 'images', 'category'];

  it('records a file option as an absolute path, so ./m.csv, m.csv and the same file from another directory agree', () => {
    const here = planFlagsOf({ 'category-map': './maps/m.csv' }, names, '/shop');
    const again = planFlagsOf({ 'category-map': 'maps/m.csv' }, names, '/shop');
    const elsewhere = planFlagsOf({ 'category-map': '../maps/m.csv' }, names, '/shop/sub');
    expect(here['category-map']).toBe('/shop/maps/m.csv');
    expect(planFlagsDiffer(here, again)).toEqual([]);
    expect(planFlagsDiffer(here, elsewhere)).toEqual([]);
    const other = planFlagsOf({ 'category-map': 'other.csv' }, names, '/shop');
    expect(planFlagsDiffer(here, other)).toEqual([
      '--category-map /shop/maps/m.csv (this command: --category-map /shop/other.csv)',
    ]);
  });

  it('takes a repeated option given in another order as the same choice', () => {
    const first = planFlagsOf({ 'stock-unknown': ['a=zero', 'untracked'] }, names, '/shop');
    const second = planFlagsOf({ 'stock-unknown': ['untracked', 'a=zero'] }, names, '/shop');
    expect(planFlagsDiffer(first, second)).toEqual([]);
    const changed = planFlagsOf({ 'stock-unknown': ['untracked', 'a=untracked'] }, names, '/shop');
    expect(planFlagsDiffer(first, changed)).toHaveLength(1);
  });

  it('says an option was not given in words that cannot be read as a flag', () => {
    const recorded = planFlagsOf({ category: false }, names, '/shop');
    const now = planFlagsOf({}, names, '/shop');
    expect(planFlagsDiffer(recorded, now)).toEqual(['--no-category (this command: --category not given)']);
  });
});
