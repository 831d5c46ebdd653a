import { describe, expect, it } from 'vitest';
import { allInvalidHint, doneLabel, nextCommand, splitCounts } from '../../../src/cli/run-summary.js';

describe('run summary lines', () => {
  it('one hint when every row is invalid, naming the likely causes; none when some rows are valid', () => {
    const hint = allInvalidHint(40, 40, { command: 'import stock' });
    expect(hint).toBe(
      'hint: all 40 rows are invalid, which usually means one cause, not 40 bad rows: is it the right sheet (--sheet NAME for a workbook), the right delimiter (a comma, semicolon or tab), the right format for mbulk import stock (its columns: mbulk import stock --help), and the right store?',
    );
    expect(allInvalidHint(40, 40, { command: 'import products', sheet: 'Sheet2' })).toContain(
      'the right sheet (Sheet2)',
    );
    expect(allInvalidHint(40, 39, { command: 'import stock' })).toBeUndefined();
    expect(allInvalidHint(1, 1, { command: 'import stock' })).toBeUndefined();
  });

  it('runs show: plan and outcome counts apart, zeros and bookkeeping left out; the next command by status', () => {
    expect(
      splitCounts({
        rows: 40,
        create: 40,
        update: 0,
        ops_total: 40,
        changes_done: 7,
        created: 7,
        failed: 0,
        requests: 7,
      }),
    ).toEqual({ planned: 'rows 40 · create 40', outcome: 'created 7 · requests 7' });
    expect(nextCommand('R1', 'products', 'interrupted')).toBe('Continue with: mbulk runs resume R1');
    expect(nextCommand('R1', 'products', 'planned')).toBe('Apply with: mbulk apply R1');
    // A planned run's next command is one that will not be refused.
    expect(nextCommand('R1', 'products', 'planned', {}, { needs: ['allowDeletes', 'allowPriceJumps'] })).toBe(
      'Apply with: mbulk apply R1 --allow-deletes --allow-price-jumps',
    );
    expect(nextCommand('R1', 'products', 'planned', {}, { drifted: true })).toMatch(
      /^Apply with: mbulk apply R1 --replan \(the store changed since planning/,
    );
    expect(nextCommand('R1', 'stock', 'planned', {}, { needs: ['plan-again'] })).toMatch(
      /^Refused when planned, and no flag lifts it: plan it again/,
    );
    expect(nextCommand('R1', 'rollback', 'planned')).toBe('Apply with: mbulk runs rollback R1 --apply');
    expect(nextCommand('R1', 'stock', 'applied')).toBe('Undo with: mbulk runs rollback R1');
    expect(nextCommand('R1', 'rollback', 'applied')).toBeUndefined();
    // Applied with failures: resume retries them (apply-saved-run accepts such a run).
    expect(
      nextCommand('R1', 'products', 'applied', { ops_total: 9, ops_done: 6, ops_failed: 2, ops_unknown: 1 }),
    ).toBe(
      'Continue with: mbulk runs resume R1 (retries its 3 failed writes; one that may have been sent is checked against the store first)',
    );
    expect(nextCommand('R1', 'products', 'applied', { ops_total: 9, ops_done: 9, ops_failed: 0 })).toBe(
      'Undo with: mbulk runs rollback R1',
    );
  });

  it('a run that did not complete is never labelled Applied', () => {
    expect(doneLabel('Applied', 'completed')).toBe('Applied');
    expect(doneLabel('Applied', 'interrupted')).toBe('Written before it stopped');
    expect(doneLabel('Sent', 'aborted')).toBe('Written before it stopped');
  });
});
