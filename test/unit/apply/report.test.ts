import { describe, expect, it } from 'vitest';
import { renderReport } from '../../../src/apply/report.js';

describe('report.md', () => {
  it('renders counts, the first N changes and the issues, fenced so sheet text cannot break it', () => {
    const md = renderReport({
      title: 'Import products',
      runId: '20261122-001530-products-a1b2',
      facts: [
        ['Input', 'catalog.csv'],
        ['Status', 'applied'],
      ],
      counts: [
        ['create', 2],
        ['update', 3],
        ['noop | same', 10],
      ],
      changes: ['product ref-1: create', 'product ref-2: price 19.99 → 17.99', 'product ref-3: name "```x"'],
      maxChanges: 2,
      issues: ['catalog.csv, row 12, column F (price): write a number like 12.90'],
      notes: ['Fix failed.csv and import it again.'],
    });
    expect(md).toContain('# Import products');
    expect(md).toContain('| create | 2 |');
    expect(md).toContain('| noop \\| same | 10 |');
    expect(md).toContain('## Changes (3)');
    expect(md).toContain('First 2 of 3.');
    expect(md).toContain('price 19.99 → 17.99');
    expect(md).not.toContain('ref-3');
    expect(md).toContain('## Issues (1)');
    expect(md).toContain('column F (price)');
    expect(md).toContain('- Fix failed.csv and import it again.');
    expect(md.match(/```/g)?.length).toBe(4);
  });

  it('omits empty sections and honours totals larger than the lines given', () => {
    const md = renderReport({ title: 't', counts: [['update', 5000]], changes: ['a'], totalChanges: 5000 });
    expect(md).toContain('## Changes (5000)');
    expect(md).toContain('First 1 of 5000.');
    expect(md).not.toContain('## Issues');
  });
});
