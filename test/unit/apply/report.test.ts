import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderReport, writeReport } from '../../../src/apply/report.js';

describe('report.md', () => {
  it('renders counts, every change and the issues, fenced so sheet text cannot break it', () => {
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
      issues: ['catalog.csv, row 12, column F (price): write a number like 12.90'],
      notes: ['Fix failed.csv and import it again.'],
    });
    expect(md).toContain('# Import products');
    expect(md).toContain('| create | 2 |');
    expect(md).toContain('| noop \\| same | 10 |');
    expect(md).toContain('## Changes (3)');
    expect(md).not.toContain('First ');
    expect(md).toContain('price 19.99 → 17.99');
    expect(md).toContain(`product ref-3: name "'''x"`);
    expect(md).toContain('## Issues (1)');
    expect(md).toContain('column F (price)');
    expect(md).toContain('- Fix failed.csv and import it again.');
    expect(md.match(/```/g)?.length).toBe(4);
  });

  it('omits empty sections', () => {
    const md = renderReport({ title: 't', counts: [['update', 1]], changes: ['a'] });
    expect(md).toContain('## Changes (1)');
    expect(md).not.toContain('## Issues');
  });

  it('writes every one of 2,500 changes and issues to report.md (streamed in pieces)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-report-'));
    const changes = Array.from({ length: 2_500 }, (_, i) => `stock SKU-${i}: 1 → 2`);
    const issues = Array.from({ length: 1_200 }, (_, i) => `warning: row ${i + 2}: odd`);
    writeReport(join(dir, 'report.md'), {
      title: 'Import stock',
      counts: [['change', 2_500]],
      changes,
      issues,
    });
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('## Changes (2500)');
    expect(md.match(/^stock SKU-\d+: 1 → 2$/gm)?.length).toBe(2_500);
    expect(md).toContain('stock SKU-2499: 1 → 2');
    expect(md.match(/^warning: row \d+: odd$/gm)?.length).toBe(1_200);
    expect(md.match(/```/g)?.length).toBe(4);
    expect(md).toBe(renderReport({ title: 'Import stock', counts: [['change', 2_500]], changes, issues }));
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<html');
  });
});
